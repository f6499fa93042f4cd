package store

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Bulk loads are typed columns, not rows of interface values: a Batch is
// one Arrow record builder per table, filled a row at a time by typed
// setters (Str, Amount, Time, ...), and loaded by Tx.Load as Arrow record
// batches (load.go). Each value goes straight into its column's buffer,
// where a row of `any` would box every number and time, and DuckDB reads the
// columns as they are (DuckDB's Arrow scan, or the Appender without the
// duckdb_arrow build tag: relation_*.go).

// Kind is the type of a bulk-loaded column: how Go hands its values over and
// what DuckDB stores.
type Kind uint8

const (
	Text     Kind = iota + 1 // VARCHAR
	JSON                     // JSON: handed over as its text, checked and stored by DuckDB's cast
	Int32                    // INTEGER
	Int64                    // BIGINT
	Amount                   // DECIMAL(18,3): handed over in thousandths (platform.ParseAmount), stored exactly
	Time                     // TIMESTAMPTZ, to the microsecond
	Bool                     // BOOLEAN
	Interval                 // INTERVAL: a duration, no months or days
)

// kindInfo is how a kind is declared in DuckDB (as duckdb_columns() spells
// it) and carried in Arrow.
var kindInfo = map[Kind]struct {
	duckdb string
	arrow  arrow.DataType
}{
	Text:     {"VARCHAR", arrow.BinaryTypes.String},
	JSON:     {"JSON", arrow.BinaryTypes.String},
	Int32:    {"INTEGER", arrow.PrimitiveTypes.Int32},
	Int64:    {"BIGINT", arrow.PrimitiveTypes.Int64},
	Amount:   {"DECIMAL(18,3)", &arrow.Decimal128Type{Precision: 18, Scale: 3}},
	Time:     {"TIMESTAMP WITH TIME ZONE", &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}},
	Bool:     {"BOOLEAN", arrow.FixedWidthTypes.Boolean},
	Interval: {"INTERVAL", arrow.FixedWidthTypes.MonthDayNanoInterval},
}

// kindNames are the kinds as Columns reads them.
var kindNames = map[string]Kind{"text": Text, "json": JSON, "int32": Int32, "int64": Int64,
	"amount": Amount, "time": Time, "bool": Bool, "interval": Interval}

func (k Kind) String() string {
	if i, ok := kindInfo[k]; ok {
		return i.duckdb
	}
	return fmt.Sprintf("Kind(%d)", k)
}

// Column is a column of a bulk-loaded table.
type Column struct {
	Name string
	Kind Kind
}

// Columns reads a list of columns written "name kind, name kind, ...",
// the kinds spelled text, json, int32, int64, amount, time, bool, interval.
// A list that does not read is a programming error and panics.
func Columns(list string) []Column {
	var out []Column
	for _, c := range strings.Split(list, ",") {
		name, kind, ok := strings.Cut(strings.TrimSpace(c), " ")
		k, known := kindNames[strings.TrimSpace(kind)]
		if !ok || !known {
			panic(fmt.Sprintf("store: column %q: want a name and one of the kinds", strings.TrimSpace(c)))
		}
		out = append(out, Column{Name: name, Kind: k})
	}
	return out
}

// Table is what a bulk load writes: a table of the working database (or
// some of its columns, for Tx.Update), its key and its scope.
//
// The key identifies a row: a loaded row replaces the row of the same key.
// The scope, when set, is a key column whose values the store follows (a
// merchant ID, a journal file): rows of a scope value the table has never
// held cannot replace anything, so their load is a plain insert (see
// Tx.Load). The columns are checked against the database's at a store's
// first load of the table.
type Table struct {
	Name    string
	Columns []Column
	Key     []string
	Scope   string

	once   sync.Once
	schema *arrow.Schema
	isKey  []bool
	scope  int // index of the scope column, -1 without one
}

// NewTable declares a table for bulk loads; key and scope name columns of
// cols. A declaration that contradicts itself is a programming error and
// panics.
func NewTable(name string, key []string, scope string, cols ...Column) *Table {
	t := &Table{Name: name, Columns: cols, Key: key, Scope: scope, scope: -1}
	t.isKey = make([]bool, len(cols))
	for _, k := range key {
		i := t.index(k)
		if i < 0 {
			panic(fmt.Sprintf("store: key column %s is not a column of %s", k, name))
		}
		if k := cols[i].Kind; k != Text && k != Int32 && k != Int64 && k != Time {
			panic(fmt.Sprintf("store: key column %s of %s is %s: keys are text, integers or times", cols[i].Name, name, k))
		}
		t.isKey[i] = true
	}
	if scope != "" {
		if t.scope = t.index(scope); t.scope < 0 || !t.isKey[t.scope] {
			panic(fmt.Sprintf("store: scope %s of %s is not a key column", scope, name))
		}
	}
	for _, c := range cols {
		if _, ok := kindInfo[c.Kind]; !ok {
			panic(fmt.Sprintf("store: column %s of %s has no kind", c.Name, name))
		}
	}
	return t
}

