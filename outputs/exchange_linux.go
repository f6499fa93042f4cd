//go:build linux

package outputs

import (
	"errors"

	"golang.org/x/sys/unix"
)

// exchange swaps the folders at a and b in one step (renameat2 with
// RENAME_EXCHANGE): there is no moment at which either path is missing, so a
// kill cannot leave a date without its publication. ok is false when the
// file system or kernel cannot exchange (EINVAL, ENOSYS, EXDEV...), and the
// caller falls back to two renames.
func exchange(a, b string) (ok bool, err error) {
	err = unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, unix.EINVAL), errors.Is(err, unix.ENOSYS), errors.Is(err, unix.EXDEV),
		errors.Is(err, unix.EOPNOTSUPP), errors.Is(err, unix.EPERM):
		return false, nil
	default:
		return false, err
	}
}
