// Command reconcile is the reporting and reconciliation batch job: it pulls
// an organization's recurring billing, transactions, BIN attributes and
// merchant journals from the payments platform into DuckDB, runs
// reconciliation and audit checks in SQL, and publishes an Excel workbook,
// Parquet datasets and a DuckDB file.
//
// The command line itself (each command's flags, one configuration checked,
// the wiring of the packages that do the work) is internal/cli; this
// package is the binary.
package main

import (
	"os"

	"github.com/reconcile/reconcile/internal/cli"
)

// version is set at build time with -ldflags "-X main.version=v1.2.3";
// without it the version comes from the build information.
var version = ""

func main() {
	os.Exit(cli.Main(version))
}
