package platform

import (
	"math"
	"strings"
	"testing"
)

func TestParseAmount(t *testing.T) {
	for in, want := range map[string]int64{
		"12.34":                 12340,
		"12.345":                12345,
		"1000":                  1000000,
		"-5":                    -5000,
		"0.5":                   500,
		"1000.00":               1000000,
		"1.2300":                1230,
		"1.2340":                1234,
		"+7.1":                  7100,
		".5":                    500,
		"5.":                    5000,
		"-0.05":                 -50,
		"-0.005":                -5,
		"-0":                    0,
		"0007.00":               7000,
		"9223372036854775.807":  math.MaxInt64,
		"-9223372036854775.808": math.MinInt64,
	} {
		got, err := ParseAmount(in)
		if err != nil || got != want {
			t.Errorf("ParseAmount(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "-", "+", ".", "abc", "1e5", "1,000.00", " 1.00", "1.00 ", "1.2345", "1.23401",
		"1.2.3", "--1", "0x10", "9223372036854775.808", "-9223372036854775.809", "99999999999999999999999"} {
		if got, err := ParseAmount(in); err == nil {
			t.Errorf("ParseAmount(%q) = %d, want an error", in, got)
		}
	}
}

func TestFormatAmount(t *testing.T) {
	for in, want := range map[int64]string{
		12345:         "12.345",
		12340:         "12.340",
		-5:            "-0.005",
		-50:           "-0.050",
		0:             "0.000",
		1000000:       "1000.000",
		-5000:         "-5.000",
		math.MaxInt64: "9223372036854775.807",
		math.MinInt64: "-9223372036854775.808",
	} {
		if got := FormatAmount(in); got != want {
			t.Errorf("FormatAmount(%d) = %q, want %q", in, got, want)
		}
	}
}

func FuzzParseAmount(f *testing.F) {
	for _, s := range []string{"12.34", "-5", "0.5", "1000.00", "1.2300", "", "1e5", ".", "-0.05",
		"9223372036854775.807", "-9223372036854775.808", "9223372036854775.808", "+.1", "00.010", "12.345"} {
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

// TestCurrencyDecimals: an amount may have as many decimals as its
// currency's ISO 4217 exponent, trailing zeros not counted; more is refused
// with a reason naming both.
func TestCurrencyDecimals(t *testing.T) {
	for _, ok := range [][2]string{{"12.345", "KWD"}, {"1000", "JPY"}, {"1000.00", "JPY"}, {"12.34", "USD"},
		{"12.340", "USD"}, {"0.125", "bhd"}, {"7.5", "OMR"}, {"1.001", "TND"}, {"3.333", "JOD"}, {"", "JPY"}, {"1.5", ""}} {
		if err := CheckCurrencyDecimals(ok[0], ok[1]); err != nil {
			t.Errorf("CheckCurrencyDecimals(%q, %q) = %v, want nil", ok[0], ok[1], err)
		}
	}
	for _, bad := range [][2]string{{"12.5", "JPY"}, {"12.3456", "KWD"}, {"1.234", "USD"}, {"0.01", "KRW"}} {
		err := CheckCurrencyDecimals(bad[0], bad[1])
		if err == nil || !strings.Contains(err.Error(), bad[1]) || !strings.Contains(err.Error(), "decimals") {
			t.Errorf("CheckCurrencyDecimals(%q, %q) = %v, want an error naming the currency's decimals", bad[0], bad[1], err)
		}
	}
	for cur, want := range map[string]int{"JPY": 0, "USD": 2, "EUR": 2, "KWD": 3, "BHD": 3, "JOD": 3, "OMR": 3, "TND": 3, "CLF": 4, "XYZ": 2} {
		if got := CurrencyExponent(cur); got != want {
			t.Errorf("CurrencyExponent(%s) = %d, want %d", cur, got, want)
		}
	}
}
