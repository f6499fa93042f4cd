-- The statements of package ingest, beside the bulk loads it generates from
-- table and column names (store.Upsert). Named blocks, read with
-- queries.Must.

-- name: StoredPaymentLists
-- What the database holds of the subscriptions of members $1 (a list)
-- whose payment list was pulled: the record and status the incremental
-- rule compares, when the list was pulled, its totals, its next scheduled
-- payment and its latest failed one. Members are read a chunk at a time
-- (ingest/stored.go): a member's rows cannot be found without reading the
-- merchant IDs of the whole table, so one query per member read the
-- tables once per member. The members' payments are aggregated first, in
-- a CTE: as correlated subqueries DuckDB aggregated every member's
-- scheduled and failed payments into a hash table for each member it was
-- asked about (out of memory at a 122 MB limit with 50 members).
WITH asked AS (
    SELECT unnest($1::VARCHAR[]) AS merchant_id
),
dates AS (
    SELECT merchant_id, subscription_id,
           min(payment_date) FILTER (WHERE status IN ('SCHEDULED', 'SCHEDULED_SKIPPED')) AS next_scheduled,
           max(payment_date) FILTER (WHERE status = 'FAILED') AS last_failed
    FROM subscription_payments
    SEMI JOIN asked USING (merchant_id)
    WHERE status IN ('SCHEDULED', 'SCHEDULED_SKIPPED', 'FAILED')
    GROUP BY merchant_id, subscription_id
)
SELECT s.merchant_id, s.subscription_id, CAST(s.raw AS VARCHAR), s.status, s.payments_pulled_at,
       s.payments_total_count, CAST(s.billing_cycles_to_skip AS VARCHAR), CAST(s.cycles_completed AS VARCHAR),
       d.next_scheduled, d.last_failed
FROM subscriptions s
SEMI JOIN asked USING (merchant_id)
LEFT JOIN dates d ON d.merchant_id = s.merchant_id AND d.subscription_id = s.subscription_id
WHERE s.payments_pulled_at IS NOT NULL

-- name: ImportedJournals
-- The contents (SHA-256) of the journal files already imported.
SELECT sha256 FROM journal_files

-- name: JournalToInspectAgain
-- Up to $2 journal rows inspected by another version than $1, with what
-- the inspection reads.
SELECT merchant_id, file, line, method, path, CAST(request AS VARCHAR), CAST(response AS VARCHAR), status
FROM journal
WHERE inspect_version IS DISTINCT FROM $1
LIMIT $2

-- name: BINsToLookUp
-- The BINs carried by the in-window transactions of run $3's reconciled
-- members and by journal calls in the window [$1, $2) that need a lookup:
-- never looked up, looked up before $4, or still MULTIPLE while a token
-- that might resolve them is at hand. Each comes with a member that
-- carries it, to act for: never one whose ID is stored masked (it looked
-- like a card number), which the platform would not know.
WITH seen AS (
    SELECT card_bin AS bin, merchant_id FROM transactions
    WHERE card_bin IS NOT NULL AND submit_time >= $1 AND submit_time < $2
      AND merchant_id IN (SELECT merchant_id FROM run_members WHERE run_id = $3 AND status = 'ok')
    UNION ALL
    SELECT card_bin AS bin, merchant_id FROM journal
    WHERE card_bin IS NOT NULL AND time >= $1 AND time < $2
)
SELECT s.bin, min(s.merchant_id)
FROM seen s
LEFT JOIN bin_attributes b ON b.bin = s.bin
WHERE regexp_full_match(s.bin, '[0-9]{6}') AND s.merchant_id NOT LIKE '%XXX%'
  AND (b.bin IS NULL
       OR b.looked_up_at < $4
       OR (b.lookup_status = 'MULTIPLE' AND EXISTS (
             SELECT 1 FROM transactions t
             WHERE t.card_bin = s.bin AND (t.customer_id IS NOT NULL OR t.instrument_identifier_id IS NOT NULL))))
GROUP BY s.bin
ORDER BY s.bin

-- name: TokensForBIN
-- Up to three tokens carried by transactions on BIN ?, with the member that
-- owns each (tokens are the merchant's own); none stored masked (a token or
-- member ID that looked like a card number), which the platform would not
-- know.
SELECT DISTINCT merchant_id, customer_id, instrument_identifier_id
FROM transactions
WHERE card_bin = ? AND (customer_id IS NOT NULL OR instrument_identifier_id IS NOT NULL)
  AND merchant_id NOT LIKE '%XXX%' AND coalesce(customer_id, instrument_identifier_id) NOT LIKE '%XXX%'
ORDER BY merchant_id, customer_id, instrument_identifier_id
LIMIT 3

-- name: StoredMembers
-- The members whose subscriptions the database holds: only their payment
-- lists can have been pulled before (StoredPaymentLists is not asked for
-- the others).
SELECT DISTINCT merchant_id FROM subscriptions

-- name: UpgradeDone
-- Whether the once-only change $1 was made to this file (1) or not (0).
SELECT count(*) FROM upgrades WHERE name = $1

-- name: MarkUpgradeDone
-- Records the once-only change $1 as made at $2.
INSERT INTO upgrades (name, done_at) VALUES ($1, $2) ON CONFLICT DO NOTHING

-- name: TextColumnsToMask
-- The text columns of the tables the platform's answers feed, and of those
-- derived from them, by table in column order; not the journal (whose card
-- data ReinspectJournal masks), nor the tables of the run's own files and
-- settings, nor a file's path or hash anywhere (a hash is hex: a run of its
-- digits can look like a card number, and masking it would make the file
-- look new).
SELECT c.table_name, c.column_name
FROM information_schema.columns c
JOIN information_schema.tables t
  ON t.table_catalog = c.table_catalog AND t.table_schema = c.table_schema AND t.table_name = c.table_name
