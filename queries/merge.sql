-- `reconcile merge` (package merge): one publication from the shards of a
-- business date. The merge builds a new working database (schema.sql) and
-- fills it from each shard's published snapshot, attached read-only as the
-- catalog `shard`, one shard at a time; then the publish step writes the
-- workbook, the Parquet datasets and the snapshot from it, as after a run.
--
-- What the merged database holds:
--   the run's tables (interchange_at_risk and the recurring-billing
--     reports): the date's rows of every shard; run_members and findings:
--     every run's rows (the history the alarms read, --alarms). The
--     shards already computed each finding's state and each subscription's
--     change against its member's previous run (docs/scale.md: "previous
--     run" across shards), so the merge copies them; it compares nothing;
--   runs: one row per run ID the shards hold (their history, merged), so
--     the previous run and the run each finding was first seen in read as
--     after a full run;
--   the members' data (plans, subscriptions, payments, transactions,
--     schedules, expected cycles, interchange clearing records,
--     chargebacks, retrievals): each member's rows from the shard that
--     loaded it last (merge_owners);
--   acknowledgements and their audit: each member's from the shard that
--     took it (the audit numbered again, oldest first);
--   what every shard holds a copy of (groups, group memberships, journal
--     files, merchant names, BIN attributes, finding kinds, the rate and
--     retry-limit tables): each once
--     (BIN attributes: the lookup a run over every member makes,
--     BINAttributes).
--
-- The statements named after a table copy it from the attached shard; they
-- take no parameters and read the DuckDB variables merge_run_id (the
-- date's run ID) and merge_shard_index (the attached shard's i), set by
-- the merge. Each is INSERT ... SELECT, so DuckDB streams the rows from
-- one file to the other; nothing is read into the program. BY NAME matches
-- columns by name, so a snapshot of an older schema (a column it lacks)
-- still merges.

-- name: CreateMergeTables
-- The merge's own working tables, temporary (never in the snapshot): the
-- members each shard loaded, with the latest run that loaded each; the
-- shards' rows of runs; their BIN lookups, and per BIN the lowest member
-- whose transactions carry a token for it.
CREATE OR REPLACE TEMP TABLE merge_loads (shard_index INTEGER NOT NULL, merchant_id VARCHAR NOT NULL, run_id VARCHAR NOT NULL);
CREATE OR REPLACE TEMP TABLE merge_runs AS SELECT 0 AS shard_index, * FROM runs LIMIT 0;
CREATE OR REPLACE TEMP TABLE merge_bins AS SELECT 0 AS shard_index, * FROM bin_attributes LIMIT 0;
CREATE OR REPLACE TEMP TABLE merge_bin_tokens (shard_index INTEGER NOT NULL, bin VARCHAR NOT NULL, merchant_id VARCHAR NOT NULL);
CREATE OR REPLACE TEMP TABLE merge_audit AS SELECT 0 AS shard_index, * FROM acknowledgement_audit LIMIT 0;

-- name: ShardTables
-- The base tables of the attached shard's snapshot (its views are never
-- read: a view runs its own SQL, a table only holds rows).
SELECT table_name FROM duckdb_tables() WHERE database_name = 'shard' AND schema_name = 'main'

-- name: ShardRun
-- The attached shard's run of the date: its shard (i/n) and status.
-- $1 = run ID.
SELECT coalesce(shard, '0/1'), status FROM shard.runs WHERE run_id = $1

-- name: ShardMembers
-- The members the attached shard's run of the date took, for the check
-- that each one hashes to the shard. $1 = run ID.
SELECT merchant_id FROM shard.run_members WHERE run_id = $1

-- name: CollectLoads
-- Each member the attached shard ever loaded, with the latest run that
-- did. $1 = the shard's i.
INSERT INTO merge_loads
SELECT $1, merchant_id, max(run_id) FROM shard.run_members WHERE status = 'ok' GROUP BY merchant_id

-- name: CollectBINTokens
-- Per BIN, the lowest member of the attached shard whose transactions
-- carry a token for it (customer or instrument identifier), which a
-- lookup that answered MULTIPLE retries with. $1 = the shard's i.
INSERT INTO merge_bin_tokens
SELECT $1, card_bin, min(merchant_id) FROM shard.transactions
WHERE card_bin IS NOT NULL AND (customer_id IS NOT NULL OR instrument_identifier_id IS NOT NULL)
GROUP BY card_bin

-- name: CollectRuns
-- The attached shard's rows of runs, every date. $1 = the shard's i.
INSERT INTO merge_runs BY NAME SELECT $1 AS shard_index, * FROM shard.runs

