-- Changes to the working database for files an older version made.
-- schema.sql creates a new file's tables in their current shape; this file
-- brings an existing file to the same shape, columns in the same order. It
-- runs after schema.sql on every open, so every statement is idempotent (IF
-- NOT EXISTS, or a backfill that matches no row once done). A new column
-- goes at the end of its table in schema.sql and here, as an ALTER TABLE
-- ... ADD COLUMN IF NOT EXISTS (TestMigrationsOnAnOlderFile compares an
-- older file, migrated, with a new one).

-- Day over day: each of a run's findings says whether it is new since the
-- previous run or still open, and findings of the previous run that are gone
-- are kept under the run as resolved. Rows written before the column existed
-- get new or open from their first_seen_run.
ALTER TABLE findings ADD COLUMN IF NOT EXISTS state VARCHAR;
UPDATE findings SET state = CASE WHEN first_seen_run = run_id THEN 'new' ELSE 'open' END
WHERE state IS NULL;

-- The run a run's findings were compared with, so reports need not work out
-- "previous" again (and could not, once later runs exist).
ALTER TABLE runs ADD COLUMN IF NOT EXISTS previous_run VARCHAR;

-- The facts calls.Inspect derives from each journaled call, added by the
-- payments audit. Rows imported before them have inspect_version NULL and
-- are inspected again by the next run (ingest.ReinspectJournal).
ALTER TABLE journal ADD COLUMN IF NOT EXISTS purchase_order_number VARCHAR;
ALTER TABLE journal ADD COLUMN IF NOT EXISTS level3_missing VARCHAR;
ALTER TABLE journal ADD COLUMN IF NOT EXISTS percent_rates VARCHAR;
ALTER TABLE journal ADD COLUMN IF NOT EXISTS response_status VARCHAR;
ALTER TABLE journal ADD COLUMN IF NOT EXISTS network_transaction_id VARCHAR;
ALTER TABLE journal ADD COLUMN IF NOT EXISTS approval_code VARCHAR;
ALTER TABLE journal ADD COLUMN IF NOT EXISTS commerce_indicator VARCHAR;
ALTER TABLE journal ADD COLUMN IF NOT EXISTS initiator_type VARCHAR;
ALTER TABLE journal ADD COLUMN IF NOT EXISTS credential_stored BOOLEAN;
ALTER TABLE journal ADD COLUMN IF NOT EXISTS stored_credential_used BOOLEAN;
ALTER TABLE journal ADD COLUMN IF NOT EXISTS mit_reason VARCHAR;
ALTER TABLE journal ADD COLUMN IF NOT EXISTS previous_transaction_id VARCHAR;
ALTER TABLE journal ADD COLUMN IF NOT EXISTS action_list VARCHAR;
ALTER TABLE journal ADD COLUMN IF NOT EXISTS product_subtype VARCHAR;
ALTER TABLE journal ADD COLUMN IF NOT EXISTS healthcare_amount DECIMAL(18,3);
ALTER TABLE journal ADD COLUMN IF NOT EXISTS healthcare_detail_amount DECIMAL(18,3);
ALTER TABLE journal ADD COLUMN IF NOT EXISTS healthcare_amount_count INTEGER;
ALTER TABLE journal ADD COLUMN IF NOT EXISTS payment_type VARCHAR;
ALTER TABLE journal ADD COLUMN IF NOT EXISTS session_token VARCHAR;
ALTER TABLE journal ADD COLUMN IF NOT EXISTS country VARCHAR;
ALTER TABLE journal ADD COLUMN IF NOT EXISTS installment_id VARCHAR;
ALTER TABLE journal ADD COLUMN IF NOT EXISTS plan_id VARCHAR;
ALTER TABLE journal ADD COLUMN IF NOT EXISTS ref_network_transaction_id VARCHAR;
ALTER TABLE journal ADD COLUMN IF NOT EXISTS ref_authorization_code VARCHAR;
ALTER TABLE journal ADD COLUMN IF NOT EXISTS refund_amount DECIMAL(18,3);
ALTER TABLE journal ADD COLUMN IF NOT EXISTS payment_solution VARCHAR;
ALTER TABLE journal ADD COLUMN IF NOT EXISTS wallet_data BOOLEAN;
ALTER TABLE journal ADD COLUMN IF NOT EXISTS terminal_id VARCHAR;
ALTER TABLE journal ADD COLUMN IF NOT EXISTS inspect_version INTEGER;

-- Acknowledgements: an acknowledged finding names its acknowledgement's
-- owner, reason, end date and ticket (the tables of acknowledgements are
-- created whole by schema.sql).
ALTER TABLE findings ADD COLUMN IF NOT EXISTS ack_owner VARCHAR;
ALTER TABLE findings ADD COLUMN IF NOT EXISTS ack_reason VARCHAR;
ALTER TABLE findings ADD COLUMN IF NOT EXISTS ack_until DATE;
ALTER TABLE findings ADD COLUMN IF NOT EXISTS ack_ticket VARCHAR;

