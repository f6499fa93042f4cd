package ingest

import "github.com/reconcile/reconcile/internal/store"

// The tables ingest loads, as its batches fill them: each column in the
// order the conversions give it (store.Batch), with the table's key and
// scope (store.Table). Member data is scoped by merchant ID, journal rows
// by file and journal files by their content's SHA-256, so a member's or a
// file's first load is a plain insert.
var (
	plansTable = store.NewTable("plans", []string{"merchant_id", "plan_id"}, "merchant_id", store.Columns(
		"merchant_id text, plan_id text, code text, name text, description text, status text, "+
			"billing_period_length int32, billing_period_unit text, cycles_total int32, "+
			"billing_amount amount, setup_fee amount, currency text, raw json, run_id text, loaded_at time")...)
	subscriptionsTable = store.NewTable("subscriptions", []string{"merchant_id", "subscription_id"}, "merchant_id", store.Columns(
		"merchant_id text, subscription_id text, code text, plan_id text, plan_code text, name text, status text, "+
			"start_date time, customer_id text, client_reference text, billing_amount amount, setup_fee amount, currency text, "+
			"billing_period_length int32, billing_period_unit text, cycles_total int32, cycles_current int32, "+
			"payments_total_count int32, billing_cycles_to_skip json, cycles_completed json, payments_pulled_at time, "+
			"raw json, run_id text, loaded_at time")...)
	paymentsTable = store.NewTable("subscription_payments", []string{"merchant_id", "payment_id"}, "merchant_id", store.Columns(
		"merchant_id text, payment_id text, subscription_id text, status text, payment_type text, "+
			"billing_cycle int32, payment_number int32, payment_date time, billing_start_date time, billing_end_date time, "+
			"billing_amount amount, setup_fee amount, surcharge_amount amount, surcharge_description text, currency text, "+
			"transaction_id text, modifiable bool, raw json, run_id text, loaded_at time")...)
	transactionsTable = store.NewTable("transactions", []string{"merchant_id", "transaction_id"}, "merchant_id", store.Columns(
		"merchant_id text, transaction_id text, submit_time time, status text, reason_code text, r_code text, r_flag text, "+
			"application_names text, applications json, amount amount, currency text, card_bin text, card_last4 text, card_type text, "+
			"customer_id text, instrument_identifier_id text, payment_solution text, commerce_indicator text, "+
			"business_application_id text, client_reference text, raw json, run_id text, loaded_at time")...)
	schedulesTable = store.NewTable("subscription_schedules", []string{"merchant_id", "subscription_id"}, "merchant_id", store.Columns(
		"merchant_id text, subscription_id text, period_unit text, period_length int32, cycles_total int32, start_date time, "+
			"cut_off time, cycles_due int32, last_due_date time, next_due_date time, projection_cut bool, retry_limit int32, "+
			"retry_interval interval, retry_tolerance interval, within_12_months bool, monthly_amount amount, currency text, "+
			"problem text, run_id text, loaded_at time")...)
	expectedCyclesTable = store.NewTable("expected_cycles", []string{"merchant_id", "subscription_id", "cycle"}, "merchant_id", store.Columns(
		"merchant_id text, subscription_id text, cycle int32, due_date time, billing_amount amount, setup_fee amount, "+
			"currency text, run_id text, loaded_at time")...)
	runMembersTable = store.NewTable("run_members", []string{"run_id", "merchant_id"}, "", store.Columns(
		"run_id text, merchant_id text, status text, error text, started_at time, finished_at time, "+
			"plans int32, subscriptions int32, payments int32, transactions int32, requests int64, retries int64, "+
			"products_not_enabled text, not_enabled_message text")...)
	keptAsideTable = store.NewTable("kept_aside", []string{"run_id", "merchant_id", "record", "record_id"}, "", store.Columns(
		"run_id text, merchant_id text, record text, record_id text, field text, value text, currency text, reason text, "+
			"raw json, loaded_at time")...)
	groupsTable = store.NewTable("groups", []string{"group_id"}, "", store.Columns(
		"group_id text, organization_id text, name text, description text, type text, "+
			"created_time time, updated_time time, raw json, run_id text, loaded_at time")...)
	groupMembersTable = store.NewTable("group_members", []string{"group_id", "merchant_id"}, "", store.Columns(
		"group_id text, merchant_id text, run_id text")...)
	binAttributesTable = store.NewTable("bin_attributes", []string{"bin"}, "", store.Columns(
		"bin text, lookup_status text, resolved_by text, funding_source text, funding_source_sub_type text, "+
			"card_platform text, card_product text, health_card bool, brand text, card_type text, "+
			"issuer_name text, issuer_country text, raw json, looked_up_at time")...)
	journalFilesTable = store.NewTable("journal_files", []string{"sha256"}, "sha256", store.Columns(
		"sha256 text, file text, lines int32, loaded int32, rejected int32, imported_at time")...)
	journalRejectsTable = store.NewTable("journal_rejects", []string{"file", "line"}, "file", store.Columns(
		"file text, line int32, reason text, text text, file_sha256 text, imported_at time")...)
	journalTable = store.NewTable("journal", []string{"merchant_id", "file", "line"}, "file", store.Columns(
		"merchant_id text, file text, line int32, time time, method text, path text, status int32, "+
			journalFactColumns+", request json, response json, file_sha256 text, imported_at time")...)
	// journalFactsTable is the part of journal that ReinspectJournal sets
	// again, by key.
	journalFactsTable = store.NewTable("journal", []string{"merchant_id", "file", "line"}, "", store.Columns(
		"merchant_id text, file text, line int32, path text, request json, response json, "+journalFactColumns)...)
)
