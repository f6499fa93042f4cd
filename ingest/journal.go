package ingest

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	json "github.com/goccy/go-json"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"golang.org/x/sync/errgroup"

	"github.com/reconcile/reconcile/internal/cardmask"
	"github.com/reconcile/reconcile/internal/store"
	"github.com/reconcile/reconcile/queries"
)

// maxJournalLine bounds one journal line; a longer line is rejected rather
// than read into memory whole.
const maxJournalLine = 16 << 20

// maxRejectText bounds the text kept of a rejected line.
const maxRejectText = 4096

// JournalImport summarises one journal file.
type JournalImport struct {
	// File is the file's path as it is stored (the journal tables' file
	// column), logged and reported: with card numbers masked
	// (cardmask.MaskText), for a file or folder named after a card, say
	// by a merchant's per-card debug log, is card data like any other.
	// Whether a file was imported before is decided by its content's
	// hash, never by File. See journalNames for paths that mask alike.
	File     string
	SHA256   string
	Skipped  bool // same content already imported
	Lines    int
	Loaded   int
	Rejected int
}

// journalLimits bound what an import holds in memory, whatever the size of
// its files: a file is read in chunks of at most chunkRows lines and
// chunkBytes bytes of line text, and small files (one chunk) are loaded
// several to a transaction up to groupRows rows and groupBytes bytes. Two
// readers each hold a chunk being filled and one waiting, and the writer
// two chunks or one group: with the defaults, about 31 MiB of live heap
// for a file of 20,000 lines as for one of 80,000
// (BenchmarkImportJournalMemory; the whole file was held before, 60 and
// 235 MiB).
type journalLimits struct {
	chunkRows, chunkBytes int
	groupRows, groupBytes int
	// loaded, when set, is told of each chunk the writer loads (a test
	// watches the chunks and the transactions).
	loaded func(file string, rows int)
}

var defaultJournalLimits = journalLimits{chunkRows: 2_000, chunkBytes: 4 << 20, groupRows: 25_000, groupBytes: 16 << 20}

// ImportJournals imports every file matching glob. A file whose content (by
// SHA-256) was already imported is skipped, whatever its name. Files are
// read two at a time and loaded by one writer: a small file whole, several
// to a transaction; a larger one in chunks within its own transaction. A
// file's rows and its journal_files row are committed together, so a crash
// or an interruption never leaves part of a file, or a file without its
// row.
//
// Only regular files are journals. A named pipe, a device or a file that
// cannot be read is reported in the returned error and the other files
// still load; directories are passed over. Card data is masked from each
// line before anything reads it (cardmask.MaskJournalLine: by field, so that
// the ids of the platform are kept as written). Reading stops within a line of
// ctx being cancelled.
func ImportJournals(ctx context.Context, s *store.Store, glob string, now time.Time) ([]JournalImport, error) {
	return importJournals(ctx, s, glob, now, defaultJournalLimits)
}

func importJournals(ctx context.Context, s *store.Store, glob string, now time.Time, limits journalLimits) ([]JournalImport, error) {
	paths, err := filepath.Glob(glob)
	if err != nil {
		return nil, fmt.Errorf("journal glob %q: %w", glob, err)
	}
	sort.Strings(paths)
	names := journalNames(paths)
	known, err := importedJournals(ctx, s)
	if err != nil {
		return nil, err
	}
	var mu sync.Mutex
	claim := func(sum string) bool {
		mu.Lock()
		defer mu.Unlock()
		if known[sum] {
			return false
		}
		known[sum] = true // a second file of the same content in this run is skipped too
		return true
	}

	files := make(chan *journalStream, 2)
	go func() {
		var g errgroup.Group
		g.SetLimit(2)
		for _, p := range paths {
			if ctx.Err() != nil {
				break
			}
			if info, err := os.Stat(p); err == nil && info.IsDir() {
				continue
			}
			st := newJournalStream(p, names[p])
			g.Go(func() error {
				files <- st
				st.read(ctx, now, limits, claim)
				return nil
			})
		}
		g.Wait()
		close(files)
	}()

	w := &journalWriter{s: s, limits: limits, now: now}
	for st := range files {
		w.take(ctx, st)
	}
	w.flush(ctx)
	sort.Slice(w.out, func(i, j int) bool { return w.out[i].File < w.out[j].File })
	return w.out, errors.Join(w.problems...)
}