WHERE c.table_catalog = current_database() AND c.table_schema = 'main' AND t.table_type = 'BASE TABLE'
  AND c.data_type IN ('VARCHAR', 'JSON')
  AND c.table_name IN ('groups', 'group_members', 'plans', 'subscriptions', 'subscription_payments', 'transactions',
                       'bin_attributes', 'runs', 'run_members', 'findings', 'journal_rejects',
                       'subscription_schedules', 'expected_cycles', 'subscription_status_log', 'subscription_recoveries',
                       'delinquency_ageing', 'subscription_metrics', 'billing_match', 'interchange_at_risk',
                       'acknowledgements', 'acknowledgement_audit')
  AND c.column_name NOT IN ('file', 'path', 'sha256', 'file_sha256')
ORDER BY c.table_name, c.ordinal_position

-- name: TransactionsForBIN
-- Up to three transactions on BIN ? whose summary carried no token, with
-- their member: their details (GET /tss/v2/transactions/{id}) may name an
-- instrument identifier, which summaries never carry. None stored masked.
SELECT merchant_id, transaction_id
FROM transactions
WHERE card_bin = ? AND customer_id IS NULL AND instrument_identifier_id IS NULL
  AND merchant_id NOT LIKE '%XXX%' AND transaction_id NOT LIKE '%XXX%'
ORDER BY merchant_id, transaction_id
LIMIT 3

-- name: DeleteClearingInWindow
-- A member's interchange clearing records whose transaction time is in
-- [?, ?): the report over that window replaces them (ingest/disputes.go).
DELETE FROM interchange_clearing WHERE merchant_id = ? AND transaction_time >= ? AND transaction_time < ?

-- name: DeleteChargebacksInWindow
-- A member's chargebacks whose time is in [?, ?), replaced by the report.
DELETE FROM chargebacks WHERE merchant_id = ? AND time >= ? AND time < ?

-- name: DeleteRetrievalsInWindow
-- A member's retrievals whose time is in [?, ?), replaced by the report.
DELETE FROM retrievals WHERE merchant_id = ? AND time >= ? AND time < ?

-- name: ReportingNotEnabled
-- A member whose key may not read its reports: "reporting" is added to the
-- products its run_members row lists as not enabled, with the platform's
-- answer (once, however often the stage runs).
UPDATE run_members
SET products_not_enabled = concat_ws(', ', nullif(products_not_enabled, ''), ?),
    not_enabled_message = concat_ws('; ', nullif(not_enabled_message, ''), ?)
WHERE run_id = ? AND merchant_id = ?
  AND NOT list_contains(string_split(coalesce(products_not_enabled, ''), ', '), ?)

-- name: MarkReportingNotEnabled
-- A member whose reports the key may not read (ingest.PullSettlement):
-- run $1, member $2, the product's name $3 and the platform's answer $4
-- are added to its run_members row as a product not enabled.
UPDATE run_members
SET products_not_enabled = CASE WHEN coalesce(products_not_enabled, '') = '' THEN $3
                                ELSE products_not_enabled || ', ' || $3 END,
    not_enabled_message = CASE WHEN coalesce(not_enabled_message, '') = '' THEN $4
                               ELSE not_enabled_message || ' | ' || $4 END
WHERE run_id = $1 AND merchant_id = $2
  AND NOT contains(coalesce(products_not_enabled, ''), $3);

-- name: DisputesLoaded
-- The members with a dispute report (clearing levels, chargebacks or
-- retrievals) loaded by run $1 (ingest.DisputesLoaded).
SELECT merchant_id FROM interchange_clearing WHERE run_id = $1
UNION SELECT merchant_id FROM chargebacks WHERE run_id = $1
UNION SELECT merchant_id FROM retrievals WHERE run_id = $1

-- name: StoredProcessorMerchants
-- The processor merchant IDs of the dispute reports' rows loaded on
-- earlier nights (their raw records keep them), with their members: how
-- an organization's chargeback or retrieval, which names no member, is
-- attributed (ingest/disputes_org.go).
SELECT DISTINCT raw->>'processorMerchantId' AS pmid, merchant_id FROM interchange_clearing WHERE coalesce(raw->>'processorMerchantId', '') <> ''
UNION SELECT DISTINCT raw->>'processorMerchantId', merchant_id FROM chargebacks WHERE coalesce(raw->>'processorMerchantId', '') <> ''
UNION SELECT DISTINCT raw->>'processorMerchantId', merchant_id FROM retrievals WHERE coalesce(raw->>'processorMerchantId', '') <> ''

-- name: TransactionOwners
-- The members whose transactions the request ids $1 are, any night.
SELECT DISTINCT transaction_id, merchant_id FROM transactions WHERE list_contains($1, transaction_id)

-- name: DisputeReportsRead
-- The members with a dispute report row from any night: their reports
-- could be read, so a quiet night (no record in the organization's
-- reports) does not ask each of them again (ingest/disputes_org.go).
SELECT merchant_id FROM interchange_clearing
UNION SELECT merchant_id FROM chargebacks
UNION SELECT merchant_id FROM retrievals

-- name: StoredPlans
-- The plans of member $1 as the database holds them, with when each was
-- loaded: the latest is when the member's plan list was last pulled (a run
-- that pulls it loads every plan listed), which the plans' maximum age is
-- measured from (ingest/plans.go).
SELECT plan_id, CAST(raw AS VARCHAR), loaded_at FROM plans WHERE merchant_id = $1
