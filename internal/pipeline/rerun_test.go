package pipeline_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/reconcile/reconcile/internal/pipeline"
	"github.com/reconcile/reconcile/internal/pipeline/pipelinetest"
	"github.com/reconcile/reconcile/internal/sandbox"
	"github.com/reconcile/reconcile/internal/store"
)

// TestRerunsKeepCountsAndAmounts holds the semantics the bulk load must keep
// however it is made fast: each key once, a reloaded payment list replacing
// the subscription's payments, lists not pulled again left as they were.
// After a first run, a re-run of the date (which resumes: nothing to pull),
// a --force run (every member again, with incremental pulls: only the
// payment lists that may have changed) and a --force --full-refresh run
// (every list again) leave every table with the rows it had, and every
// DECIMAL column with the sum it had.
func TestRerunsKeepCountsAndAmounts(t *testing.T) {
	scale, err := sandbox.ParseScale("members=7,subscriptions=40,groups=2") // the 7th lacks Recurring Billing
	if err != nil {
		t.Fatal(err)
	}
	run := pipelinetest.Sandbox(t, sandbox.Config{Seed: 11, Scale: scale},
		pipeline.Options{Concurrency: 3, JournalGlob: pipelinetest.JournalsOfSandbox}, 0)
	first := fingerprint(t, run.Store)
	for _, table := range []string{"plans", "subscriptions", "subscription_payments", "transactions", "journal",
		"subscription_schedules", "expected_cycles", "run_members", "findings"} {
		if first[table+" rows"] == "0" {
			t.Errorf("table %s is empty after the first run: comparing it proves nothing", table)
		}
	}
	if first["subscription_payments.billing_amount"] == "NULL" || first["transactions.amount"] == "NULL" {
		t.Error("no amounts after the first run: comparing them proves nothing")
	}

	// reloaded is how many subscriptions had their payment list pulled by
	// the run res, and how many there are.
	reloaded := func(res *pipeline.Result) (lists, subscriptions int) {
		if err := run.Store.Conn().QueryRowContext(context.Background(),
			`SELECT count(*) FILTER (WHERE payments_pulled_at = ?), count(*) FROM subscriptions`, res.StartedAt).Scan(&lists, &subscriptions); err != nil {
			t.Fatal(err)
		}
		return lists, subscriptions
	}
	for _, again := range []struct {
		name   string
		change func(*pipeline.Options)
		check  func(*pipeline.Result) error
	}{
		{"a re-run (resumed)", func(*pipeline.Options) {}, func(res *pipeline.Result) error {
			if res.Skipped != res.Members {
				return fmt.Errorf("%d of %d members skipped, want all", res.Skipped, res.Members)
			}
			return nil
		}},
		{"a --force run (incremental pulls)", func(o *pipeline.Options) { o.Force = true }, func(res *pipeline.Result) error {
			if lists, subs := reloaded(res); res.MembersOK != res.Members || lists == 0 || lists == subs {
				return fmt.Errorf("%d of %d members pulled, %d of %d payment lists: want all members, some lists",
					res.MembersOK, res.Members, lists, subs)
			}
			return nil
		}},
		{"a --force --full-refresh run", func(o *pipeline.Options) { o.Force, o.FullRefresh = true, true }, func(res *pipeline.Result) error {
			if lists, subs := reloaded(res); lists != subs {
				return fmt.Errorf("%d of %d payment lists pulled, want all", lists, subs)
			}
			return nil
		}},
	} {
		res := run.Again(t, again.change)
		if err := again.check(res); err != nil {
			t.Errorf("%s: %v", again.name, err)
		}
		now := fingerprint(t, run.Store)
		for _, k := range slices.Sorted(maps.Keys(first)) {
			if now[k] != first[k] {
				t.Errorf("after %s: %s is %s, %s after the first run", again.name, k, now[k], first[k])
			}
		}
		for k := range now {
			if _, ok := first[k]; !ok {
				t.Errorf("after %s: %s appeared", again.name, k)
			}
		}
	}
}

// fingerprint is, for every table of the database, its row count ("<table>
// rows") and the sum of each of its DECIMAL columns ("<table>.<column>").
func fingerprint(t *testing.T, s *store.Store) map[string]string {
	t.Helper()
	ctx := context.Background()
	rows, err := s.Conn().QueryContext(ctx, `SELECT t.table_name, coalesce(list(c.column_name ORDER BY c.column_index) FILTER (WHERE c.data_type LIKE 'DECIMAL%'), [])
		FROM duckdb_tables() t JOIN duckdb_columns() c USING (database_name, schema_name, table_name)
		WHERE t.database_name = current_database() AND t.schema_name = 'main' GROUP BY t.table_name`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	tables := map[string][]string{}
	for rows.Next() {
		var table string
		var cols []any
		if err := rows.Scan(&table, &cols); err != nil {
			t.Fatal(err)
		}
		tables[table] = []string{}
		for _, c := range cols {
			tables[table] = append(tables[table], c.(string))
		}
	}
	if err := rows.Close(); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for table, cols := range tables {
		exprs := []string{"CAST(count(*) AS VARCHAR)"}
		for _, c := range cols {
			exprs = append(exprs, fmt.Sprintf("coalesce(CAST(sum(%s) AS VARCHAR), 'NULL')", c))
		}
		vals := make([]any, len(exprs))
		ptrs := make([]string, len(exprs))
		for i := range vals {
			vals[i] = &ptrs[i]
		}
		q := fmt.Sprintf("SELECT %s FROM %s", strings.Join(exprs, ", "), table)
		if err := s.Conn().QueryRowContext(ctx, q).Scan(vals...); err != nil {
			t.Fatal(err)
		}
		out[table+" rows"] = ptrs[0]
		for i, c := range cols {
			out[table+"."+c] = ptrs[i+1]
		}
	}
	return out
}