// journalStream is one file on its way from its reader to the writer: its
// rows in chunks, then its summary.
type journalStream struct {
	path   string        // the file to read; imp.File names it everywhere else
	imp    JournalImport // complete once chunks is closed
	chunks chan *journalChunk
	err    error // why the file was not read to its end; set before chunks is closed
}

func newJournalStream(path, name string) *journalStream {
	return &journalStream{path: path, imp: JournalImport{File: name}, chunks: make(chan *journalChunk, 1)}
}

// journalNames names each of paths (sorted) as JournalImport.File: the
// path masked. The journal tables key a row by its file's name and line,
// so that a file imported again as it grows replaces its earlier lines
// rather than adding them twice; paths that mask alike (two cards of one
// BIN and last four, or a card and a path written masked already) would
// then replace each other's lines, so the second and later of them in the
// sorted paths end in " (2)", " (3)", ... . Masking the same paths gives
// the same names, run after run.
func journalNames(paths []string) map[string]string {
	names := make(map[string]string, len(paths))
	seen := map[string]int{}
	for _, p := range paths {
		name := cardmask.MaskText(p)
		if seen[name]++; seen[name] > 1 {
			name += " (" + strconv.Itoa(seen[name]) + ")"
		}
		names[p] = name
	}
	return names
}

// journalChunk is rows of consecutive lines of one file.
type journalChunk struct {
	rows, rejects *store.Batch
	bytes         int // line text held
}

func newJournalChunk() *journalChunk {
	return &journalChunk{rows: journalTable.NewBatch(), rejects: journalRejectsTable.NewBatch()}
}

func (c *journalChunk) len() int { return c.rows.Len() + c.rejects.Len() }

// read reads the file into chunks, closing them at the end. claim decides,
// by the content's SHA-256, whether it is to be imported at all.
func (st *journalStream) read(ctx context.Context, now time.Time, limits journalLimits, claim func(sum string) bool) {
	defer close(st.chunks)
	name := st.imp.File
	f, err := openJournal(st.path, name)
	if err != nil {
		st.err = err
		return
	}
	defer f.Close()
	// One open file for the digest and the lines: what is loaded is what
	// was hashed, even if the path is replaced meanwhile.
	sum, err := readerSHA256(ctx, f)
	if err == nil {
		_, err = f.Seek(0, io.SeekStart)
	}
	if err != nil {
		st.err = fmt.Errorf("journal %s: read: %w", name, withoutPath(err))
		return
	}
	st.imp.SHA256 = sum
	if !claim(sum) {
		st.imp.Skipped = true
		return
	}
	chunk := newJournalChunk()
	r := journalReaders.Get().(*bufio.Reader)
	r.Reset(f)
	defer func() {
		r.Reset(nil)
		journalReaders.Put(r)
	}()
	for lineNo := 1; ; lineNo++ {
		if err := ctx.Err(); err != nil {
			st.err = fmt.Errorf("journal %s: %w", name, err)
			return
		}
		line, tooLong, err := readLine(r)
		if err != nil && err != io.EOF {
			st.err = fmt.Errorf("journal %s line %d: %w", name, lineNo, withoutPath(err))
			return
		}
		if len(bytes.TrimSpace(line)) > 0 || tooLong { // blank lines are not calls
			st.imp.Lines++
			if addJournalLine(chunk, name, lineNo, line, tooLong, sum, now) {
				st.imp.Loaded++
			} else {
				st.imp.Rejected++
			}
			chunk.bytes += len(line)
		}
		if err == io.EOF {
			break
		}
		if chunk.len() >= limits.chunkRows || chunk.bytes >= limits.chunkBytes {
			st.chunks <- chunk
			chunk = newJournalChunk()
		}
	}
	st.chunks <- chunk // the last, possibly empty: an empty file is imported too
}