func (t *Table) index(col string) int {
	return slices.IndexFunc(t.Columns, func(c Column) bool { return c.Name == col })
}

// ColumnNames are the table's column names in order.
func (t *Table) ColumnNames() []string {
	out := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		out[i] = c.Name
	}
	return out
}

func (t *Table) arrowSchema() *arrow.Schema {
	t.once.Do(func() {
		fields := make([]arrow.Field, len(t.Columns))
		for i, c := range t.Columns {
			fields[i] = arrow.Field{Name: c.Name, Type: kindInfo[c.Kind].arrow, Nullable: true}
		}
		t.schema = arrow.NewSchema(fields, nil)
	})
	return t.schema
}

// Batch is rows for one table, built a row at a time: one setter call per
// column, in the table's column order, then End. A setter whose type does not
// match the column, or a row with too few or too many values, is a
// programming error and panics.
//
// Loading a batch seals it: its rows become one Arrow record, kept, so that
// a load whose transaction failed can be made again with the same batch
// (ingest loads the members of a failed group one by one). A row added to a
// sealed batch is a programming error and panics.
//
// A key given twice (paging over live data can list a record twice) is kept
// once, the later row winning, so a load never inserts a key twice.
type Batch struct {
	t      *Table
	rb     *array.RecordBuilder
	col    int // the column the next value goes to
	rows   int // rows ended, dropped ones included
	keyBuf []byte
	keys   map[string]int    // a row's key -> the row that holds it now
	drop   []int             // rows replaced by a later row of the same key
	scopes []string          // the scope values of the rows, in order of appearance
	rec    arrow.RecordBatch // the rows, once the batch is sealed (record)
}

// NewBatch starts an empty batch of rows for t.
func (t *Table) NewBatch() *Batch {
	b := &Batch{t: t, rb: array.NewRecordBuilder(memory.DefaultAllocator, t.arrowSchema())}
	if len(t.Key) > 0 {
		b.keys = map[string]int{}
	}
	return b
}

// Table is the table the batch's rows are for.
func (b *Batch) Table() *Table { return b.t }

// Len is the number of rows, a key given twice counted once.
func (b *Batch) Len() int { return b.rows - len(b.drop) }

// field checks that the next column takes a value of kind k and returns its
// builder.
func (b *Batch) field(k Kind) array.Builder {
	b.open()
	if b.col >= len(b.t.Columns) {
		panic(fmt.Sprintf("store: more values than the %d columns of %s", len(b.t.Columns), b.t.Name))
	}
	c := b.t.Columns[b.col]
	if c.Kind != k && !(k == Text && c.Kind == JSON) {
		panic(fmt.Sprintf("store: column %s of %s is %s, given %s", c.Name, b.t.Name, c.Kind, k))
	}
	return b.rb.Field(b.col)
}

// open panics if the batch is sealed.
func (b *Batch) open() {
	if b.rec != nil {
		panic(fmt.Sprintf("store: a row added to a batch of %s already loaded", b.t.Name))
	}
}

// key notes a value of a key or scope column; every setter calls it after
// appending.
func (b *Batch) key(s string) {
	if b.t.isKey[b.col] {
		b.keyBuf = append(append(b.keyBuf, s...), 0)
		if b.col == b.t.scope && (len(b.scopes) == 0 || b.scopes[len(b.scopes)-1] != s) {
			b.scopes = append(b.scopes, s)
		}
	}
	b.col++
}

// Str sets a VARCHAR (or JSON) column to s as it is, "" included.
func (b *Batch) Str(s string) *Batch {
	b.field(Text).(*array.StringBuilder).Append(s)
	b.key(s)
	return b
}

// Text sets a VARCHAR column to s, NULL when s is "": an absent field.
func (b *Batch) Text(s string) *Batch {
	if s == "" {
		return b.Null()
	}
	return b.Str(s)
}

// JSONText sets a JSON column to the JSON text raw, NULL when it is empty.
func (b *Batch) JSONText(raw []byte) *Batch {
	sb := b.field(JSON).(*array.StringBuilder)
	if len(raw) == 0 {
		sb.AppendNull()
	} else {
		sb.BinaryBuilder.Append(raw)
	}
	b.key("")
	return b
}

// Int32 sets an INTEGER column to v, NULL unless ok.
func (b *Batch) Int32(v int32, ok bool) *Batch {
	fb := b.field(Int32).(*array.Int32Builder)
	if !ok {
		fb.AppendNull()
		b.key("\xff")
		return b
	}
	fb.Append(v)
	b.keyInt(int64(v))
	return b
}

