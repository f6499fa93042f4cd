package store

import "slices"

// SlicedTables are the member tables the checks read through temp views
// while a slice of members runs (ForEachSlice): `reconcile sql --check`
// shadows the same tables in the same way, so that a check's file reads
// there exactly what it read during the run.
func SlicedTables() []string { return slices.Clone(slicedTables) }
