package ingest

// Card numbers from merchant journals are masked before anything is stored:
// a careless merchant's log may carry full card numbers (PANs) anywhere. A
// PAN is recognised as 13 to 19 digits, optionally grouped by single spaces
// or dashes, that pass the Luhn check and are not part of a longer digit run
// (so 22-digit platform identifiers are left alone). The first six and last
// four digits are kept, which is what PCI DSS allows to be displayed, and the
// middle digits become X.
//
// The price of this rule: a non-card identifier of 13-19 digits that happens
// to pass the Luhn check (one in ten) is masked too. Losing such an id is
// preferable to storing a card number.

// MaskPANs returns s with every card number masked, and whether it changed.
func MaskPANs(s string) (string, bool) {
	var out []byte // allocated on the first PAN only
	last := 0
	for i := 0; i < len(s); {
		if !isDigit(s[i]) {
			i++
			continue
		}
		groups := scanGroups(s, i)
		for a := 0; a < len(groups); {
			b := panEnding(s, groups, a)
			if b < 0 {
				a++
				continue
			}
			if out == nil {
				out = make([]byte, 0, len(s))
			}
			out = append(out, s[last:groups[a].start]...)
			out = appendMasked(out, s[groups[a].start:groups[b].end])
			last = groups[b].end
			a = b + 1
		}
		i = groups[len(groups)-1].end
	}
	if out == nil {
		return s, false
	}
	return string(append(out, s[last:]...)), true
}

// group is a maximal run of digits, s[start:end].
type group struct{ start, end int }

// scanGroups reads the digit groups of one number starting at s[start]:
// runs of digits joined by single spaces or dashes.
func scanGroups(s string, start int) []group {
	var gs []group
	j := start
	for {
		k := j
		for k < len(s) && isDigit(s[k]) {
			k++
		}
		gs = append(gs, group{j, k})
		if k+1 < len(s) && (s[k] == ' ' || s[k] == '-') && isDigit(s[k+1]) {
			j = k + 1
			continue
		}
		return gs
	}
}

// panEnding returns the last group b >= a such that groups a..b hold 13 to 19
// digits passing the Luhn check, preferring the longest; -1 if none. A group
// of more than 19 digits is an identifier and never part of a card number.
func panEnding(s string, gs []group, a int) int {
	best := -1
	digits := 0
	for b := a; b < len(gs); b++ {
		n := gs[b].end - gs[b].start
		if n > 19 {
			break
		}
		digits += n
		if digits > 19 {
			break
		}
		if digits >= 13 && luhn(s[gs[a].start:gs[b].end]) {
			best = b
		}
	}
	return best
}

// appendMasked appends number's digits with all but the first six and the
// last four replaced by X; separators are dropped.
func appendMasked(out []byte, number string) []byte {
	digits := 0
	for i := 0; i < len(number); i++ {
		if isDigit(number[i]) {
			digits++
		}
	}
	seen := 0
	for i := 0; i < len(number); i++ {
		c := number[i]
		if !isDigit(c) {
			continue
		}
		seen++
		if seen <= 6 || seen > digits-4 {
			out = append(out, c)
		} else {
			out = append(out, 'X')
		}
	}
	return out
}

// luhn reports whether the digits of s (separators ignored) pass the Luhn check.
func luhn(s string) bool {
	sum, double := 0, false
	for i := len(s) - 1; i >= 0; i-- {
		if !isDigit(s[i]) {
			continue
		}
		d := int(s[i] - '0')
		if double {
			d *= 2
			if d > 9 {
				d -= 9
			}
		}
		sum += d
		double = !double
	}
	return sum%10 == 0
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