-- What the card-network retry checks read of each call: its card's type
-- code and how the issuer answered a decline (the network's response code,
-- the merchant advice codes). Rows imported before them are inspected
-- again by the next run (inspect_version 5).
ALTER TABLE journal ADD COLUMN IF NOT EXISTS card_type VARCHAR;
ALTER TABLE journal ADD COLUMN IF NOT EXISTS processor_response_code VARCHAR;
ALTER TABLE journal ADD COLUMN IF NOT EXISTS merchant_advice_code VARCHAR;
ALTER TABLE journal ADD COLUMN IF NOT EXISTS merchant_advice_code_raw VARCHAR;

-- The merchant's order number of each call, which the retry kinds' sheets
-- show (inspect_version 6).
ALTER TABLE journal ADD COLUMN IF NOT EXISTS client_reference VARCHAR;

-- The products (recurring billing, transaction search) that answered "not
-- enabled" for a member, and the platform's words: such a member is
-- reconciled on its other products (ingest/notenabled.go).
ALTER TABLE run_members ADD COLUMN IF NOT EXISTS products_not_enabled VARCHAR;
ALTER TABLE run_members ADD COLUMN IF NOT EXISTS not_enabled_message VARCHAR;

-- Amounts keep three decimals, the minor unit of KWD, BHD, JOD, OMR and
-- TND (platform.AmountDecimals): a file whose amounts are DECIMAL(18,2)
-- widens them, every stored value kept exactly. On a file already widened
-- these change nothing (DuckDB has no conditional ALTER; each costs a scan
-- of its column on open). Before views.sql, so the views take the new
-- types.
ALTER TABLE plans ALTER COLUMN billing_amount TYPE DECIMAL(18,3);
ALTER TABLE plans ALTER COLUMN setup_fee TYPE DECIMAL(18,3);
ALTER TABLE subscriptions ALTER COLUMN billing_amount TYPE DECIMAL(18,3);
ALTER TABLE subscriptions ALTER COLUMN setup_fee TYPE DECIMAL(18,3);
ALTER TABLE subscription_payments ALTER COLUMN billing_amount TYPE DECIMAL(18,3);
ALTER TABLE subscription_payments ALTER COLUMN setup_fee TYPE DECIMAL(18,3);
ALTER TABLE subscription_payments ALTER COLUMN surcharge_amount TYPE DECIMAL(18,3);
ALTER TABLE transactions ALTER COLUMN amount TYPE DECIMAL(18,3);
ALTER TABLE journal ALTER COLUMN amount TYPE DECIMAL(18,3);
ALTER TABLE journal ALTER COLUMN healthcare_amount TYPE DECIMAL(18,3);
ALTER TABLE journal ALTER COLUMN healthcare_detail_amount TYPE DECIMAL(18,3);
ALTER TABLE journal ALTER COLUMN refund_amount TYPE DECIMAL(18,3);
ALTER TABLE findings ALTER COLUMN amount TYPE DECIMAL(18,3);
ALTER TABLE interchange_at_risk ALTER COLUMN amount TYPE DECIMAL(18,3);
ALTER TABLE interchange_at_risk ALTER COLUMN at_risk TYPE DECIMAL(18,3);
ALTER TABLE subscription_schedules ALTER COLUMN monthly_amount TYPE DECIMAL(18,3);
ALTER TABLE expected_cycles ALTER COLUMN billing_amount TYPE DECIMAL(18,3);
ALTER TABLE expected_cycles ALTER COLUMN setup_fee TYPE DECIMAL(18,3);
ALTER TABLE subscription_recoveries ALTER COLUMN amount TYPE DECIMAL(18,3);
ALTER TABLE delinquency_ageing ALTER COLUMN amount_at_risk TYPE DECIMAL(18,3);
ALTER TABLE subscription_metrics ALTER COLUMN mrr TYPE DECIMAL(18,3);
ALTER TABLE subscription_metrics ALTER COLUMN mrr_at_risk TYPE DECIMAL(18,3);
ALTER TABLE subscription_metrics ALTER COLUMN deferred_amount TYPE DECIMAL(18,3);
ALTER TABLE billing_match ALTER COLUMN amount TYPE DECIMAL(18,3);
ALTER TABLE billing_match ALTER COLUMN found_amount TYPE DECIMAL(18,3);
ALTER TABLE acknowledgements ALTER COLUMN amount TYPE DECIMAL(18,3);

-- The tables and views a file held when its schema was applied, beside the
-- schema's digest (store.Open).
ALTER TABLE schema_digest ADD COLUMN IF NOT EXISTS objects INTEGER;