// openJournal opens a journal for reading. Only a regular file is a
// journal: reading a named pipe or a device could block the run forever,
// so it is refused before it is opened and again on the opened file, in
// case the path was replaced in between. O_NONBLOCK keeps the open itself
// from waiting for a pipe's writer. Errors name the file as name (its
// masked path: JournalImport.File).
func openJournal(path, name string) (*os.File, error) {
	if info, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("journal %s: %w", name, withoutPath(err))
	} else if !info.Mode().IsRegular() {
		return nil, notRegular(name, info.Mode())
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, fmt.Errorf("journal %s: %w", name, withoutPath(err))
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("journal %s: %w", name, withoutPath(err))
	}
	if !info.Mode().IsRegular() {
		f.Close()
		return nil, notRegular(name, info.Mode())
	}
	return f, nil
}

// withoutPath is a file operation's error without the path an
// *fs.PathError repeats ("stat /journals/x.ndjson: permission denied"
// becomes "stat: permission denied"): the caller names the file, masked.
// The cause stays wrapped (errors.Is(err, fs.ErrPermission) holds).
func withoutPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %w", pe.Op, pe.Err)
	}
	return err
}

func notRegular(path string, mode fs.FileMode) error {
	kind := "not a regular file"
	switch {
	case mode&fs.ModeNamedPipe != 0:
		kind = "a named pipe"
	case mode&fs.ModeDevice != 0:
		kind = "a device"
	case mode&fs.ModeSocket != 0:
		kind = "a socket"
	case mode.IsDir():
		kind = "a directory"
	}
	return fmt.Errorf("journal %s: %s, not a regular file: not imported", path, kind)
}

// A journal file is read twice, for its digest and for its lines, each
// through a buffer of 1 MiB, and a run reads thousands of files, most far
// smaller than that: a new pair of buffers per file was a quarter of all
// that a 2,000-member run allocated (8 GB over 4,000 files), cleared and
// collected again. The buffers are kept for the next file instead.
var (
	journalReaders = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 1<<20) }}
	digestBuffers  = sync.Pool{New: func() any { return new([1 << 20]byte) }}
)

// readerSHA256 is the hex SHA-256 of what r holds, read to its end unless
// ctx is cancelled.
func readerSHA256(ctx context.Context, r io.Reader) (string, error) {
	h := sha256.New()
	pooled := digestBuffers.Get().(*[1 << 20]byte)
	defer digestBuffers.Put(pooled)
	buf := pooled[:]
	for {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		n, err := r.Read(buf)
		h.Write(buf[:n])
		if err == io.EOF {
			return hex.EncodeToString(h.Sum(nil)), nil
		}
		if err != nil {
			return "", err
		}
	}
}

// journalWriter loads the files' chunks, one file at a time.
type journalWriter struct {
	s        *store.Store
	limits   journalLimits
	now      time.Time
	group    []smallJournal // read whole, not yet loaded
	rows     int            // in the group
	bytes    int
	out      []JournalImport
	problems []error
}

// smallJournal is a file read whole into one chunk.
type smallJournal struct {
	st    *journalStream
	chunk *journalChunk
}

