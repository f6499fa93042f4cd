package groundtruth

import (
	"os"
	"testing"

	"github.com/reconcile/reconcile/internal/cli/clitest"
)

// TestMain ends the runs the package's tests shared (clitest.Main).
func TestMain(m *testing.M) { os.Exit(clitest.Main(m)) }
