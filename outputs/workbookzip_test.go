package outputs

import (
	"archive/zip"
	"encoding/binary"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// zipOf writes parts (name, content) to a new zip file through the workbook's
// zip writer and returns it open for reading and writing.
func zipOf(t *testing.T, parts ...string) *os.File {
	t.Helper()
	f, err := os.Create(filepath.Join(t.TempDir(), "book.xlsx"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	zw := newFileZip(f)
	for i := 0; i < len(parts); i += 2 {
		w, err := zw.Create(parts[i])
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(w, parts[i+1]); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return f
}

// localVersions reads "version needed to extract" from the local header of
// each part of the zip file, and checks every part still reads as written.
func localVersions(t *testing.T, f *os.File, want map[string]string) map[string]uint16 {
	t.Helper()
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	r, err := zip.NewReader(f, st.Size())
	if err != nil {
		t.Fatalf("the zip no longer opens: %v", err)
	}
	versions := map[string]uint16{}
	for _, part := range r.File {
		rc, err := part.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil || string(b) != want[part.Name] {
			t.Errorf("%s reads %q (%v), want %q", part.Name, b, err, want[part.Name])
		}
		data, err := part.DataOffset()
		if err != nil {
			t.Fatal(err)
		}
		var v [2]byte
		if _, err := f.ReadAt(v[:], data-int64(localHeaderLen+len(part.Name))+localHeaderVersion); err != nil {
			t.Fatal(err)
		}
		versions[part.Name] = binary.LittleEndian.Uint16(v[:])
	}
	return versions
}

func TestMarkZip64MarksOnlyTheLargeParts(t *testing.T) {
	sheet := strings.Repeat("<row><c><v>1</v></c></row>", 1000)
	f := zipOf(t, "[Content_Types].xml", "<Types/>", "xl/worksheets/sheet1.xml", sheet, "xl/workbook.xml", "<workbook/>")
	// Parts over 4 GiB are marked; one is named here as if it were.
	if err := markZip64(f, []string{"xl/worksheets/sheet1.xml"}); err != nil {
		t.Fatal(err)
	}
	got := localVersions(t, f, map[string]string{
		"[Content_Types].xml": "<Types/>", "xl/worksheets/sheet1.xml": sheet, "xl/workbook.xml": "<workbook/>",
	})
	if got["xl/worksheets/sheet1.xml"] != zip64Version {
		t.Errorf("the large part's local header says version %d, want %d", got["xl/worksheets/sheet1.xml"], zip64Version)
	}
	for _, name := range []string{"[Content_Types].xml", "xl/workbook.xml"} {
		if got[name] == zip64Version {
			t.Errorf("%s, not a large part, was marked ZIP64", name)
		}
	}
}

func TestMarkZip64RefusesWhatItCannotFind(t *testing.T) {
	f := zipOf(t, "a.xml", "<a/>")
	if err := markZip64(f, []string{"b.xml"}); err == nil {
		t.Error("markZip64 of a part the zip does not hold: no error")
	}

	// A local header with an extra field is not where markZip64 looks:
	// it must say so, not write two bytes into the extra field.
	g, err := os.Create(filepath.Join(t.TempDir(), "extra.zip"))
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	zw := zip.NewWriter(g)
	w, err := zw.CreateHeader(&zip.FileHeader{Name: "a.xml", Method: zip.Deflate, Extra: []byte{0xfe, 0xca, 4, 0, 1, 2, 3, 4}})
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(w, "<a/>")
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(g.Name())
	if err != nil {
		t.Fatal(err)
	}
	if err := markZip64(g, []string{"a.xml"}); err == nil {
		t.Error("markZip64 of a part whose local header has an extra field: no error")
	}
	after, err := os.ReadFile(g.Name())
	if err != nil {
		t.Fatal(err)
	}
	if string(after) != string(before) {
		t.Error("markZip64 changed a file it refused")
	}
}

// A part is noted as large once, when what was written to it passes 4 GiB
// (excelize's ZIP64 rule), and a part at the limit is not.
func TestFileZipNotesPartsOver4GiB(t *testing.T) {
	zw := newFileZip(io.Discard)
	w, err := zw.Create("xl/worksheets/sheet1.xml")
	if err != nil {
		t.Fatal(err)
	}
	part := w.(*partWriter)
	part.n = math.MaxUint32 - 3 // as if 4 GiB less 3 bytes were written
	io.WriteString(w, "abc")
	if len(zw.large) != 0 {
		t.Fatalf("a part of exactly 4 GiB - 1 noted as large: %v", zw.large)
	}
	io.WriteString(w, "d")
	io.WriteString(w, "efgh")
	if !slices.Equal(zw.large, []string{"xl/worksheets/sheet1.xml"}) {
		t.Errorf("large parts %v, want the sheet once", zw.large)
	}
}
