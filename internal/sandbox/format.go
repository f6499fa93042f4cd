package sandbox

import (
	"fmt"
	"strconv"
	"time"
)

// How values are written, in answers and journals alike: links, amounts,
// rates and times.

// link is one entry of an answer's _links.
type link struct {
	Href   string `json:"href"`
	Method string `json:"method,omitempty"`
}

// linkSet is the _links object of a plan or a subscription: a struct, not
// a map, because encoding a map per item was a large share of serving a
// page of 100. Fields are in alphabetical order, the order a map encodes
// in, so the bytes are the same.
type linkSet struct {
	Activate   *link `json:"activate,omitempty"`
	Cancel     *link `json:"cancel,omitempty"`
	Deactivate *link `json:"deactivate,omitempty"`
	Self       *link `json:"self,omitempty"`
	Suspend    *link `json:"suspend,omitempty"`
	Update     *link `json:"update,omitempty"`
}

// money writes minor units as a decimal amount with two decimals.
func money(c int64) string {
	var buf [24]byte
	b := buf[:0]
	if c < 0 {
		b, c = append(b, '-'), -c
	}
	b = strconv.AppendInt(b, c/100, 10)
	b = append(b, '.', byte('0'+c%100/10), byte('0'+c%10))
	return string(b)
}

// currencyExponents are the ISO 4217 currencies whose minor unit is not a
// hundredth: the generated members trading in KWD and JPY
// (memberCurrency) are billed in fils and yen, and their amounts are
// written with three decimals and with none.
var currencyExponents = map[string]int{"JPY": 0, "KRW": 0, "CLP": 0, "ISK": 0, "VND": 0,
	"BHD": 3, "IQD": 3, "JOD": 3, "KWD": 3, "LYD": 3, "OMR": 3, "TND": 3}

// moneyIn writes minor units of currency as a decimal amount with that
// currency's decimals: 1234 USD "12.34", 12345 KWD "12.345", 1000 JPY
// "1000".
func moneyIn(c int64, currency string) string {
	exp, ok := currencyExponents[currency]
	if !ok || exp == 2 {
		return money(c)
	}
	neg := c < 0
	if neg {
		c = -c
	}
	s := strconv.FormatInt(c, 10)
	if exp > 0 {
		for len(s) <= exp {
			s = "0" + s
		}
		s = s[:len(s)-exp] + "." + s[len(s)-exp:]
	}
	if neg {
		s = "-" + s
	}
	return s
}

// optMoneyIn is moneyIn, or nothing (an omitted field) for zero.
func optMoneyIn(c int64, currency string) string {
	if c == 0 {
		return ""
	}
	return moneyIn(c, currency)
}

// optMoney is money, or nothing (an omitted field) for zero.
func optMoney(c int64) string {
	if c == 0 {
		return ""
	}
	return money(c)
}

// rate is part/whole as a decimal rate with two places ("0.05"), the way
// the spec writes rates (1 percent is 0.01).
func rate(part, whole int64) string {
	if whole <= 0 {
		return "0.00"
	}
	r := (part*100 + whole/2) / whole
	return fmt.Sprintf("%d.%02d", r/100, r%100)
}

// ts writes an instant as the platform does: RFC 3339 in UTC, whole
// seconds.
func ts(t time.Time) string { return t.UTC().Format(time.RFC3339) }