-- name: Owners
-- Which shard each member's data is taken from: the one whose run loaded
-- it last (ties, which only a changed n makes, to the lower i). On a
-- night like the others that is the shard the member hashes to; after n
-- changed, an older shard file may still hold members another shard now
-- takes, and their newer copy wins.
CREATE OR REPLACE TEMP TABLE merge_owners AS
SELECT DISTINCT ON (merchant_id) merchant_id, shard_index
FROM merge_loads
ORDER BY merchant_id, run_id DESC, shard_index

-- name: groups
-- Every shard lists the whole directory: the latest listing of each group.
INSERT INTO groups BY NAME SELECT * FROM shard.groups
ON CONFLICT (group_id) DO UPDATE SET
    organization_id = excluded.organization_id, name = excluded.name, description = excluded.description,
    type = excluded.type, created_time = excluded.created_time, updated_time = excluded.updated_time,
    raw = excluded.raw, run_id = excluded.run_id, loaded_at = excluded.loaded_at
WHERE excluded.loaded_at > groups.loaded_at

-- name: group_members
-- Every membership any shard listed, with the latest run that listed it.
INSERT INTO group_members BY NAME SELECT * FROM shard.group_members
ON CONFLICT (group_id, merchant_id) DO UPDATE SET run_id = excluded.run_id
WHERE excluded.run_id > group_members.run_id

-- name: plans
INSERT INTO plans BY NAME SELECT * FROM shard.plans
WHERE merchant_id IN (SELECT merchant_id FROM merge_owners WHERE shard_index = getvariable('merge_shard_index'))

-- name: subscriptions
INSERT INTO subscriptions BY NAME SELECT * FROM shard.subscriptions
WHERE merchant_id IN (SELECT merchant_id FROM merge_owners WHERE shard_index = getvariable('merge_shard_index'))

-- name: subscription_payments
INSERT INTO subscription_payments BY NAME SELECT * FROM shard.subscription_payments
WHERE merchant_id IN (SELECT merchant_id FROM merge_owners WHERE shard_index = getvariable('merge_shard_index'))

-- name: transactions
INSERT INTO transactions BY NAME SELECT * FROM shard.transactions
WHERE merchant_id IN (SELECT merchant_id FROM merge_owners WHERE shard_index = getvariable('merge_shard_index'))

-- name: interchange_clearing
-- The Reporting API's records (ingest/disputes.go), each member's from
-- the shard that loaded it last, as its other data.
INSERT INTO interchange_clearing BY NAME SELECT * FROM shard.interchange_clearing
WHERE merchant_id IN (SELECT merchant_id FROM merge_owners WHERE shard_index = getvariable('merge_shard_index'))

-- name: chargebacks
INSERT INTO chargebacks BY NAME SELECT * FROM shard.chargebacks
WHERE merchant_id IN (SELECT merchant_id FROM merge_owners WHERE shard_index = getvariable('merge_shard_index'))

-- name: retrievals
INSERT INTO retrievals BY NAME SELECT * FROM shard.retrievals
WHERE merchant_id IN (SELECT merchant_id FROM merge_owners WHERE shard_index = getvariable('merge_shard_index'))

-- name: subscription_schedules
INSERT INTO subscription_schedules BY NAME SELECT * FROM shard.subscription_schedules
WHERE merchant_id IN (SELECT merchant_id FROM merge_owners WHERE shard_index = getvariable('merge_shard_index'))

-- name: expected_cycles
INSERT INTO expected_cycles BY NAME SELECT * FROM shard.expected_cycles
WHERE merchant_id IN (SELECT merchant_id FROM merge_owners WHERE shard_index = getvariable('merge_shard_index'))

