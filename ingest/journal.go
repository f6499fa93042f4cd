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
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"golang.org/x/sync/errgroup"
)

// maxJournalLine bounds one journal line; a longer line is rejected rather
// than read into memory whole.
const maxJournalLine = 16 << 20

// maxRejectText bounds the text kept of a rejected line.
const maxRejectText = 4096

// JournalImport summarises one journal file.
type JournalImport struct {
	File     string
	SHA256   string
	Skipped  bool // same content already imported
	Lines    int
	Loaded   int
	Rejected int
}

// ImportJournals imports every file matching glob. A file whose content (by
// SHA-256) was already imported is skipped, whatever its name. Files are
// parsed two at a time and loaded by one writer, several files to a
// transaction, each with its journal_files row: a crash never leaves part
// of a file, or a file without its row. A file that cannot be read is
// reported in the returned error; the other files still load.
func ImportJournals(ctx context.Context, s *Store, glob string, now time.Time) ([]JournalImport, error) {
	paths, err := filepath.Glob(glob)
	if err != nil {
		return nil, fmt.Errorf("journal glob %q: %w", glob, err)
	}
	sort.Strings(paths)
	known, err := s.importedJournals(ctx)
	if err != nil {
		return nil, err
	}

	var (
		mu       sync.Mutex
		out      []JournalImport
		problems []error
	)
	parsed := make(chan *journalFile, 4)
	var g errgroup.Group
	g.SetLimit(2)
	go func() {
		for _, p := range paths {
			if info, err := os.Stat(p); err != nil || info.IsDir() {
				continue
			}
			if ctx.Err() != nil {
				break
			}
			g.Go(func() error {
				jf, err := parseJournalFile(p, now, func(sum string) bool {
					mu.Lock()
					defer mu.Unlock()
					if known[sum] {
						return false
					}
					known[sum] = true // a second file of the same content in this run is skipped too
					return true
				})
				if err != nil {
					mu.Lock()
					problems = append(problems, err)
					mu.Unlock()
					return nil
				}
				parsed <- jf
				return nil
			})
		}
		g.Wait()
		close(parsed)
	}()

	var group []*journalFile
	rows := 0
	flush := func() {
		if len(group) == 0 {
			return
		}
		if err := s.loadJournalFiles(ctx, group); err != nil {
			mu.Lock()
			problems = append(problems, err)
			mu.Unlock()
		} else {
			for _, jf := range group {
				out = append(out, jf.imp)
			}
		}
		group, rows = nil, 0
	}
	for jf := range parsed {
		if jf.imp.Skipped {
			out = append(out, jf.imp)
			continue
		}
		group, rows = append(group, jf), rows+len(jf.rows.Values)+len(jf.rejects.Values)
		if rows >= maxRowsPerLoad || len(parsed) == 0 {
			flush()
		}
	}
	flush()
	sort.Slice(out, func(i, j int) bool { return out[i].File < out[j].File })
	return out, errors.Join(problems...)
}

// journalFile is one parsed journal file, ready to load.
type journalFile struct {
	imp     JournalImport
	rows    *Rows
	rejects *Rows
	now     time.Time
}

