package sandbox

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// The plan list's filters parameter is Lucene syntax restricted, as the
// spec says, to keyword matching and AND: `field:value` terms (a value may
// be quoted) or bare keywords, joined by AND. OR, NOT, ranges, wildcards,
// fuzzy and boost operators, grouping and terms without AND between them
// are a VALIDATION_ERROR. A value matches a keyword field (code, status,
// unit, currency, id, numbers) when equal, case aside, and a text field
// (name, description) when it equals the text or one of its words; a bare
// keyword matches the code, or a word of the name or the description.

type filterTerm struct {
	field string // canonical field name; "" for a bare keyword
	value string
}

// planFilterFields maps accepted names (the spec's dotted names and their
// last parts) to the canonical field.
var planFilterFields = map[string]string{}

func init() {
	for _, f := range []string{"id", "planInformation.code", "planInformation.name", "planInformation.description",
		"planInformation.status", "planInformation.billingPeriod.length", "planInformation.billingPeriod.unit",
		"planInformation.billingCycles.total", "orderInformation.amountDetails.currency",
		"orderInformation.amountDetails.billingAmount", "orderInformation.amountDetails.setupFee"} {
		planFilterFields[strings.ToLower(f)] = f
		short := f[strings.IndexByte(f, '.')+1:]
		planFilterFields[strings.ToLower(short)] = f
		planFilterFields[strings.ToLower(f[strings.LastIndexByte(f, '.')+1:])] = f
	}
}

// parseFilters reads a filters parameter.
func parseFilters(s string) ([]filterTerm, error) {
	toks, err := filterTokens(s)
	if err != nil {
		return nil, err
	}
	var out []filterTerm
	for i, tok := range toks {
		if i%2 == 1 {
			if tok != "AND" {
				return nil, fmt.Errorf("only AND may join terms, found %q", tok)
			}
			continue
		}
		if tok == "AND" || tok == "OR" || tok == "NOT" {
			return nil, fmt.Errorf("unexpected %q: only keyword matching and AND are supported", tok)
		}
		t, err := parseFilterTerm(tok)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	if len(toks)%2 == 0 {
		return nil, fmt.Errorf("filters end with %q", toks[len(toks)-1])
	}
	return out, nil
}

// filterTokens splits on spaces outside quotes.
func filterTokens(s string) ([]string, error) {
	var toks []string
	var cur strings.Builder
	inQuote := false
	for _, r := range s {
		switch {
		case r == '"':
			inQuote = !inQuote
			cur.WriteRune(r)
		case unicode.IsSpace(r) && !inQuote:
			if cur.Len() > 0 {
				toks = append(toks, cur.String())
				cur.Reset()
			}
		default:
			cur.WriteRune(r)
		}
	}
	if inQuote {
		return nil, fmt.Errorf("unterminated quote in %q", s)
	}
	if cur.Len() > 0 {
		toks = append(toks, cur.String())
	}
	if len(toks) == 0 {
		return nil, fmt.Errorf("empty filters")
	}
	return toks, nil
}

func parseFilterTerm(tok string) (filterTerm, error) {
	field, value := "", tok
	if i := strings.IndexByte(tok, ':'); i >= 0 && !strings.HasPrefix(tok, `"`) {
		name := tok[:i]
		canon, ok := planFilterFields[strings.ToLower(name)]
		if !ok {
			return filterTerm{}, fmt.Errorf("unknown field %q", name)
		}
		field, value = canon, tok[i+1:]
	}
	if strings.HasPrefix(value, `"`) {
		if len(value) < 2 || !strings.HasSuffix(value, `"`) {
			return filterTerm{}, fmt.Errorf("malformed quoted value in %q", tok)
		}
		value = value[1 : len(value)-1]
	} else if strings.ContainsAny(value, `*?[]{}()~^!&|\/:"`) || strings.HasPrefix(value, "+") || strings.HasPrefix(value, "-") {
		return filterTerm{}, fmt.Errorf("%q: only keyword matching is supported (no wildcards, ranges, grouping or operators)", tok)
	}
	if value == "" {
		return filterTerm{}, fmt.Errorf("%q has no value", tok)
	}
	return filterTerm{field: field, value: value}, nil
}

// matchFilters reports whether p satisfies every term.
func matchFilters(terms []filterTerm, p *plan) bool {
	for _, t := range terms {
		if !matchTerm(t, p) {
			return false
		}
	}
	return true
}

func matchTerm(t filterTerm, p *plan) bool {
	eq := func(v string) bool { return strings.EqualFold(v, t.value) }
	word := func(text string) bool {
		if eq(text) {
			return true
		}
		for _, w := range strings.FieldsFunc(text, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
			if eq(w) {
				return true
			}
		}
		return false
	}
	switch t.field {
	case "":
		return eq(p.code) || word(p.name) || word(p.description)
	case "id":
		return eq(p.id)
	case "planInformation.code":
		return eq(p.code)
	case "planInformation.name":
		return word(p.name)
	case "planInformation.description":
		return word(p.description)
	case "planInformation.status":
		return eq(p.status)
	case "planInformation.billingPeriod.length":
		return eq(strconv.Itoa(p.length))
	case "planInformation.billingPeriod.unit":
		return eq(string(p.unit))
	case "planInformation.billingCycles.total":
		return p.total > 0 && eq(strconv.Itoa(p.total))
	case "orderInformation.amountDetails.currency":
		return eq(p.currency)
	case "orderInformation.amountDetails.billingAmount":
		n, err := parseAmount(t.value)
		return err == nil && n == p.amount
	case "orderInformation.amountDetails.setupFee":
		n, err := parseAmount(t.value)
		return err == nil && n == p.setupFee
	}
	return false
}