-- name: journal
-- Every shard imports every journal file (all members' lines): a file's
-- lines once, from the first shard that holds it. A file is imported
-- whole with its journal_files row, so its content hash names its lines;
-- journal_files is merged after this.
INSERT INTO journal BY NAME SELECT * FROM shard.journal
WHERE file_sha256 NOT IN (SELECT sha256 FROM journal_files)

-- name: journal_rejects
-- A file's rejected lines, as its lines.
INSERT INTO journal_rejects BY NAME SELECT * FROM shard.journal_rejects
WHERE file_sha256 NOT IN (SELECT sha256 FROM journal_files)
ON CONFLICT DO NOTHING

-- name: journal_files
INSERT INTO journal_files BY NAME SELECT * FROM shard.journal_files
ON CONFLICT DO NOTHING

-- name: bin_attributes
-- Every shard's lookups, collected (merge_bins); the BINs are chosen among
-- them once every shard is read (BINAttributes).
INSERT INTO merge_bins BY NAME SELECT getvariable('merge_shard_index') AS shard_index, * FROM shard.bin_attributes

-- name: finding_kinds
-- The same catalog in every shard (they ran one version).
INSERT INTO finding_kinds BY NAME SELECT * FROM shard.finding_kinds
ON CONFLICT DO NOTHING

-- name: interchange_rates
-- The same table in every shard (the merge checked its hash).
INSERT INTO interchange_rates BY NAME SELECT * FROM shard.interchange_rates
ON CONFLICT DO NOTHING

-- name: retry_limits
-- The same table in every shard (the merge checked its hash): the first
-- shard's (the table has no key; a run replaces it whole).
INSERT INTO retry_limits BY NAME SELECT * FROM shard.retry_limits
WHERE NOT EXISTS (SELECT 1 FROM retry_limits)

-- name: run_members
-- Every run's members, the date's and the earlier runs': the history the
-- alarms read (a member the previous run reconciled and this one lost),
-- as a full run's database holds it. A row of an earlier run is in the
-- shard that took the member then; two shards hold one only when a date
-- was run again after n changed, and then the first shard's is kept.
INSERT INTO run_members BY NAME SELECT * FROM shard.run_members
ON CONFLICT DO NOTHING

-- name: kept_aside
-- Every run's records kept aside (an amount with more decimals than its
-- currency has), as run_members: a member's rows are in the shard that
-- took it; a row two shards hold keeps the first's.
INSERT INTO kept_aside BY NAME SELECT * FROM shard.kept_aside
ON CONFLICT DO NOTHING

-- name: findings
-- Every run's findings in every state, resolved ones included: the
-- date's, and the earlier runs' the alarms' trailing medians read. Two
-- shards hold one finding of a run only as two members' rows can (above).
INSERT INTO findings BY NAME SELECT * FROM shard.findings
ON CONFLICT DO NOTHING

-- name: merchant_names
-- Every shard imports every journal file, so each names the same
-- merchants; every run's names once, as the findings' history.
INSERT INTO merchant_names BY NAME SELECT * FROM shard.merchant_names
ON CONFLICT DO NOTHING

