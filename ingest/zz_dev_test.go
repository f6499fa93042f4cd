//go:build duckdb_arrow

package ingest_test

import (
	"encoding/gob"
	"os"
	"path/filepath"
	"testing"
)

type gobPage struct{ Kind, Merchant, Subscription string; Body []byte }

func dumpPages(pages []recordedPage) {
	f, _ := os.Create("/tmp/pages.gob")
	defer f.Close()
	var out []gobPage
	for _, p := range pages {
		out = append(out, gobPage{p.kind, p.merchant, p.subscription, p.body})
	}
	gob.NewEncoder(f).Encode(out)
}

func BenchmarkCeilingOnly(b *testing.B) {
	f, err := os.Open("/tmp/pages.gob")
	if err != nil {
		b.Skip()
	}
	var in []gobPage
	gob.NewDecoder(f).Decode(&in)
	var pages []recordedPage
	for _, p := range in {
		pages = append(pages, recordedPage{p.Kind, p.Merchant, p.Subscription, p.Body})
	}
	for b.Loop() {
		cpu := cpuTime()
		n, el := trueCeiling(b, pages, filepath.Join(b.TempDir(), "c.duckdb"))
		b.ReportMetric(float64(n)/el.Seconds(), "rec/s")
		b.ReportMetric((cpuTime() - cpu).Seconds(), "cpu_s")
		b.ReportMetric(el.Seconds(), "wall_s")
	}
}
