package platform

import (
	"math"
	"testing"
)

func TestParseAmount(t *testing.T) {
	for in, want := range map[string]int64{
		"12.34":                 1234,
		"-5":                    -500,
		"0.5":                   50,
		"1000.00":               100000,
		"1.2300":                123,
		"+7.1":                  710,
		".5":                    50,
		"5.":                    500,
		"-0.05":                 -5,
		"-0":                    0,
		"0007.00":               700,
		"92233720368547758.07":  math.MaxInt64,
		"-92233720368547758.08": math.MinInt64,
	} {
		got, err := ParseAmount(in)
		if err != nil || got != want {
			t.Errorf("ParseAmount(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "-", "+", ".", "abc", "1e5", "1,000.00", " 1.00", "1.00 ", "1.234", "1.2301",
		"1.2.3", "--1", "0x10", "92233720368547758.08", "-92233720368547758.09", "99999999999999999999999"} {
		if got, err := ParseAmount(in); err == nil {
			t.Errorf("ParseAmount(%q) = %d, want an error", in, got)
		}
	}
}

func TestFormatAmount(t *testing.T) {
	for in, want := range map[int64]string{
		1234:          "12.34",
		-5:            "-0.05",
		0:             "0.00",
		100000:        "1000.00",
		-500:          "-5.00",
		math.MaxInt64: "92233720368547758.07",
		math.MinInt64: "-92233720368547758.08",
	} {
		if got := FormatAmount(in); got != want {
			t.Errorf("FormatAmount(%d) = %q, want %q", in, got, want)
		}
	}
}

func FuzzParseAmount(f *testing.F) {
	for _, s := range []string{"12.34", "-5", "0.5", "1000.00", "1.2300", "", "1e5", ".", "-0.05",
		"92233720368547758.07", "-92233720368547758.08", "92233720368547758.08", "+.1", "00.010"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseAmount(s)
		if err != nil {
			return
		}
		out := FormatAmount(v)
		back, err := ParseAmount(out)
		if err != nil {
			t.Fatalf("ParseAmount(%q) = %d, formatted %q does not parse: %v", s, v, out, err)
		}
		if back != v {
			t.Fatalf("ParseAmount(%q) = %d, FormatAmount = %q, parses back as %d", s, v, out, back)
		}
		if FormatAmount(back) != out {
			t.Fatalf("FormatAmount not canonical for %d", v)
		}
	})
}
