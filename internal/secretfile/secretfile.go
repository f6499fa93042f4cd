// Package secretfile is reconcile's policy for files that hold a
// credential (the platform's shared secret, a P12 file and its password,
// the --notify file's SMTP password and webhook secrets) and for other
// files it reads whole: a regular file only, bounded in size, private
// (mode 600) where it holds a secret, and never its path repeated in an
// error when it could not be opened, in case the "path" is the secret
// itself.
package secretfile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
)

// MaxSize bounds what is read of a credential file: a secret is
// 44 bytes of base64 and a P12 file a few kilobytes.
const MaxSize = 1 << 20

// Read reads the credential file at path. With private set it refuses,
// as ssh does for a private key, a file that group or others may read, and
// says what to run. Errors name the file by setting, a
// description of where its path was given (a flag, a key of the --notify
// file).
func Read(setting, path string, private bool) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%s: cannot open the file it names: %w", setting, WithoutPath(err))
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", setting, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", setting)
	}
	if perm := fi.Mode().Perm(); private && runtime.GOOS != "windows" && perm&0o077 != 0 {
		return nil, fmt.Errorf("%s: %s is readable by group or others (mode %04o); it holds a credential: run  chmod 600 %s", setting, path, perm, ShellQuote(path))
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxSize+1))
	if err != nil {
		return nil, fmt.Errorf("%s: read: %w", setting, err)
	}
	if len(b) > MaxSize {
		return nil, fmt.Errorf("%s: larger than %d KiB, not a credential file", setting, MaxSize>>10)
	}
	return b, nil
}

// ShellQuote quotes a path for a POSIX shell when it needs it.
func ShellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+=:,@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// WithoutPath is err without the path an *os.PathError names, for an
// error about a path that may be a secret.
func WithoutPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// ReadBounded reads a regular file of at most limit bytes. Anything
// else is refused before it is opened: a device (/dev/zero ran the process
// to 4.5 GB), a FIFO (opening one with no writer blocks in the kernel, out
// of reach of SIGTERM), a folder.
func ReadBounded(path string, limit int64) ([]byte, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file (%s)", path, info.Mode().Type())
	}
	if info.Size() > limit {
		return nil, fmt.Errorf("%s is %d MiB, more than the %d MiB this reads", path, info.Size()>>20, limit>>20)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err == nil && int64(len(b)) > limit {
		err = fmt.Errorf("%s grew past the %d MiB this reads", path, limit>>20)
	}
	return b, err
}
