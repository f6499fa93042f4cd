package outputs

import (
	"bytes"
	"fmt"
	"os"
	"reflect"
	"unsafe"

	"github.com/xuri/excelize/v2"
)

// spillStream moves a flushed stream writer's sheet out of memory into a
// temporary file, from which excelize copies it into the workbook's zip as
// it does for a sheet it spilled itself.
//
// excelize (v2.10.1) keeps the XML of every sheet written by a
// StreamWriter in memory until the workbook is written, unless the sheet
// passed 16 MiB; and a sheet that did keeps the buffer it wrote through (up
// to 32 MiB). Each sheet is small, but a workbook holds one per finding
// kind: at 5,000 members the workbook's sheets held ~500 MB of the
// process's memory until the end. The library has no option for it (the
// threshold is a constant), so this reaches into the stream writer's
// buffer, a struct of the pinned version: TestSpillStreamKnowsExcelize
// fails if an upgrade changes its shape, and spillStream then changes
// nothing rather than break the workbook.
func spillStream(sw *excelize.StreamWriter, dir string) error {
	tmp, buf, ok := streamBuffer(sw)
	if !ok {
		return nil
	}
	if *tmp == nil {
		if buf.Len() == 0 {
			return nil
		}
		f, err := os.CreateTemp(dir, "excelize-")
		if err != nil {
			return fmt.Errorf("spill sheet %s: %w", sw.Sheet, err)
		}
		*tmp = f // excelize's Close removes it
	}
	if _, err := buf.WriteTo(*tmp); err != nil {
		return fmt.Errorf("spill sheet %s: %w", sw.Sheet, err)
	}
	*buf = bytes.Buffer{} // its capacity too
	return nil
}

// streamBuffer points into the StreamWriter's rawData field, a
// bufferedWriter {tmpDir string; tmp *os.File; buf bytes.Buffer}: its
// temporary file and its buffer. ok is false if the field is not of that
// shape.
func streamBuffer(sw *excelize.StreamWriter) (tmp **os.File, buf *bytes.Buffer, ok bool) {
	raw := reflect.ValueOf(sw).Elem().FieldByName("rawData")
	if !raw.IsValid() || raw.Kind() != reflect.Struct {
		return nil, nil, false
	}
	t, b := raw.FieldByName("tmp"), raw.FieldByName("buf")
	if !t.IsValid() || t.Type() != reflect.TypeOf((*os.File)(nil)) ||
		!b.IsValid() || b.Type() != reflect.TypeOf(bytes.Buffer{}) {
		return nil, nil, false
	}
	return (**os.File)(unsafe.Pointer(t.UnsafeAddr())), (*bytes.Buffer)(unsafe.Pointer(b.UnsafeAddr())), true
}
