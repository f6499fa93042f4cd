package store

// SetSliceRows sets the records a slice of members may hold, for the test
// that compares the checks computed in slices of every size
// (TestSlicedChecksEqualOneSlice, in package store_test because it runs a
// whole pipeline).
func (s *Store) SetSliceRows(n int64) { s.sliceRows = n }