// importedJournals is the set of file contents (SHA-256) already imported.
func (s *Store) importedJournals(ctx context.Context) (map[string]bool, error) {
	rows, err := s.conn.QueryContext(ctx, `SELECT sha256 FROM journal_files`)
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

// parseJournalFile reads one journal file into rows; claim decides, by the
// content's SHA-256, whether it is to be imported at all.
func parseJournalFile(path string, now time.Time, claim func(sum string) bool) (*journalFile, error) {
	jf := &journalFile{imp: JournalImport{File: path}, now: now}
	sum, err := fileSHA256(path)
	if err != nil {
		return nil, err
	}
	jf.imp.SHA256 = sum
	if !claim(sum) {
		jf.imp.Skipped = true
		return jf, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("journal %s: %w", path, err)
	}
	defer f.Close()
	jf.rows = newJournalRows()
	jf.rejects = &Rows{Table: "journal_rejects", Columns: []string{"file", "line", "reason", "text", "file_sha256", "imported_at"}}
	imp := &jf.imp
	r := bufio.NewReaderSize(f, 1<<20)
	for lineNo := 1; ; lineNo++ {
		line, tooLong, err := readLine(r)
		if err == io.EOF && len(line) == 0 && !tooLong {
			break
		}
		if err != nil && err != io.EOF {
			return nil, fmt.Errorf("journal %s line %d: %w", path, lineNo, err)
		}
		if len(bytes.TrimSpace(line)) == 0 && !tooLong {
			if err == io.EOF {
				break
			}
			continue // blank lines are not calls
		}
		imp.Lines++
		var reason string
		if tooLong {
			reason = fmt.Sprintf("line longer than %d bytes", maxJournalLine)
		} else if jerr := addJournalLine(jf.rows, path, lineNo, line, sum, now); jerr != nil {
			reason = rejectReason(jerr)
		}
		if reason != "" {
			jf.rejects.Add(path, lineNo, reason, rejectText(line), sum, now)
			imp.Rejected++
		} else {
			imp.Loaded++
		}
		if err == io.EOF {
			break
		}
	}
	return jf, nil
}

// loadJournalFiles loads parsed files and their journal_files rows in one
// transaction.
func (s *Store) loadJournalFiles(ctx context.Context, files []*journalFile) error {
	rows, rejects := newJournalRows(), &Rows{Table: "journal_rejects", Columns: files[0].rejects.Columns}
	meta := &Rows{Table: "journal_files", Columns: []string{"sha256", "file", "lines", "loaded", "rejected", "imported_at"}}
	var names []string
	for _, jf := range files {
		rows.Values = append(rows.Values, jf.rows.Values...)
		rejects.Values = append(rejects.Values, jf.rejects.Values...)
		meta.Add(jf.imp.SHA256, jf.imp.File, int32(jf.imp.Lines), int32(jf.imp.Loaded), int32(jf.imp.Rejected), jf.now)
		names = append(names, jf.imp.File)
	}
	err := s.Transact(ctx, func(tx *Tx) error {
		if err := tx.Upsert(ctx, rows, []string{"merchant_id", "file", "line"}, nil); err != nil {
			return err
		}
		if err := tx.Upsert(ctx, rejects, []string{"file", "line"}, nil); err != nil {
			return err
		}
		return tx.Upsert(ctx, meta, []string{"sha256"}, nil)
	})
	if err != nil {
		return fmt.Errorf("journal %s: load: %w", strings.Join(names, ", "), err)
	}
	return nil
}

// rejectReason is the reason journal_rejects keeps for a bad line. It may
// quote the line (a status or a time that is not one), so it is masked
// like the line.
func rejectReason(err error) string {
	r, _ := MaskPANs(unescapeDigits(strings.ToValidUTF8(err.Error(), "\uFFFD")))
	return r
}

// rejectText is what journal_rejects keeps of a bad line: its text with
// card numbers masked, cut to maxRejectText bytes. It is masked again after
// the cut, because cutting a long digit run (an identifier, left alone) can
// leave a 13-19 digit piece that passes the Luhn check.
//
// The text is made valid UTF-8 first (a VARCHAR must be), so a line of
// binary garbage is rejected rather than failing its file's import.
func rejectText(line []byte) string {
	masked, _ := MaskPANs(unescapeDigits(strings.ToValidUTF8(string(line), "\uFFFD")))
	if len(masked) > maxRejectText {
		cut := maxRejectText
		for cut > 0 && !utf8.RuneStart(masked[cut]) {
			cut--
		}
		masked, _ = MaskPANs(masked[:cut])
	}
	return masked
}

// unescapeDigits writes the JSON escapes of decimal digits (\u0030 to
// \u0039) as the digits they stand for. A rejected line is kept as text,
// not decoded, so without this a card number spelled with escapes would
// pass the masking unseen; an accepted line is masked after decoding.
func unescapeDigits(s string) string {
	if !strings.Contains(s, `\u003`) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+5 < len(s) && s[i+1] == 'u' &&
			s[i+2:i+5] == "003" && isDigit(s[i+5]) && !escapedBackslash(s, i) {
			b.WriteByte(s[i+5])
			i += 5
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// escapedBackslash reports whether the backslash at s[i] is itself escaped
// (preceded by an odd number of backslashes), so `\\u0034` stays as written.
func escapedBackslash(s string, i int) bool {
	n := 0
	for j := i - 1; j >= 0 && s[j] == '\\'; j-- {
		n++
	}
	return n%2 == 1
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

func newJournalRows() *Rows {
	cols := []string{"merchant_id", "file", "line", "time", "method", "path", "status"}
	cols = append(cols, journalFactColumns...)
	cols = append(cols, "request", "response", "file_sha256", "imported_at")
	return &Rows{Table: "journal", Columns: cols}
}

// journalLine is DESIGN.md's journal format.
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

func addJournalLine(rows *Rows, file string, lineNo int, line []byte, sum string, now time.Time) error {
	jl, err := ParseJournalLine(line)
	if err != nil {
		return err
	}
	req, reqText, err := maskedBody(jl.Request)
	if err != nil {
		return fmt.Errorf("request: %w", err)
	}
	resp, respText, err := maskedBody(jl.Response)
	if err != nil {
		return fmt.Errorf("response: %w", err)
	}
	var c converter
	var ts any
	if jl.Time != "" {
		ts = c.timestamp("time", jl.Time)
	}
	if c.err != nil {
		return c.err
	}
	facts, err := journalFacts(jl.Method, jl.Path, req, resp)
	if err != nil {
		return err
	}
	status, _ := jl.Status.Int64()
	// Every text kept from the line is masked, not only its bodies: a
	// merchant ID or method holding a card number is as much a leak.
	path, _ := MaskPANs(jl.Path)
	mid, _ := MaskPANs(jl.MerchantID)
	method, _ := MaskPANs(strings.ToUpper(jl.Method))
	values := []any{mid, file, int32(lineNo), ts, text(method), path, int32(status)}
	values = append(values, facts...)
	rows.Add(append(values, reqText, respText, sum, now)...)
	return nil
}

// maskedBody decodes a request or response body and masks every card number
// in it; it returns the decoded object (nil for an absent body or a
// non-object) and the masked JSON text to store.
func maskedBody(raw json.RawMessage) (map[string]any, any, error) {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return nil, nil, nil
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, nil, errors.New(jsonErrorText(err))
	}
	// Most bodies hold no card number and no \u escape (which could spell
	// one out of sight of a text scan): those are stored as they came,
	// without masking the decoded value and encoding it again (half the
	// import's time).
	if trimmed := bytes.TrimSpace(raw); !bytes.Contains(trimmed, []byte(`\u`)) {
		if _, changed := MaskPANs(string(trimmed)); !changed {
			obj, _ := v.(map[string]any)
			return obj, string(trimmed), nil
		}
	}
	v = maskValue(v)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, nil, err
	}
	// Encoding can make a digit run where the value had none: a character
	// written as an escape whose hex digits are decimal (\u2028, a
	// control character) joins the digits after it. Such a run is masked
	// too; the escape's four digits are within the six kept, so the text
	// stays the same JSON.
	text, _ := MaskPANs(string(bytes.TrimRight(buf.Bytes(), "\n")))
	if !json.Valid([]byte(text)) {
		return nil, nil, errors.New("cannot be stored with its card numbers masked")
	}
	obj, _ := v.(map[string]any)
	return obj, text, nil
}

// maskValue masks card numbers in every string, number and key of a decoded
// JSON value. A number that was a card number becomes a masked string.
func maskValue(v any) any {
	switch x := v.(type) {
	case string:
		m, _ := MaskPANs(x)
		return m
	case json.Number:
		if m, changed := MaskPANs(string(x)); changed {
			return m
		}
		return x
	case []any:
		for i := range x {
			x[i] = maskValue(x[i])
		}
		return x
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, val := range x {
			mk, _ := MaskPANs(k)
			out[mk] = maskValue(val)
		}
		return out
	}
	return v
}

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("journal %s: %w", path, err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("journal %s: read: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