// Int64 sets a BIGINT column to v, NULL unless ok.
func (b *Batch) Int64(v int64, ok bool) *Batch {
	fb := b.field(Int64).(*array.Int64Builder)
	if !ok {
		fb.AppendNull()
		b.key("\xff")
		return b
	}
	fb.Append(v)
	b.keyInt(v)
	return b
}

func (b *Batch) keyInt(v int64) {
	if b.t.isKey[b.col] {
		b.keyBuf = append(strconv.AppendInt(b.keyBuf, v, 10), 0)
	}
	b.col++
}

// Amount sets a DECIMAL(18,3) column to thousandths (platform.ParseAmount),
// NULL unless ok.
func (b *Batch) Amount(thousandths int64, ok bool) *Batch {
	fb := b.field(Amount).(*array.Decimal128Builder)
	if !ok {
		fb.AppendNull()
	} else {
		fb.Append(decimal128.FromI64(thousandths))
	}
	b.key("")
	return b
}

// Time sets a TIMESTAMPTZ column to t, NULL unless ok.
func (b *Batch) Time(t time.Time, ok bool) *Batch {
	fb := b.field(Time).(*array.TimestampBuilder)
	if !ok {
		fb.AppendNull()
		b.key("\xff")
		return b
	}
	fb.Append(arrow.Timestamp(t.UnixMicro()))
	b.keyInt(t.UnixMicro())
	return b
}

// Bool sets a BOOLEAN column to v, NULL unless ok.
func (b *Batch) Bool(v, ok bool) *Batch {
	fb := b.field(Bool).(*array.BooleanBuilder)
	if !ok {
		fb.AppendNull()
	} else {
		fb.Append(v)
	}
	b.key("")
	return b
}

// Interval sets an INTERVAL column to d.
func (b *Batch) Interval(d time.Duration) *Batch {
	b.field(Interval).(*array.MonthDayNanoIntervalBuilder).Append(arrow.MonthDayNanoInterval{Nanoseconds: d.Nanoseconds()})
	b.key("")
	return b
}

// Null sets the next column, of any kind, to NULL.
func (b *Batch) Null() *Batch {
	b.open()
	if b.col >= len(b.t.Columns) {
		panic(fmt.Sprintf("store: more values than the %d columns of %s", len(b.t.Columns), b.t.Name))
	}
	b.rb.Field(b.col).AppendNull()
	b.key("\xff")
	return b
}

// End ends a row; every column must have had its value.
func (b *Batch) End() {
	if b.col != len(b.t.Columns) {
		panic(fmt.Sprintf("store: a row of %s with %d of its %d columns", b.t.Name, b.col, len(b.t.Columns)))
	}
	b.col = 0
	if b.keys != nil {
		if prev, ok := b.keys[string(b.keyBuf)]; ok {
			b.drop = append(b.drop, prev)
		}
		b.keys[string(b.keyBuf)] = b.rows
		b.keyBuf = b.keyBuf[:0]
	}
	b.rows++
}

// Add sets a whole row from values of the columns' Go types (string; []byte
// for JSON; int32, int64, thousandths as int64 for Amount; time.Time; bool;
// time.Duration), nil for NULL, and ends it. For rows built as []any; the
// typed setters spare boxing each value.
func (b *Batch) Add(values ...any) {
	if len(values) != len(b.t.Columns) {
		panic(fmt.Sprintf("store: %d values for the %d columns of %s", len(values), len(b.t.Columns), b.t.Name))
	}
	for _, v := range values {
		if v == nil {
			b.Null()
			continue
		}
		switch x := v.(type) {
		case string:
			b.Str(x)
		case []byte:
			b.JSONText(x)
		case int32:
			b.Int32(x, true)
		case int64:
			if b.t.Columns[b.col].Kind == Amount {
				b.Amount(x, true)
			} else {
				b.Int64(x, true)
			}
		case time.Time:
			b.Time(x, true)
		case bool:
			b.Bool(x, true)
		case time.Duration:
			b.Interval(x)
		default:
			c := b.t.Columns[b.col]
			panic(fmt.Sprintf("store: column %s of %s given a %T", c.Name, b.t.Name, v))
		}
	}
	b.End()
}

// Scopes are the distinct values of the table's scope column in the batch.
func (b *Batch) Scopes() []string {
	out := slices.Clone(b.scopes)
	slices.Sort(out)
	return slices.Compact(out)
}