// take loads one file, or adds it to the group of small files, loaded
// when it is full, before a larger file and at the end. (Loading the group
// whenever no other file was waiting made a transaction of nearly every
// small file: the writer is faster than the two readers.)
func (w *journalWriter) take(ctx context.Context, st *journalStream) {
	first, ok := <-st.chunks
	if !ok { // skipped, or not readable
		if st.err != nil {
			w.problems = append(w.problems, st.err)
		} else {
			w.out = append(w.out, st.imp)
		}
		return
	}
	second, more := <-st.chunks
	if !more {
		if st.err != nil {
			w.problems = append(w.problems, st.err)
			return
		}
		w.group = append(w.group, smallJournal{st, first})
		w.rows, w.bytes = w.rows+first.len(), w.bytes+first.bytes
		if w.rows >= w.limits.groupRows || w.bytes >= w.limits.groupBytes {
			w.flush(ctx)
		}
		return
	}
	w.flush(ctx)
	err := w.s.Transact(ctx, func(tx *store.Tx) error {
		for _, c := range []*journalChunk{first, second} {
			if err := w.loadChunks(ctx, tx, st.imp.File, c); err != nil {
				return err
			}
		}
		first, second = nil, nil
		for c := range st.chunks {
			if err := w.loadChunks(ctx, tx, st.imp.File, c); err != nil {
				return err
			}
		}
		if st.err != nil {
			return st.err
		}
		return w.loadMeta(ctx, tx, st)
	})
	for range st.chunks { // after a failed load: let the reader finish
	}
	if err != nil {
		if st.err == nil || !errors.Is(err, st.err) {
			err = fmt.Errorf("journal %s: load: %w", st.imp.File, err)
		}
		w.problems = append(w.problems, err)
		return
	}
	w.out = append(w.out, st.imp)
}

// flush loads the group of small files in one transaction.
func (w *journalWriter) flush(ctx context.Context) {
	if len(w.group) == 0 {
		return
	}
	var names []string
	var chunks []*journalChunk
	for _, f := range w.group {
		names = append(names, f.st.imp.File)
		chunks = append(chunks, f.chunk)
	}
	err := w.s.Transact(ctx, func(tx *store.Tx) error {
		if err := w.loadChunks(ctx, tx, strings.Join(names, ", "), chunks...); err != nil {
			return err
		}
		streams := make([]*journalStream, len(w.group))
		for i, f := range w.group {
			streams[i] = f.st
		}
		return w.loadMeta(ctx, tx, streams...)
	})
	if err != nil {
		w.problems = append(w.problems, fmt.Errorf("journal %s: load: %w", groupText(names), err))
	} else {
		for _, f := range w.group {
			w.out = append(w.out, f.st.imp)
		}
	}
	w.group, w.rows, w.bytes = nil, 0, 0
}

// groupText names a group of files in an error: each of a few, else how
// many and the first and last by name (a group can hold thousands of small
// files, and a line of the run log naming them all was 266 KB).
func groupText(names []string) string {
	if len(names) <= 3 {
		return strings.Join(names, ", ")
	}
	sorted := slices.Sorted(slices.Values(names))
	return fmt.Sprintf("group of %d files, %s to %s", len(names), sorted[0], sorted[len(sorted)-1])
}

// loadChunks loads chunks of the files named by file (one, or the group's
// names) in one statement per table.
func (w *journalWriter) loadChunks(ctx context.Context, tx *store.Tx, file string, chunks ...*journalChunk) error {
	var rows, rejects []*store.Batch
	n := 0
	for _, c := range chunks {
		rows, rejects = append(rows, c.rows), append(rejects, c.rejects)
		n += c.len()
	}
	if err := tx.Load(ctx, journalTable, nil, rows...); err != nil {
		return err
	}
	if err := tx.Load(ctx, journalRejectsTable, nil, rejects...); err != nil {
		return err
	}
	if w.limits.loaded != nil {
		w.limits.loaded(file, n)
	}
	return nil
}

// loadMeta writes the files' journal_files rows.
func (w *journalWriter) loadMeta(ctx context.Context, tx *store.Tx, files ...*journalStream) error {
	meta := journalFilesTable.NewBatch()
	for _, st := range files {
		imp := st.imp
		meta.Add(imp.SHA256, imp.File, int32(imp.Lines), int32(imp.Loaded), int32(imp.Rejected), w.now)
	}
	return tx.Load(ctx, journalFilesTable, nil, meta)
}

