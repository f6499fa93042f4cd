package store

import "context"

// SetSliceRows sets the records a slice of members may hold, for the test
// that compares the checks computed in slices of every size
// (TestSlicedChecksEqualOneSlice, in package store_test because it runs a
// whole pipeline).
func (s *Store) SetSliceRows(n int64) { s.sliceRows = n }

// SliceFilter is the view condition of table for slice sl given that the
// slice's rows lay at rowids lo..hi, rows of them (sliceFilter).
func SliceFilter(ctx context.Context, s *Store, table string, sl Slice, lo, hi, rows int64) (string, error) {
	var filter string
	err := s.Transact(ctx, func(tx *Tx) error {
		var db string
		if err := tx.QueryRow(ctx, `SELECT current_database()`).Scan(&db); err != nil {
			return err
		}
		var err error
		filter, err = sliceFilter(ctx, tx, db, table, sl, rowRange{lo, hi, rows})
		return err
	})
	return filter, err
}

// ThreadsFor is threadsFor, for a machine of any number of cores.
func ThreadsFor(limit int64, cores int) int { return threadsFor(limit, cores) }
