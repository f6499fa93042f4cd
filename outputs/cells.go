package outputs

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/duckdb/duckdb-go/v2"
)

// cellValue converts a value scanned from database/sql (as any) into what the
// stream writer should store for a column of type t: nil (an empty cell), a
// string (always a plain string cell, never a formula), an int64 or float64
// (a number cell), or a bool.
//
// A value that cannot take the column's type (a string that is not a number
// in an Amount column, a date before 1900-03-01, an integer beyond Excel's
// exact range) is kept as text rather than dropped or rounded: a report that
// shows the odd value is more useful than one that hides it.
//
// dbType is the column's DuckDB type name; it tells a UUID (which duckdb-go
// returns as 16 raw bytes) from a BLOB, and a DATE from a TIMESTAMP in text.
func cellValue(v any, t ColumnType, dbType string) any {
	switch x := v.(type) {
	case nil:
		return nil
	case []byte:
		if dbType == "UUID" && len(x) == 16 {
			return uuidText(x)
		}
		return bytesText(x)
	case *big.Int:
		if x == nil {
			return nil
		}
	case *duckdb.Decimal:
		if x == nil {
			return nil
		}
		v = *x
	case map[string]any, []any:
		s, _ := jsonText(x)
		return s
	}
	switch t {
	case Integer, Count:
		if n, ok := toInt(v); ok {
			return n
		}
	case Amount:
		if f, ok := toAmount(v); ok {
			return f
		}
	case Percent:
		if f, ok := toFloat(v); ok {
			return roundFraction(f)
		}
	case Date, Timestamp:
		if tm, ok := toTime(v); ok {
			if serial, ok := excelSerial(tm, t == Date); ok {
				if t == Date {
					return int64(serial)
				}
				return serial
			}
		}
	case Bool:
		if b, ok := toBool(v); ok {
			return b
		}
	}
	return text(v, dbType)
}

// maxExactInt is the largest integer a double (Excel's only number type)
// holds exactly; beyond it an ID or count would be shown rounded.
const maxExactInt = 1 << 53

func toInt(v any) (int64, bool) {
	var n int64
	switch x := v.(type) {
	case int:
		n = int64(x)
	case int8:
		n = int64(x)
	case int16:
		n = int64(x)
	case int32:
		n = int64(x)
	case int64:
		n = x
	case uint:
		if uint64(x) > maxExactInt {
			return 0, false
		}
		n = int64(x)
	case uint8:
		n = int64(x)
	case uint16:
		n = int64(x)
	case uint32:
		n = int64(x)
	case uint64:
		if x > maxExactInt {
			return 0, false
		}
		n = int64(x)
	case float32:
		return toInt(float64(x))
	case float64:
		if x != math.Trunc(x) || math.Abs(x) > maxExactInt {
			return 0, false
		}
		n = int64(x)
	case *big.Int:
		if !x.IsInt64() {
			return 0, false
		}
		n = x.Int64()
	case duckdb.Decimal:
		r, ok := new(big.Rat).SetString(decimalText(x))
		if !ok || !r.IsInt() || !r.Num().IsInt64() {
			return 0, false
		}
		n = r.Num().Int64()
	case string:
		var err error
		if n, err = strconv.ParseInt(strings.TrimSpace(x), 10, 64); err != nil {
			return 0, false
		}
	default:
		return 0, false
	}
	if n > maxExactInt || n < -maxExactInt {
		return 0, false
	}
	return n, true
}

// toAmount gives the double nearest to the value rounded to three decimals
// (the amounts' scale: KWD 12.345 stays 12.345; the cell's number format
// shows each currency's own decimals, CurrencyFormat). Going through the
// decimal text, never through arithmetic on doubles, is what makes DECIMAL
// 12.34 come out as the double Excel itself reads for "12.34" (12.34 * 100
// / 100 need not be that double).
func toAmount(v any) (float64, bool) {
	var s string
	switch x := v.(type) {
	case duckdb.Decimal:
		s = decimalText(roundDecimal(x, 3))
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return 0, false
		}
		s = strconv.FormatFloat(x, 'f', 3, 64)
	case float32:
		return toAmount(float64(x))
	case string:
		r, ok := new(big.Rat).SetString(strings.TrimSpace(x))
		if !ok {
			return 0, false
		}
		s = r.FloatString(3)
	default:
		n, ok := toInt(v)
		if !ok {
			return toFloat(v)
		}
		return float64(n), true
	}
	f, err := strconv.ParseFloat(s, 64)
	return f, err == nil
}

func toFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, !math.IsNaN(x) && !math.IsInf(x, 0)
	case float32:
		return toFloat(float64(x))
	case duckdb.Decimal:
		f, err := strconv.ParseFloat(decimalText(x), 64)
		return f, err == nil
	case *big.Int:
		f, _ := new(big.Float).SetInt(x).Float64()
		return f, true
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
		return f, err == nil && !math.IsNaN(f) && !math.IsInf(f, 0)
	case bool:
		return 0, false
	}
	if n, ok := toInt(v); ok {
		return float64(n), true
	}
	return 0, false
}

// isoLayouts are the text forms of dates and times accepted in Date and
// Timestamp columns: ISO 8601 and DuckDB's own casts to VARCHAR
// ("2026-11-20 14:03:11+00"). Text without a zone is taken as UTC.
var isoLayouts = []string{
	"2006-01-02",
	time.RFC3339Nano,
	"2006-01-02T15:04:05.999999999",
	"2006-01-02 15:04:05.999999999Z07:00",
	"2006-01-02 15:04:05.999999999Z07",
	"2006-01-02 15:04:05.999999999",
}

