package outputs

import (
	"archive/zip"
	"bufio"
	"bytes"
	"compress/flate"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"slices"

	"github.com/xuri/excelize/v2"
)

// writeWorkbookFile writes f's zip into out as excelize produces it.
//
// excelize (v2.10.1) builds a whole workbook's zip in a bytes.Buffer before
// it writes any of it (File.WriteTo calls WriteToBuffer): at 10,000 members
// that buffer was 192 MiB of the publish step's Go heap, the peak of the
// run. It makes the zip through the ZipWriter its File is given, and hands
// that writer its buffer; the zip writer here writes to out instead, so the
// buffer stays empty and the zip goes to the file as it is made.
//
// The parts are deflated at level 1: ~70k instead of ~45k rows/s
// (docs/dev/ceilings.md) for a file ~25% larger (9.1 vs 7.2 MB for 100k rows of
// 8 columns), a good trade for a file written nightly and read by a handful
// of people.
func writeWorkbookFile(f *excelize.File, out *os.File) error {
	zw := newFileZip(out)
	f.SetZipWriter(func(io.Writer) excelize.ZipWriter { return zw })
	n, err := f.WriteTo(out)
	if err != nil {
		return err
	}
	if n != 0 {
		// A later excelize that writes its buffer after all would have
		// put a second zip after ours.
		return fmt.Errorf("excelize wrote %d bytes beside the workbook's zip", n)
	}
	return markZip64(out, zw.large)
}

// fileZip is a zip.Writer on a file that notes the parts over 4 GiB
// (excelize's rule for a ZIP64 part: more than math.MaxUint32 bytes before
// compression), whose local headers markZip64 then marks.
type fileZip struct {
	*zip.Writer
	large []string
}

func newFileZip(out io.Writer) *fileZip {
	// zip.Writer buffers through a bufio.Writer of its own unless given
	// one at least that large: one of 1 MiB saves a system call per 4 KiB.
	zw := zip.NewWriter(bufio.NewWriterSize(out, 1<<20))
	zw.RegisterCompressor(zip.Deflate, func(out io.Writer) (io.WriteCloser, error) {
		return flate.NewWriter(out, flate.BestSpeed)
	})
	return &fileZip{Writer: zw}
}

// Create starts the part name, counting what is written to it.
func (z *fileZip) Create(name string) (io.Writer, error) {
	w, err := z.Writer.Create(name)
	if err != nil {
		return nil, err
	}
	return &partWriter{w: w, z: z, name: name}, nil
}

type partWriter struct {
	w    io.Writer
	z    *fileZip
	name string
	n    int64 // bytes written, before compression
}

func (p *partWriter) Write(b []byte) (int, error) {
	n, err := p.w.Write(b)
	if p.n <= math.MaxUint32 && p.n+int64(n) > math.MaxUint32 {
		p.z.large = append(p.z.large, p.name)
	}
	p.n += int64(n)
	return n, err
}

// Offsets in a zip's local file header.
const (
	localHeaderLen     = 30
	localHeaderVersion = 4  // version needed to extract, uint16
	localHeaderNameLen = 26 // file name length, uint16; extra field length follows
	zip64Version       = 45 // ZIP 4.5: ZIP64
)

var localHeaderSignature = []byte("PK\x03\x04")

// markZip64 sets "version needed to extract" to 4.5 in the local headers of
// the zip file's parts named in names. Go's archive/zip marks a ZIP64 entry
// so in the central directory only, and Excel reports a workbook whose
// local and central headers disagree as corrupt; excelize patches its
// buffer the same way (writeZip64LFH). A header that is not where the
// central directory says is an error, not a guess.
func markZip64(f *os.File, names []string) error {
	if len(names) == 0 {
		return nil
	}
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("zip64 headers: %w", err)
	}
	r, err := zip.NewReader(f, st.Size())
	if err != nil {
		return fmt.Errorf("zip64 headers: %w", err)
	}
	marked := 0
	for _, part := range r.File {
		if !slices.Contains(names, part.Name) {
			continue
		}
		data, err := part.DataOffset()
		if err != nil {
			return fmt.Errorf("zip64 header of %s: %w", part.Name, err)
		}
		header := make([]byte, localHeaderLen+len(part.Name))
		// archive/zip writes a streamed part's local header without an
		// extra field, so the header is the 30 bytes and the name before
		// its data; checked below rather than assumed.
		at := data - int64(len(header))
		if at < 0 {
			return fmt.Errorf("zip64 header of %s: data at %d", part.Name, data)
		}
		if _, err := f.ReadAt(header, at); err != nil {
			return fmt.Errorf("zip64 header of %s: %w", part.Name, err)
		}
		if !bytes.Equal(header[:4], localHeaderSignature) ||
			int(binary.LittleEndian.Uint16(header[localHeaderNameLen:])) != len(part.Name) ||
			binary.LittleEndian.Uint16(header[localHeaderNameLen+2:]) != 0 ||
			string(header[localHeaderLen:]) != part.Name {
			return fmt.Errorf("zip64 header of %s: no local header of it at offset %d", part.Name, at)
		}
		var version [2]byte
		binary.LittleEndian.PutUint16(version[:], zip64Version)
		if _, err := f.WriteAt(version[:], at+localHeaderVersion); err != nil {
			return fmt.Errorf("zip64 header of %s: %w", part.Name, err)
		}
		marked++
	}
	if marked != len(names) {
		return fmt.Errorf("zip64 headers: %d of %d parts found", marked, len(names))
	}
	return nil
}
