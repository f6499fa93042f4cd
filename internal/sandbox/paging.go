package sandbox

// The paging of lists: offset and limit (and the other query parameters a
// list takes), and the self and next links of a page.

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// intParam is an integer query parameter: its default and its range.
type intParam struct {
	name        string
	def, lo, hi int
}

var offsetParam = intParam{"offset", 0, 0, 1<<31 - 1}

// read reads p from q; a value out of range or not a number is a
// VALIDATION_ERROR detail.
func (p intParam) read(q url.Values) (int, *errorDetail) {
	v := q.Get(p.name)
	if v == "" {
		return p.def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < p.lo || n > p.hi {
		return 0, &errorDetail{Field: p.name, Reason: fmt.Sprintf("must be an integer between %d and %d", p.lo, p.hi)}
	}
	return n, nil
}

// queryInts reads the integer query parameters of a list. others names
// the other parameters it takes: anything else, or a parameter given
// twice, is a VALIDATION_ERROR, since a filter the list ignored would
// answer more than was asked for.
func (x *exchange) queryInts(others []string, params ...intParam) ([]int, *answer) {
	q := x.r.URL.Query()
	known := make([]string, 0, len(params)+len(others))
	for _, p := range params {
		known = append(known, p.name)
	}
	details := unknownParams(q, append(known, others...))
	values := make([]int, len(params))
	for i, p := range params {
		var d *errorDetail
		if values[i], d = p.read(q); d != nil {
			details = append(details, *d)
		}
	}
	if len(details) > 0 {
		return nil, refusal(x.validationError("invalid query parameters", details...))
	}
	return values, nil
}

// page reads the offset and limit of a list that takes filters.
func (x *exchange) page(defLimit, maxLimit int, filters ...string) (offset, limit int, refused *answer) {
	v, refused := x.queryInts(filters, offsetParam, intParam{"limit", defLimit, 1, maxLimit})
	if refused != nil {
		return 0, 0, refused
	}
	return v[0], v[1], nil
}

// unknownParams lists, sorted, the query parameters of q that are not in
// known or that are given more than once.
func unknownParams(q url.Values, known []string) []errorDetail {
	names := make([]string, 0, len(q))
	for k := range q {
		names = append(names, k)
	}
	sort.Strings(names)
	var out []errorDetail
	for _, k := range names {
		switch {
		case !slices.Contains(known, k):
			out = append(out, errorDetail{Field: k, Reason: "unknown query parameter (this list takes " + strings.Join(known, ", ") + ")"})
		case len(q[k]) > 1:
			out = append(out, errorDetail{Field: k, Reason: "given more than once"})
		}
	}
	return out
}

// pageLinks builds self and, while more remain, next links.
func pageLinks(path string, q url.Values, offset, limit, total int, withMethod bool) map[string]link {
	method := ""
	if withMethod {
		method = http.MethodGet
	}
	mk := func(off int) link {
		v := url.Values{}
		for k, vs := range q {
			v[k] = vs
		}
		v.Set("offset", strconv.Itoa(off))
		v.Set("limit", strconv.Itoa(limit))
		return link{Href: path + "?" + v.Encode(), Method: method}
	}
	links := map[string]link{"self": mk(offset)}
	if offset+limit < total {
		links["next"] = mk(offset + limit)
	}
	return links
}

func window[T any](items []T, offset, limit int) []T {
	if offset >= len(items) {
		return items[:0:0]
	}
	return items[offset:min(len(items), offset+limit)]
}