func toTime(v any) (time.Time, bool) {
	switch x := v.(type) {
	case time.Time:
		return x, true
	case string:
		s := strings.TrimSpace(x)
		for _, layout := range isoLayouts {
			if t, err := time.Parse(layout, s); err == nil {
				return t, true
			}
		}
	}
	return time.Time{}, false
}

// Excel's 1900 date system counts days from 1899-12-30 for every date from
// 1900-03-01 on; earlier dates are off by one because of Lotus's phantom
// 1900-02-29, so they are written as text instead. Year 10000 is past
// Excel's last date.
var (
	excelEpoch = time.Date(1899, 12, 30, 0, 0, 0, 0, time.UTC)
	excelFirst = time.Date(1900, 3, 1, 0, 0, 0, 0, time.UTC)
	excelEnd   = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)
)

// excelSerial turns t, taken in UTC, into an Excel serial date: whole days for
// a date, days and a fraction of a day for a timestamp. Timestamps are cut to
// whole seconds: Excel rounds seconds for display, so 14:03:11.7 would show
// as 14:03:12, a time at which the event had not happened. The arithmetic is
// on Unix seconds, not time.Duration, which overflows after 292 years.
// The fraction is rounded (roundFraction) to well under a millionth of a
// second.
func excelSerial(t time.Time, dateOnly bool) (float64, bool) {
	t = t.UTC()
	if t.Before(excelFirst) || !t.Before(excelEnd) {
		return 0, false
	}
	secs := t.Unix() - excelEpoch.Unix()
	days := secs / 86400
	if dateOnly {
		return float64(days), true
	}
	return float64(days) + roundFraction(float64(secs%86400)/86400), true
}

// fractionDecimals is how many decimals a fraction keeps in a cell: a
// timestamp's of its day, a percentage's of the whole.
const fractionDecimals = 10

// roundFraction rounds x to fractionDecimals decimals, so that the file
// holds no run of 13 digits or more, which a data-loss scanner would take
// for a card number (the fraction of a day at 14:03:11 is
// 0.58554398148148..., a share of 3 in 7 is 0.42857142857142855).
func roundFraction(x float64) float64 {
	scale := math.Pow10(fractionDecimals)
	return math.Round(x*scale) / scale
}

func toBool(v any) (bool, bool) {
	switch x := v.(type) {
	case bool:
		return x, true
	case string:
		b, err := strconv.ParseBool(strings.TrimSpace(x))
		return b, err == nil
	}
	if n, ok := toInt(v); ok && (n == 0 || n == 1) {
		return n == 1, true
	}
	return false, false
}

// text is the string form of any scanned value, for Text columns and for
// values that could not take their column's type.
func text(v any, dbType string) string {
	switch x := v.(type) {
	case string:
		return x
	case []byte:
		return bytesText(x)
	case bool:
		return strconv.FormatBool(x)
	case int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		return fmt.Sprint(x)
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case float32:
		return strconv.FormatFloat(float64(x), 'f', -1, 32)
	case *big.Int:
		return x.String()
	case duckdb.Decimal:
		return decimalText(x)
	case time.Time:
		if dbType == "DATE" {
			return x.Format(time.DateOnly)
		}
		return x.UTC().Format(time.RFC3339Nano)
	case duckdb.UUID:
		return uuidText(x[:])
	case *duckdb.UUID:
		return uuidText(x[:])
	case fmt.Stringer:
		return x.String()
	}
	if s, ok := jsonText(v); ok {
		return s
	}
	return fmt.Sprint(v)
}

// jsonText marshals JSON values (DuckDB JSON columns arrive as decoded
// map[string]any / []any; lists and structs likewise) to compact JSON, keys
// sorted, without escaping <, > and & so the text reads as it was stored.
func jsonText(v any) (string, bool) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", false
	}
	return strings.TrimSuffix(buf.String(), "\n"), true
}

// bytesText shows UTF-8 bytes as text and anything else (a BLOB) as hex, since
// raw binary in an XML cell would be replaced character by character.
func bytesText(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	return `\x` + hex.EncodeToString(b)
}

func uuidText(b []byte) string {
	h := hex.EncodeToString(b)
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

// decimalText writes a DuckDB decimal with all its scale digits (12.30, not
// duckdb.Decimal.String's 12.3), so amounts in text keep their cents.
func decimalText(d duckdb.Decimal) string {
	if d.Value == nil {
		return "0"
	}
	digits := new(big.Int).Abs(d.Value).String()
	scale := int(d.Scale)
	if len(digits) <= scale {
		digits = strings.Repeat("0", scale-len(digits)+1) + digits
	}
	s := digits
	if scale > 0 {
		s = digits[:len(digits)-scale] + "." + digits[len(digits)-scale:]
	}
	if d.Value.Sign() < 0 {
		s = "-" + s
	}
	return s
}

// roundDecimal rounds d to at most scale decimals, half away from zero (the
// way amounts are rounded in finance, and DuckDB's ROUND).
func roundDecimal(d duckdb.Decimal, scale uint8) duckdb.Decimal {
	if d.Scale <= scale || d.Value == nil {
		return d
	}
	div := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(d.Scale-scale)), nil)
	q, r := new(big.Int).QuoRem(d.Value, div, new(big.Int))
	r.Abs(r).Lsh(r, 1)
	if r.Cmp(div) >= 0 {
		if d.Value.Sign() < 0 {
			q.Sub(q, big.NewInt(1))
		} else {
			q.Add(q, big.NewInt(1))
		}
	}
	return duckdb.Decimal{Width: d.Width, Scale: scale, Value: q}
}