-- name: acknowledgements
-- The acknowledgements in force are those of the shard that took the
-- member (it applied them to the member's findings); one for a merchant
-- no shard took (an acknowledgements file names any merchant, and every
-- shard syncs it) from the first shard that holds it.
INSERT INTO acknowledgements BY NAME SELECT * FROM shard.acknowledgements
WHERE merchant_id IN (SELECT merchant_id FROM merge_owners WHERE shard_index = getvariable('merge_shard_index'))
   OR merchant_id NOT IN (SELECT merchant_id FROM merge_owners)
ON CONFLICT DO NOTHING

-- name: acknowledgement_audit
-- The audit of the same acknowledgements, chosen as they are above,
-- collected (merge_audit) and numbered once every shard is read
-- (AcknowledgementAudit).
INSERT INTO merge_audit BY NAME
SELECT getvariable('merge_shard_index') AS shard_index, a.* FROM shard.acknowledgement_audit a
WHERE a.merchant_id IN (SELECT merchant_id FROM merge_owners WHERE shard_index = getvariable('merge_shard_index'))
   OR (a.merchant_id NOT IN (SELECT merchant_id FROM merge_owners)
       AND NOT EXISTS (SELECT 1 FROM merge_audit m
                       WHERE (m.kind, m.merchant_id, m.entity_id) = (a.kind, a.merchant_id, a.entity_id)))

-- name: interchange_at_risk
INSERT INTO interchange_at_risk BY NAME SELECT * FROM shard.interchange_at_risk
WHERE run_id = getvariable('merge_run_id')

-- name: subscription_status_log
INSERT INTO subscription_status_log BY NAME SELECT * FROM shard.subscription_status_log
WHERE run_id = getvariable('merge_run_id')

-- name: subscription_recoveries
INSERT INTO subscription_recoveries BY NAME SELECT * FROM shard.subscription_recoveries
WHERE run_id = getvariable('merge_run_id')

-- name: delinquency_ageing
INSERT INTO delinquency_ageing BY NAME SELECT * FROM shard.delinquency_ageing
WHERE run_id = getvariable('merge_run_id')

-- name: subscription_metrics
INSERT INTO subscription_metrics BY NAME SELECT * FROM shard.subscription_metrics
WHERE run_id = getvariable('merge_run_id')

-- name: billing_match
INSERT INTO billing_match BY NAME SELECT * FROM shard.billing_match
WHERE run_id = getvariable('merge_run_id')

-- name: upgrades
-- The once-only changes made to the shards' files (they ran one version).
INSERT INTO upgrades BY NAME SELECT * FROM shard.upgrades
ON CONFLICT DO NOTHING

-- name: runs
-- One row per run ID from the shards' rows (merge_runs): shard lists the
-- shards merged (0/4,1/4,...); counts, requests and retries add up; the
-- window, start and end span them; the status is ok when every shard's
-- was, failed when every shard's was, partial otherwise; the error names
-- each shard's; the previous run is the latest any shard compared with
-- (the same one on a night every shard ran).
INSERT INTO runs
SELECT run_id, any_value(business_date),
       string_agg(coalesce(shard, '0/1'), ',' ORDER BY shard_index),
       min(window_start), max(window_end), min(started_at), max(finished_at),
       CASE WHEN bool_and(status = 'ok') THEN 'ok' WHEN bool_and(status = 'failed') THEN 'failed' ELSE 'partial' END,
       max(attempts), sum(members_total), sum(members_ok), sum(members_failed), sum(members_skipped),
       sum(requests), sum(retries), sum(findings),
       string_agg(CASE WHEN error IS NOT NULL THEN 'shard ' || coalesce(shard, '0/1') || ': ' || error END, '; ' ORDER BY shard_index),
       any_value(version), max(previous_run)
FROM merge_runs
GROUP BY run_id

-- name: BINAttributes
-- One lookup per BIN from the shards' (merge_bins). A BIN that answers
-- MULTIPLE is resolved with a token from the transactions of the lowest
-- member carrying one (ingest's TokensForBIN), and a different card's
-- token may resolve it differently; so the lookup of the shard that holds
-- the lowest such member of them all is taken, which is the one a run
-- over every member makes. Otherwise a lookup that resolved the BIN
-- (COMPLETED), else the latest.
INSERT INTO bin_attributes BY NAME
SELECT * EXCLUDE (shard_index, pick) FROM (
    SELECT b.*, row_number() OVER (
        PARTITION BY b.bin
        ORDER BY b.shard_index IS NOT DISTINCT FROM t.shard_index DESC, b.lookup_status = 'COMPLETED' DESC,
                 b.looked_up_at DESC, b.shard_index) AS pick
    FROM merge_bins b
    LEFT JOIN (
        SELECT k.bin, arg_min(o.shard_index, k.merchant_id) AS shard_index
        FROM merge_bin_tokens k JOIN merge_owners o ON o.merchant_id = k.merchant_id
        GROUP BY k.bin
    ) t ON t.bin = b.bin
)
WHERE pick = 1

-- name: AcknowledgementAudit
-- The shards' audit rows (merge_audit) numbered again, oldest first: each
-- shard numbered its own from 1.
INSERT INTO acknowledgement_audit BY NAME
SELECT * EXCLUDE (shard_index, seq),
       row_number() OVER (ORDER BY changed_at, shard_index, seq) AS seq
FROM merge_audit

-- name: DirectoryMembers
-- The members of the directory the date's runs listed. $1 = run ID.
SELECT DISTINCT merchant_id FROM group_members WHERE run_id = $1 ORDER BY 1

-- name: MissingMembers
-- The members of shards the merge was allowed to leave out, as failed
-- members of the run with the reason. $1 = run ID, $2 = merchant IDs,
-- $3 = the reason.
INSERT INTO run_members (run_id, merchant_id, status, error)
SELECT $1, unnest($2::VARCHAR[]), 'failed', $3

-- name: MarkMissingShards
-- The run is partial, its members count those left out, and its error
-- says which shards are missing first. $1 = run ID, $2 = members left
-- out, $3 = the shards missing, as text.
UPDATE runs SET status = 'partial',
    members_total = coalesce(members_total, 0) + $2, members_failed = coalesce(members_failed, 0) + $2,
    error = concat_ws('; ', $3::VARCHAR, error)
WHERE run_id = $1

-- name: MemberCounts
-- The run's members by status (ok, failed). $1 = run ID.
SELECT status, count(*) FROM run_members WHERE run_id = $1 GROUP BY status

-- name: MergedRun
-- The merged run of the date, for the publish step. $1 = run ID.
SELECT status, started_at, finished_at, window_start, window_end FROM runs WHERE run_id = $1

-- The settlement stage's tables (ingest/settlement.go): each row is the
-- member's that the shard owns (a group's funding is filed under the
-- group's first member, so one shard writes it).

-- name: settlements
INSERT INTO settlements BY NAME SELECT * FROM shard.settlements
WHERE merchant_id IN (SELECT merchant_id FROM merge_owners WHERE shard_index = getvariable('merge_shard_index'))

-- name: fundings
INSERT INTO fundings BY NAME SELECT * FROM shard.fundings
WHERE merchant_id IN (SELECT merchant_id FROM merge_owners WHERE shard_index = getvariable('merge_shard_index'))

-- name: settlement_batches
INSERT INTO settlement_batches BY NAME SELECT * FROM shard.settlement_batches
WHERE merchant_id IN (SELECT merchant_id FROM merge_owners WHERE shard_index = getvariable('merge_shard_index'))
