package checks

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// The run's tables given as files (--interchange-rates, --retry-limits):
// CSV with a header row, or YAML by extension. Both are small, written by
// hand, and read before the run starts: a bad one fails the run at once,
// naming the file and the line.

// readTableFile reads the table file path as YAML (.yaml, .yml) or else
// CSV, with the parser of each; what names the table in errors.
func readTableFile[T any](path, what string, parseCSV, parseYAML func([]byte) ([]T, error)) ([]T, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	parse := parseCSV
	if ext := strings.ToLower(filepath.Ext(path)); ext == ".yaml" || ext == ".yml" {
		parse = parseYAML
	}
	rows, err := parse(b)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", what, path, err)
	}
	return rows, nil
}

// csvRow is a data row of a table file: its line number and its values by
// column name (lower case).
type csvRow struct {
	line   int
	values map[string]string
}

// readCSVTable reads a small table file: CSV with a header row naming at
// least the columns want, and perhaps the columns optional (any order,
// any case; others are refused, so a misspelt optional column is not
// silently ignored); lines starting with # are comments.
func readCSVTable(b []byte, want, optional []string) ([]csvRow, error) {
	r := csv.NewReader(bytes.NewReader(b))
	r.TrimLeadingSpace = true
	r.Comment = '#'
	header, err := r.Read()
	if err != nil {
		return nil, fmt.Errorf("read the header row: %w", err)
	}
	col := map[string]int{}
	for i, h := range header {
		name := strings.ToLower(strings.TrimSpace(h))
		if !slices.Contains(want, name) && !slices.Contains(optional, name) {
			return nil, fmt.Errorf("the header row %v names %q (want %s)", header, h, strings.Join(append(append([]string{}, want...), optional...), ","))
		}
		col[name] = i
	}
	for _, w := range want {
		if _, ok := col[w]; !ok {
			return nil, fmt.Errorf("the header row %v lacks %q (want %s)", header, w, strings.Join(want, ","))
		}
	}
	var out []csvRow
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		line, _ := r.FieldPos(0)
		row := csvRow{line: line, values: map[string]string{}}
		for name, i := range col {
			row.values[name] = rec[i]
		}
		out = append(out, row)
	}
}
