package platform

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ParseAmount parses a decimal amount as the platform writes it ("12.34",
// "-5", "0.5", "1000.00") into minor units (hundredths): 1234, -500, 50,
// 100000. Amounts are compared and summed as integers across the project so
// that no float rounding ever makes two equal amounts differ.
//
// It accepts an optional sign, digits, and an optional point with digits
// after it (".5" and "5." included). It refuses an empty string, anything
// else (spaces, exponents, thousands separators), more than two non-zero
// decimals ("1.2300" is fine, "1.234" is not: rounding would hide a
// mismatch), and values beyond int64 hundredths.
func ParseAmount(s string) (int64, error) {
	if s == "" {
		return 0, errors.New("parse amount: empty")
	}
	rest, neg := s, false
	switch rest[0] {
	case '-':
		rest, neg = rest[1:], true
	case '+':
		rest = rest[1:]
	}
	whole, frac, _ := strings.Cut(rest, ".")
	if whole == "" && frac == "" {
		return 0, fmt.Errorf("parse amount %s: no digits", quoteShort(s))
	}
	if !allDigits(whole) || !allDigits(frac) {
		return 0, fmt.Errorf("parse amount %s: not a decimal number", quoteShort(s))
	}
	if len(frac) > 2 {
		if strings.Trim(frac[2:], "0") != "" {
			return 0, fmt.Errorf("parse amount %s: more than 2 decimals", quoteShort(s))
		}
		frac = frac[:2]
	}
	for len(frac) < 2 {
		frac += "0"
	}
	var mag uint64
	for _, digits := range [2]string{whole, frac} {
		for i := 0; i < len(digits); i++ {
			d := uint64(digits[i] - '0')
			if mag > (math.MaxUint64-d)/10 {
				return 0, fmt.Errorf("parse amount %s: out of range", quoteShort(s))
			}
			mag = mag*10 + d
		}
	}
	limit := uint64(math.MaxInt64)
	if neg {
		limit++
	}
	if mag > limit {
		return 0, fmt.Errorf("parse amount %s: out of range", quoteShort(s))
	}
	if neg {
		return int64(-mag), nil // two's complement: also right for -2^63
	}
	return int64(mag), nil
}

// FormatAmount writes minor units (hundredths) as a decimal string with two
// decimals: 1234 -> "12.34", -5 -> "-0.05", 0 -> "0.00".
func FormatAmount(minor int64) string {
	mag := uint64(minor)
	sign := ""
	if minor < 0 {
		mag, sign = -mag, "-"
	}
	cents := mag % 100
	s := sign + strconv.FormatUint(mag/100, 10) + "."
	if cents < 10 {
		s += "0"
	}
	return s + strconv.FormatUint(cents, 10)
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// quoteShort quotes s for an error message, cut to 40 bytes so a garbage
// field does not flood a log.
func quoteShort(s string) string {
	if len(s) > 40 {
		return strconv.Quote(s[:40]) + "..."
	}
	return strconv.Quote(s)
}
