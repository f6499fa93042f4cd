//go:build !unix

package outputs

import "os"

// processUmask is 0 where there is no umask (Windows): file modes there
// carry only the read-only bit.
var processUmask os.FileMode
