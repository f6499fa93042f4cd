package outputs

import (
	"path/filepath"
	"strconv"
	"testing"

	"github.com/xuri/excelize/v2"
)

// TestSpillStreamKnowsExcelize: spillStream finds the stream writer's
// buffer in the pinned excelize, empties it into a temporary file (the
// buffer's memory let go), and the workbook written afterwards holds every
// row, read back from the file; closing the workbook removes the files.
// An excelize upgrade that changes the writer's shape fails here
// (spillStream would silently keep sheets in memory again).
func TestSpillStreamKnowsExcelize(t *testing.T) {
	dir := t.TempDir()
	f := excelize.NewFile(excelize.Options{TmpDir: dir})
	defer f.Close()
	const rows = 20_000 // ~1 MB of XML: excelize would keep it in memory
	for _, name := range []string{"Sheet1", "second"} {
		if name != "Sheet1" {
			if _, err := f.NewSheet(name); err != nil {
				t.Fatal(err)
			}
		}
		sw, err := f.NewStreamWriter(name)
		if err != nil {
			t.Fatal(err)
		}
		for r := 1; r <= rows; r++ {
			if err := sw.SetRow("A"+strconv.Itoa(r), []any{name, r, "row " + strconv.Itoa(r) + " of " + name}); err != nil {
				t.Fatal(err)
			}
		}
		if err := sw.Flush(); err != nil {
			t.Fatal(err)
		}
		tmp, buf, ok := streamBuffer(sw)
		if !ok {
			t.Fatal("excelize's StreamWriter no longer has the buffer spillStream empties (rawData: tmp *os.File, buf bytes.Buffer)")
		}
		if *tmp != nil || buf.Len() == 0 {
			t.Fatalf("before spilling: a temporary file %v and %d bytes in memory; want none and the sheet", *tmp != nil, buf.Len())
		}
		if err := spillStream(sw, dir); err != nil {
			t.Fatal(err)
		}
		if *tmp == nil || buf.Cap() != 0 {
			t.Fatalf("after spilling: a temporary file %v, a buffer of %d bytes; want a file and no buffer", *tmp != nil, buf.Cap())
		}
	}
	path := filepath.Join(dir, "spilled.xlsx")
	if err := f.SaveAs(path); err != nil {
		t.Fatal(err)
	}
	got := openXLSX(t, path)
	for _, name := range []string{"Sheet1", "second"} {
		all, err := got.GetRows(name)
		if err != nil {
			t.Fatal(err)
		}
		if len(all) != rows {
			t.Fatalf("sheet %s: %d rows read back; want %d", name, len(all), rows)
		}
		for _, r := range []int{1, rows / 2, rows} {
			want := []string{name, strconv.Itoa(r), "row " + strconv.Itoa(r) + " of " + name}
			if g := all[r-1]; len(g) != 3 || g[0] != want[0] || g[1] != want[1] || g[2] != want[2] {
				t.Errorf("sheet %s row %d: %q; want %q", name, r, g, want)
			}
		}
	}
	// The temporary files go with the workbook's Close (WriteWorkbook
	// writes them beside the workbook, in the folder being published).
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "excelize-*")); len(left) > 0 {
		t.Errorf("after Close, temporary files are left: %v", left)
	}
}