// Reserve makes room for rows more rows, and for text[c] more bytes of the
// text or JSON column c, so that a batch whose size is known beforehand
// (a member's records and their raw JSON) is built without growing its
// buffers: each growth doubles a buffer and copies it, so a member's raw
// JSON was allocated about twice over, and kept with up to half of its
// last buffer unused while the batch waited for its load. A column that is
// not text is a programming error and panics.
func (b *Batch) Reserve(rows int, text map[string]int) {
	b.open()
	b.rb.Reserve(rows)
	for name, n := range text {
		i := b.t.index(name)
		if i < 0 || (b.t.Columns[i].Kind != Text && b.t.Columns[i].Kind != JSON) {
			panic(fmt.Sprintf("store: %s is not a text column of %s", name, b.t.Name))
		}
		b.rb.Field(i).(*array.StringBuilder).ReserveData(n)
	}
}

// Seal ends the batch: its rows become the record a load writes, and the
// builder and the keys are let go. Loading seals a batch anyway; sealing it
// where its rows were made (a member's goroutine) frees that memory while
// the batch waits for its load, and spares the single writer the work.
// Sealing twice is harmless.
func (b *Batch) Seal() {
	if b.rec == nil {
		b.rec = b.seal()
	}
}

// record seals the batch and returns its rows as one Arrow record, rows
// whose key a later row gave again left out; the caller releases it.
func (b *Batch) record() arrow.RecordBatch {
	b.Seal()
	b.rec.Retain()
	return b.rec
}

// seal makes the batch's record, and lets go of the builder and the keys.
func (b *Batch) seal() arrow.RecordBatch {
	if b.col != 0 {
		panic(fmt.Sprintf("store: a row of %s not ended", b.t.Name))
	}
	rec := b.rb.NewRecordBatch()
	b.rb.Release()
	b.rb, b.keys = nil, nil
	drop := slices.Clone(b.drop)
	if len(drop) == 0 {
		return rec
	}
	defer rec.Release()
	slices.Sort(drop)
	var keep [][2]int64 // ranges of rows kept
	from := int64(0)
	for _, d := range drop {
		if int64(d) > from {
			keep = append(keep, [2]int64{from, int64(d)})
		}
		from = int64(d) + 1
	}
	if from < rec.NumRows() {
		keep = append(keep, [2]int64{from, rec.NumRows()})
	}
	cols := make([]arrow.Array, rec.NumCols())
	var n int64
	for _, r := range keep {
		n += r[1] - r[0]
	}
	for i := range cols {
		parts := make([]arrow.Array, len(keep))
		for j, r := range keep {
			parts[j] = array.NewSlice(rec.Column(i), r[0], r[1])
		}
		cols[i] = concat(parts)
		for _, p := range parts {
			p.Release()
		}
	}
	return recordOf(rec.Schema(), cols, n)
}

// concat joins arrays of one type into one.
func concat(parts []arrow.Array) arrow.Array {
	if len(parts) == 1 {
		parts[0].Retain()
		return parts[0]
	}
	out, err := array.Concatenate(parts, memory.DefaultAllocator)
	if err != nil { // only for arrays of different types, which one schema rules out
		panic(fmt.Sprintf("store: concatenate columns: %v", err))
	}
	return out
}

// recordOf makes a record of cols and releases them (the record holds them).
func recordOf(schema *arrow.Schema, cols []arrow.Array, rows int64) arrow.RecordBatch {
	rec := array.NewRecordBatch(schema, cols, rows)
	for _, c := range cols {
		c.Release()
	}
	return rec
}

// Values seals the batch and returns its rows as Go values, in the types Add
// takes (an amount as int64 thousandths, JSON as its text in a string), nil
// for NULL: what a load would write, for tests to read.
func (b *Batch) Values() [][]any {
	rec := b.record()
	defer rec.Release()
	out := make([][]any, rec.NumRows())
	for i := range out {
		out[i] = make([]any, rec.NumCols())
		for j, col := range rec.Columns() {
			out[i][j] = goValue(col, i)
		}
	}
	return out
}

// goValue is row i of col as a Go value (see Values).
func goValue(col arrow.Array, i int) any {
	if col.IsNull(i) {
		return nil
	}
	switch a := col.(type) {
	case *array.String:
		return a.Value(i)
	case *array.Int32:
		return a.Value(i)
	case *array.Int64:
		return a.Value(i)
	case *array.Decimal128:
		return int64(a.Value(i).LowBits()) // DECIMAL(18,3) fits an int64 of thousandths
	case *array.Timestamp:
		return time.UnixMicro(int64(a.Value(i))).UTC()
	case *array.Boolean:
		return a.Value(i)
	case *array.MonthDayNanoInterval:
		return time.Duration(a.Value(i).Nanoseconds)
	}
	panic(fmt.Sprintf("store: no Go value for an Arrow %s", col.DataType()))
}