var importedJournalFiles = queries.Must("ingest.sql", "ImportedJournals")

// importedJournals is the set of file contents (SHA-256) already imported.
func importedJournals(ctx context.Context, s *store.Store) (map[string]bool, error) {
	rows, err := s.Conn().QueryContext(ctx, importedJournalFiles)
	if err != nil {
		return nil, fmt.Errorf("read imported journal files: %w", err)
	}
	defer rows.Close()
	known := map[string]bool{}
	for rows.Next() {
		var sum string
		if err := rows.Scan(&sum); err != nil {
			return nil, fmt.Errorf("read imported journal files: %w", err)
		}
		known[sum] = true
	}
	return known, rows.Err()
}

// addJournalLine adds one raw line of a journal to chunk, as a journal row
// or, when it is no call, as a reject with the reason; true for a row. Card
// data is masked before anything reads the line.
func addJournalLine(chunk *journalChunk, file string, lineNo int, line []byte, tooLong bool, sum string, now time.Time) bool {
	var reason string
	if tooLong {
		reason = fmt.Sprintf("line longer than %d bytes", maxJournalLine)
	} else {
		// A VARCHAR must be valid UTF-8: a stray byte (a name written in
		// Latin-1, say) becomes U+FFFD rather than failing the file's load.
		line = cardmask.MaskJournalLine(bytes.ToValidUTF8(line, []byte("\uFFFD")))
		values, err := journalRow(file, lineNo, line, sum, now)
		if err == nil {
			chunk.rows.Add(values...)
			return true
		}
		reason = rejectReason(err)
	}
	chunk.rejects.Add(file, int32(lineNo), reason, rejectText(line), sum, now)
	return false
}

// rejectReason is the reason journal_rejects keeps for a bad line. It may
// quote the line (a status or a time that is not one), masked already, but
// quoting can write a character as an escape whose digits join a number,
// so it is masked again.
func rejectReason(err error) string {
	return cardmask.MaskText(strings.ToValidUTF8(err.Error(), "\uFFFD"))
}

// rejectText is what journal_rejects keeps of a bad line (card data masked
// already): its text cut to maxRejectText bytes. It is masked again after
// the cut, because cutting a long digit run (an identifier, left alone) can
// leave a piece that looks like a card number.
//
// The text is made valid UTF-8 first (a VARCHAR must be), so a line of
// binary garbage is rejected rather than failing its file's import.
func rejectText(line []byte) string {
	text := strings.ToValidUTF8(string(line), "\uFFFD")
	if len(text) > maxRejectText {
		cut := maxRejectText
		for cut > 0 && !utf8.RuneStart(text[cut]) {
			cut--
		}
		text = cardmask.MaskText(text[:cut])
	}
	return text
}

// readLine reads one line without its newline. A line over maxJournalLine is
// consumed and reported as tooLong, with no content.
func readLine(r *bufio.Reader) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		if len(line)+len(chunk) > maxJournalLine {
			tooLong = true
			line = nil
		} else if !tooLong {
			line = append(line, chunk...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		return bytes.TrimRight(line, "\r\n"), tooLong, err
	}
}

// journalLine is the journal format of docs/journal.md.
type journalLine struct {
	Time       string          `json:"time"`
	MerchantID string          `json:"merchantId"`
	Method     string          `json:"method"`
	Path       string          `json:"path"`
	Request    json.RawMessage `json:"request"`
	Status     json.Number     `json:"status"`
	Response   json.RawMessage `json:"response"`
}

