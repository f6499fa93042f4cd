//go:build !linux

package outputs

// exchange is not available here: the caller swaps with two renames and
// recoverSwaps repairs an interrupted swap on the next publish.
func exchange(a, b string) (ok bool, err error) { return false, nil }
