package main

import (
	"archive/zip"
	"bufio"
	"compress/flate"
	"context"
	"database/sql"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	_ "github.com/duckdb/duckdb-go/v2"
	"github.com/xuri/excelize/v2"

	"github.com/reconcile/reconcile/internal/memstat"
	"github.com/reconcile/reconcile/internal/store"
	"github.com/reconcile/reconcile/outputs"
)

// The workbook row of the benchmark: a finding sheet of sheetRows rows (the
// columns of a kind's sheet: member, groups, entity, amount in its currency,
// state, first seen, detail) written by outputs.WriteWorkbook, next to
// excelize's StreamWriter writing the same rows from the same query with no
// more than it needs (typed cells, no styles, no widths, the same level-1
// deflate): the library's own rate on this machine, measured in the same
// `go run ./bench`. Each runs in its own process (one go test -bench each),
// so that its peak RSS, reset just before the writing starts, is its own.

const sheetRows = 1_000_000

const sheetQuery = `SELECT merchant_id, groups, entity_id, amount, currency, state, first_seen, detail FROM sheet ORDER BY merchant_id, entity_id`

// sheetDB is a reconcile database (store.Open, the memory limit of a
// run: the DuckDB settings reconcile publishes with) in the benchmark's
// folder holding the rows in a table of its own; the sheet's query reads
// it through the store's read pool, as the publish step does.
func sheetDB(b *testing.B) *sql.DB {
	ctx := context.Background()
	s, err := store.Open(ctx, filepath.Join(b.TempDir(), "sheet.duckdb"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	// reconcile run --memory-limit's default: DuckDB would otherwise keep
	// the whole table resident.
	if err := s.SetMemoryLimit(ctx, "256MB"); err != nil {
		b.Fatal(err)
	}
	err = s.Transact(ctx, func(tx *store.Tx) error {
		_, err := tx.Exec(ctx, fmt.Sprintf(`CREATE TABLE sheet AS SELECT
		'mid' || lpad((range %% 5000)::VARCHAR, 5, '0') AS merchant_id,
		'grp' || (range %% 7) AS groups,
		'7' || lpad(range::VARCHAR, 21, '0') AS entity_id,
		((range * 7919) %% 1000000 / 100.0)::DECIMAL(18,2) AS amount,
		['USD', 'EUR', 'GBP', 'JPY', 'CHF'][range %% 5 + 1] AS currency,
		['new', 'open'][range %% 2 + 1] AS state,
		DATE '2026-11-20' - (range %% 30)::INTEGER AS first_seen,
		'{"expected":"' || (range %% 97) || '.00","paid":"' || (range %% 89) || '.00","cycle":' || (range %% 12) || ',"reason":"amount differs from the plan"}' AS detail
		FROM range(%d)`, sheetRows))
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	return s.ReadPool()
}

// startPeak resets the process's peak RSS and the benchmark's timer.
func startPeak(b *testing.B) {
	if err := memstat.ResetPeak(); err != nil {
		b.Logf("peak RSS not reset (%v): it includes building the rows", err)
	}
	b.ResetTimer()
}

func reportSheet(b *testing.B, rows int, elapsed time.Duration) {
	b.ReportMetric(float64(rows)/elapsed.Seconds(), "rows/s")
	b.ReportMetric(float64(memstat.Read().PeakRSS)/(1<<20), "peak_rss_MiB")
}

// BenchmarkFindingSheet writes the sheet with outputs.WriteWorkbook.
func BenchmarkFindingSheet(b *testing.B) {
	db := sheetDB(b)
	wb := outputs.Workbook{Sheets: []outputs.Sheet{{Name: "amount_mismatch", Blocks: []outputs.Block{{
		Query: sheetQuery,
		Columns: []outputs.Column{
			{Header: "Merchant ID"}, {Header: "Group", Width: 12}, {Header: "Entity ID", Width: 26},
			{Header: "Amount", Type: outputs.Amount, CurrencyColumn: 5}, {Header: "Currency", Width: 9},
			{Header: "State", Width: 9}, {Header: "First seen", Type: outputs.Date}, {Header: "Detail", Width: 80},
		},
	}}}}}
	path := filepath.Join(b.TempDir(), "findings.xlsx")
	startPeak(b)
	for b.Loop() {
		start := time.Now()
		stats, err := outputs.WriteWorkbook(context.Background(), db, path, wb)
		if err != nil {
			b.Fatal(err)
		}
		if stats.Rows["amount_mismatch"] != sheetRows {
			b.Fatalf("wrote %d rows of %d", stats.Rows["amount_mismatch"], sheetRows)
		}
		reportSheet(b, sheetRows, time.Since(start))
	}
}

// BenchmarkFindingSheetCeiling writes the same rows with a bare
// StreamWriter.
func BenchmarkFindingSheetCeiling(b *testing.B) {
	db := sheetDB(b)
	path := filepath.Join(b.TempDir(), "ceiling.xlsx")
	startPeak(b)
	for b.Loop() {
		start := time.Now()
		if err := bareSheet(db, path); err != nil {
			b.Fatal(err)
		}
		reportSheet(b, sheetRows, time.Since(start))
	}
}

// bareSheet streams the query's rows into a one-sheet workbook at path.
func bareSheet(db *sql.DB, path string) error {
	f := excelize.NewFile(excelize.Options{TmpDir: filepath.Dir(path)})
	defer f.Close()
	out, err := os.Create(path)
	if err != nil {
		return err
	}
	defer out.Close()
	// The zip goes straight into the file: excelize's own File.WriteTo
	// builds it in memory first, and hands the zip writer it is given
	// that buffer, which this one leaves empty.
	f.SetZipWriter(func(io.Writer) excelize.ZipWriter {
		zw := zip.NewWriter(bufio.NewWriterSize(out, 1<<20))
		zw.RegisterCompressor(zip.Deflate, func(out io.Writer) (io.WriteCloser, error) {
			return flate.NewWriter(out, flate.BestSpeed)
		})
		return zw
	})
	sw, err := f.NewStreamWriter("Sheet1")
	if err != nil {
		return err
	}
	header := []any{"Merchant ID", "Group", "Entity ID", "Amount", "Currency", "State", "First seen", "Detail"}
	if err := sw.SetRow("A1", header); err != nil {
		return err
	}
	rows, err := db.Query(sheetQuery)
	if err != nil {
		return err
	}
	defer rows.Close()
	var mid, groups, entity, currency, state, detail string
	var amount float64
	var firstSeen time.Time
	row := make([]any, 8)
	for n := 2; rows.Next(); n++ {
		if err := rows.Scan(&mid, &groups, &entity, &amount, &currency, &state, &firstSeen, &detail); err != nil {
			return err
		}
		row[0], row[1], row[2], row[3], row[4], row[5], row[6], row[7] = mid, groups, entity, amount, currency, state, firstSeen, detail
		cell, _ := excelize.CoordinatesToCellName(1, n)
		if err := sw.SetRow(cell, row); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if err := sw.Flush(); err != nil {
		return err
	}
	if _, err := f.WriteTo(out); err != nil {
		return err
	}
	return out.Close()
}