// ParseJournalLine decodes one journal line and checks its required fields.
// Its error is the reject reason kept in journal_rejects.
func ParseJournalLine(line []byte) (journalLine, error) {
	var jl journalLine
	d := json.NewDecoder(bytes.NewReader(line))
	d.UseNumber()
	if err := d.Decode(&jl); err != nil {
		return jl, fmt.Errorf("not a JSON object: %s", jsonErrorText(err))
	}
	if d.More() {
		return jl, errors.New("not a JSON object: text after the object")
	}
	var missing []string
	if strings.TrimSpace(jl.MerchantID) == "" {
		missing = append(missing, "merchantId")
	}
	if strings.TrimSpace(jl.Path) == "" {
		missing = append(missing, "path")
	}
	if jl.Status == "" {
		missing = append(missing, "status")
	}
	if len(missing) > 0 {
		return jl, fmt.Errorf("missing %s", strings.Join(missing, ", "))
	}
	if _, err := jl.Status.Int64(); err != nil {
		return jl, fmt.Errorf("status %q is not an HTTP status", jl.Status)
	}
	if jl.Time != "" {
		if _, err := parseTime(jl.Time); err != nil {
			return jl, fmt.Errorf("time %q is not an ISO 8601 time", jl.Time)
		}
	}
	return jl, nil
}

// jsonErrorText keeps decoder errors free of the line's content (which may
// hold a card number): only the kind of error and its offset.
func jsonErrorText(err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("syntax error at byte %d", se.Offset)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Sprintf("field %s has the wrong type (%s)", te.Field, te.Value)
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return "truncated"
	}
	return "invalid JSON"
}

// journalRow converts one journal line (its card data masked) into the
// values of a journal row. Its error is the reason the line is rejected.
func journalRow(file string, lineNo int, line []byte, sum string, now time.Time) ([]any, error) {
	jl, err := ParseJournalLine(line)
	if err != nil {
		return nil, err
	}
	req, reqText, err := decodeBody(jl.Request)
	if err != nil {
		return nil, fmt.Errorf("request: %w", err)
	}
	resp, respText, err := decodeBody(jl.Response)
	if err != nil {
		return nil, fmt.Errorf("response: %w", err)
	}
	var c converter
	ts := orNull(c.timestamp("time", jl.Time))
	if c.err != nil {
		return nil, c.err
	}
	facts, err := journalFacts(jl.Method, jl.Path, req, resp)
	if err != nil {
		return nil, err
	}
	status, _ := jl.Status.Int64()
	values := []any{jl.MerchantID, file, int32(lineNo), ts, text(strings.ToUpper(jl.Method)), jl.Path, int32(status)}
	values = append(values, facts...)
	return append(values, reqText, respText, sum, now), nil
}

// decodeBody decodes a request or response body: the decoded object (nil
// for an absent body or a non-object) and the JSON text to store (nil
// when absent). A body with \u escapes or control characters is written
// again from its decoded value: DuckDB refuses some that Go's decoder
// reads (a lone surrogate, which becomes U+FFFD; a raw control character
// in a string, which is escaped), and a line DuckDB refuses would fail its
// whole file's load.
func decodeBody(raw json.RawMessage) (map[string]any, any, error) {
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 || string(trimmed) == "null" {
		return nil, nil, nil
	}
	d := json.NewDecoder(bytes.NewReader(trimmed))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, nil, errors.New(jsonErrorText(err))
	}
	obj, _ := v.(map[string]any)
	if !bytes.Contains(trimmed, []byte(`\u`)) && !hasControl(trimmed) {
		return obj, string(trimmed), nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, nil, err
	}
	// Encoding can join digits that were apart: a character written as an
	// escape whose hex digits are decimal (\u2028, a control character)
	// runs into the digits after it. Masking keeps the escape (its four
	// digits are within the six kept) and the JSON valid.
	return obj, string(cardmask.MaskRecord(bytes.TrimRight(buf.Bytes(), "\n"))), nil
}

func hasControl(b []byte) bool {
	for _, c := range b {
		if c < 0x20 {
			return true
		}
	}
	return false
}
