// Command reconcile is the reporting and reconciliation batch job: it pulls
// an organization's recurring billing, transactions, BIN attributes and
// merchant journals from the payments platform into DuckDB, runs
// reconciliation and audit checks in SQL, and publishes an Excel workbook,
// Parquet datasets and a DuckDB file.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv})
	stop()
	os.Exit(code)
}
