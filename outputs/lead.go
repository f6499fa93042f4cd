package outputs

import "slices"

// leadColumns puts the columns named in lead first, in lead's order, the
// others after them in their own order, and returns them with perm, the
// original index of each: perm[i] is the query's column shown at i. A
// column's CurrencyColumn follows its currency column to its new place.
func leadColumns(cols []Column, lead []string) ([]Column, []int) {
	var perm []int
	for _, name := range lead {
		if i := slices.IndexFunc(cols, func(c Column) bool { return c.Header == name }); i >= 0 && !slices.Contains(perm, i) {
			perm = append(perm, i)
		}
	}
	for i := range cols {
		if !slices.Contains(perm, i) {
			perm = append(perm, i)
		}
	}
	at := make([]int, len(cols)) // the new 0-based place of each original column
	for newIdx, orig := range perm {
		at[orig] = newIdx
	}
	out := permuted(cols, perm)
	for i, c := range out {
		if c.CurrencyColumn > 0 {
			out[i].CurrencyColumn = at[c.CurrencyColumn-1] + 1
		}
	}
	return out, perm
}

// permuted is s in the order perm gives (perm[i]: the index in s of the
// i-th element).
func permuted[T any](s []T, perm []int) []T {
	out := make([]T, len(perm))
	for i, j := range perm {
		out[i] = s[j]
	}
	return out
}

// permuteInto writes s in the order perm gives into dst and returns it.
func permuteInto(dst, s []any, perm []int) []any {
	for i, j := range perm {
		dst[i] = s[j]
	}
	return dst
}
