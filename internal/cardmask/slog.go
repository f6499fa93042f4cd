package cardmask

import (
	"fmt"
	"log/slog"
)

// SlogAttr masks card data in a log record's message and attributes (a
// slog.HandlerOptions.ReplaceAttr): an error or a value may quote a
// platform response or a journal line, and a log is an output like any
// other.
func SlogAttr(_ []string, a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		if m := MaskText(v.String()); m != v.String() {
			a.Value = slog.StringValue(m)
		}
	case slog.KindAny:
		var text string
		if err, ok := v.Any().(error); ok {
			text = err.Error()
		} else {
			text = fmt.Sprint(v.Any())
		}
		if m := MaskText(text); m != text {
			a.Value = slog.StringValue(m)
		}
	}
	return a
}
