package platform

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// AmountDecimals is the number of decimals an amount is held in across the
// project: thousandths, the minor unit of the currencies with the most
// decimals the platform settles in (ISO 4217 exponent 3: BHD, IQD, JOD,
// KWD, LYD, OMR, TND). Stored amounts are DECIMAL(18,3).
const AmountDecimals = 3

// amountScale is 10^AmountDecimals: ParseAmount's units per currency unit.
const amountScale = 1000

// ParseAmount parses a decimal amount as the platform writes it ("12.345",
// "12.34", "-5", "0.5", "1000") into thousandths: 12345, 12340, -5000, 500,
// 1000000. Amounts are compared and summed as integers across the project
// so that no float rounding ever makes two equal amounts differ.
//
// It accepts an optional sign, digits, and an optional point with digits
// after it (".5" and "5." included). It refuses an empty string, anything
// else (spaces, exponents, thousands separators), more than three non-zero
// decimals ("1.2300" is fine, "1.2345" is not: rounding would hide a
// mismatch), and values beyond int64 thousandths. Whether the amount has
// more decimals than its currency is CheckCurrencyDecimals's question.
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
	if len(frac) > AmountDecimals {
		if strings.Trim(frac[AmountDecimals:], "0") != "" {
			return 0, fmt.Errorf("parse amount %s: more than %d decimals", quoteShort(s), AmountDecimals)
		}
		frac = frac[:AmountDecimals]
	}
	for len(frac) < AmountDecimals {
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

// FormatAmount writes thousandths as a decimal string with three decimals:
// 12345 -> "12.345", -5 -> "-0.005", 0 -> "0.000".
func FormatAmount(minor int64) string {
	mag := uint64(minor)
	sign := ""
	if minor < 0 {
		mag, sign = -mag, "-"
	}
	frac := strconv.FormatUint(mag%amountScale, 10)
	for len(frac) < AmountDecimals {
		frac = "0" + frac
	}
	return sign + strconv.FormatUint(mag/amountScale, 10) + "." + frac
}

// currencyExponents are the ISO 4217 currencies whose minor unit is not a
// hundredth (ISO 4217 list one, "Minor unit"); every other code has 2.
// CLF (4) and UYW (4) are listed so that their amounts are never cut: the
// project holds three decimals, so a fourth non-zero one is refused.
var currencyExponents = map[string]int{
	// 0 decimals
	"BIF": 0, "CLP": 0, "DJF": 0, "GNF": 0, "ISK": 0, "JPY": 0, "KMF": 0, "KRW": 0, "PYG": 0,
	"RWF": 0, "UGX": 0, "UYI": 0, "VND": 0, "VUV": 0, "XAF": 0, "XOF": 0, "XPF": 0,
	// 3 decimals
	"BHD": 3, "IQD": 3, "JOD": 3, "KWD": 3, "LYD": 3, "OMR": 3, "TND": 3,
	// 4 decimals
	"CLF": 4, "UYW": 4,
}

// CurrencyExponent is the number of decimals of currency's minor unit (ISO
// 4217): 0 for JPY, 3 for KWD, 2 for USD and for a code it does not know.
func CurrencyExponent(currency string) int {
	if e, ok := currencyExponents[strings.ToUpper(strings.TrimSpace(currency))]; ok {
		return e
	}
	return 2
}

// significantDecimals is how many decimals of s count: trailing zeros do
// not ("1000.00" has none, "12.340" two).
func significantDecimals(s string) int {
	_, frac, _ := strings.Cut(strings.TrimSpace(s), ".")
	return len(strings.TrimRight(frac, "0"))
}

// CheckCurrencyDecimals refuses an amount written with more (non-zero)
// decimals than its currency has: "12.5" JPY or "12.3456" KWD. Such an
// amount is not rounded: its record is kept aside with this reason
// (ingest's kept_aside). An empty amount or currency passes.
func CheckCurrencyDecimals(amount, currency string) error {
	if strings.TrimSpace(amount) == "" || strings.TrimSpace(currency) == "" {
		return nil
	}
	n, max := significantDecimals(amount), CurrencyExponent(currency)
	if n > max {
		return fmt.Errorf("amount %s %s has %d decimals; %s has %d", quoteShort(amount), strings.TrimSpace(currency), n,
			strings.TrimSpace(currency), max)
	}
	if n > AmountDecimals { // CLF's fourth decimal
		return fmt.Errorf("amount %s %s has %d decimals; amounts are kept to %d", quoteShort(amount),
			strings.TrimSpace(currency), n, AmountDecimals)
	}
	return nil
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
		if q := firstBytes(s, 40); q != "" {
			return strconv.Quote(q) + "..."
		}
		return fmt.Sprintf("(a number of %d characters)", len(s)) // never quoted in part
	}
	return strconv.Quote(s)
}
