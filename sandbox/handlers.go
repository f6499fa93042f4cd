package sandbox

// Helpers the handlers share: links, amounts, times and paging.

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

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

func ts(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// intParam reads an integer query parameter with a default and a range; a
// value out of range or not a number is a VALIDATION_ERROR detail.
func intParam(q url.Values, name string, def, lo, hi int) (int, *errorDetail) {
	v := q.Get(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		return 0, &errorDetail{Field: name, Reason: fmt.Sprintf("must be an integer between %d and %d", lo, hi)}
	}
	return n, nil
}

// pageParams reads offset and limit of a list; the error is already
// answered. filters names the other query parameters the list takes:
// anything else, or a parameter given twice, is a VALIDATION_ERROR, since a
// filter the list ignored would answer more than was asked for.
func (s *Server) pageParams(w http.ResponseWriter, r *http.Request, defLimit, maxLimit int, filters ...string) (offset, limit int, ok bool) {
	q := r.URL.Query()
	details := unknownParams(q, append([]string{"offset", "limit"}, filters...))
	offset, d1 := intParam(q, "offset", 0, 0, 1<<31-1)
	limit, d2 := intParam(q, "limit", defLimit, 1, maxLimit)
	for _, d := range []*errorDetail{d1, d2} {
		if d != nil {
			details = append(details, *d)
		}
	}
	if len(details) > 0 {
		s.writeError(w, info(r), http.StatusBadRequest, "INVALID_REQUEST", "VALIDATION_ERROR", "invalid query parameters", details...)
		return 0, 0, false
	}
	return offset, limit, true
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
