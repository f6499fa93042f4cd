-- The statements of package checks around acknowledgements
-- (checks/acknowledgements.go): made and revoked by `reconcile ack` and a
-- run's --acknowledgements file, applied to a run's findings, ended when
-- they expire or their finding's amount changes. Named blocks, read with
-- queries.Must.
--
-- Every change is audited the same way: SnapshotAcknowledgements keeps the
-- acknowledgements as they are (their JSON, view acknowledgement_values)
-- in a temp table, the change is made, then AuditChanged and AuditEnded
-- write one acknowledgement_audit row per acknowledgement that is new,
-- changed or gone, with its JSON before and after, numbered (seq) after
-- the rows already there.

-- name: SnapshotAcknowledgements
-- The acknowledgements before a change, for AuditChanged and AuditEnded.
CREATE OR REPLACE TEMP TABLE acknowledgement_before AS SELECT * FROM acknowledgement_values

-- name: AuditChanged
-- One audit row per acknowledgement new since the snapshot (action
-- acknowledge) or different from it (action $3: change, amount_recorded).
-- $1 = when, $2 = by whom, $3 = the action of a change, $4 = source
-- (command, file <path>, run), $5 = the run, or NULL.
INSERT INTO acknowledgement_audit (seq, changed_at, changed_by, action, source, run_id, kind, merchant_id, entity_id, before, after)
SELECT (SELECT coalesce(max(seq), 0) FROM acknowledgement_audit) + row_number() OVER (ORDER BY a.kind, a.merchant_id, a.entity_id),
       $1, $2, CASE WHEN b.kind IS NULL THEN 'acknowledge' ELSE $3 END, $4, $5, a.kind, a.merchant_id, a.entity_id, b.value, a.value
FROM acknowledgement_values a
LEFT JOIN acknowledgement_before b ON b.kind = a.kind AND b.merchant_id = a.merchant_id AND b.entity_id = a.entity_id
WHERE b.kind IS NULL OR CAST(a.value AS VARCHAR) <> CAST(b.value AS VARCHAR)

-- name: AuditEnded
-- One audit row per acknowledgement of the snapshot that is gone (action
-- $3: revoke, expire, reopen). A reopened one's "after" is the amount and
-- currency its finding has in run $5 (new or open).
-- $1 = when, $2 = by whom, $3 = the action, $4 = source, $5 = the run, or NULL.
INSERT INTO acknowledgement_audit (seq, changed_at, changed_by, action, source, run_id, kind, merchant_id, entity_id, before, after)
SELECT (SELECT coalesce(max(seq), 0) FROM acknowledgement_audit) + row_number() OVER (ORDER BY b.kind, b.merchant_id, b.entity_id),
       $1, $2, $3, $4, $5, b.kind, b.merchant_id, b.entity_id, b.value,
       CASE WHEN $3 = 'reopen' THEN json_object('amount', amount_text(f.amount, f.currency), 'currency', f.currency) END
FROM acknowledgement_before b
LEFT JOIN findings f ON f.run_id = $5 AND f.kind = b.kind AND f.merchant_id = b.merchant_id AND f.entity_id = b.entity_id
WHERE NOT EXISTS (SELECT 1 FROM acknowledgements a
                  WHERE a.kind = b.kind AND a.merchant_id = b.merchant_id AND a.entity_id = b.entity_id)

-- name: DeleteExpired
-- The acknowledgements whose last day ($1, a business date) has passed.
DELETE FROM acknowledgements WHERE until < $1

-- name: RecordAmounts
-- Acknowledgements made before their finding was reported take its
-- amount and currency from run $1, which reports it new or open. $2 =
-- when.
UPDATE acknowledgements a
SET amount_recorded = true, amount = f.amount, currency = f.currency, updated_at = $2, updated_by = 'reconcile'
FROM findings f
WHERE f.run_id = $1 AND f.kind = a.kind AND f.merchant_id = a.merchant_id AND f.entity_id = a.entity_id
  AND f.state IN ('new', 'open') AND NOT a.amount_recorded

-- name: DeleteReopened
-- The acknowledgements whose finding run $1 reports (new or open) with
-- another amount or currency than the one acknowledged.
DELETE FROM acknowledgements a
WHERE a.amount_recorded
  AND EXISTS (SELECT 1 FROM findings f
              WHERE f.run_id = $1 AND f.kind = a.kind AND f.merchant_id = a.merchant_id AND f.entity_id = a.entity_id
                AND f.state IN ('new', 'open')
                AND (f.amount IS DISTINCT FROM a.amount OR f.currency IS DISTINCT FROM a.currency))

-- name: MarkAcknowledged
-- Run $1's new and open findings under an acknowledgement in force for
-- their amount are acknowledged, with its owner, reason, end and ticket.
UPDATE findings f
SET state = 'acknowledged', ack_owner = a.owner, ack_reason = a.reason, ack_until = a.until, ack_ticket = a.ticket
FROM acknowledgements a
WHERE f.run_id = $1 AND f.kind = a.kind AND f.merchant_id = a.merchant_id AND f.entity_id = a.entity_id
  AND f.state IN ('new', 'open') AND a.amount_recorded
  AND f.amount IS NOT DISTINCT FROM a.amount AND f.currency IS NOT DISTINCT FROM a.currency

-- name: LatestRun
-- The latest run that finished (ok or partial): the findings an
-- acknowledgement is made against.
SELECT run_id, business_date FROM runs WHERE status IN ('ok', 'partial')
ORDER BY business_date DESC, run_id DESC LIMIT 1

-- name: Finding
-- The amount (as text) and currency of a finding run $1 reports (new,
-- open or acknowledged): kind $2, merchant $3, entity $4.
SELECT amount_text(amount, currency), currency FROM findings
WHERE run_id = $1 AND kind = $2 AND merchant_id = $3 AND entity_id = $4 AND state IN ('new', 'open', 'acknowledged')

-- name: Upsert
-- Makes or changes the acknowledgement of kind $1, merchant $2, entity
-- $3: reason $4, owner $5, until $6, ticket $7; with $8 true, the
-- finding's amount $9 (decimal text) and currency $10 (with $8 false an
-- existing one keeps its own); source $11 (command or file); at $12 by
-- $13. An acknowledgement that would not change is left as it is.
INSERT INTO acknowledgements (kind, merchant_id, entity_id, reason, owner, until, ticket, amount_recorded, amount, currency,
                              source, created_at, created_by, updated_at, updated_by)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, CAST($9 AS DECIMAL(18,3)), $10, $11, $12, $13, $12, $13)
ON CONFLICT (kind, merchant_id, entity_id) DO UPDATE SET
    reason = excluded.reason, owner = excluded.owner, until = excluded.until, ticket = excluded.ticket,
    amount_recorded = excluded.amount_recorded OR acknowledgements.amount_recorded,
    amount = CASE WHEN excluded.amount_recorded THEN excluded.amount ELSE acknowledgements.amount END,
    currency = CASE WHEN excluded.amount_recorded THEN excluded.currency ELSE acknowledgements.currency END,
    source = excluded.source, updated_at = excluded.updated_at, updated_by = excluded.updated_by
WHERE acknowledgements.reason <> excluded.reason OR acknowledgements.owner <> excluded.owner
   OR acknowledgements.until <> excluded.until OR acknowledgements.ticket IS DISTINCT FROM excluded.ticket
   OR acknowledgements.source <> excluded.source
   OR excluded.amount_recorded AND (NOT acknowledgements.amount_recorded
                                    OR acknowledgements.amount IS DISTINCT FROM excluded.amount
                                    OR acknowledgements.currency IS DISTINCT FROM excluded.currency)

-- name: Delete
-- The acknowledgement of kind $1, merchant $2, entity $3.
DELETE FROM acknowledgements WHERE kind = $1 AND merchant_id = $2 AND entity_id = $3

-- name: MerchantsOf
-- The merchants with an acknowledgement of kind $1 and entity $2.
SELECT merchant_id FROM acknowledgements WHERE kind = $1 AND entity_id = $2 ORDER BY merchant_id

-- name: FileEntriesNotListed
-- The acknowledgements a file made that it no longer lists: of source
-- file, and not among the keys $1 (kinds), $2 (merchants), $3 (entities),
-- three arrays in the same order.
SELECT a.kind, a.merchant_id, a.entity_id
FROM acknowledgements a
WHERE a.source = 'file'
  AND NOT EXISTS (SELECT 1 FROM (SELECT unnest($1::VARCHAR[]) AS kind, unnest($2::VARCHAR[]) AS merchant_id,
                                        unnest($3::VARCHAR[]) AS entity_id) l
                  WHERE l.kind = a.kind AND l.merchant_id = a.merchant_id AND l.entity_id = a.entity_id)

-- name: List
-- The acknowledgements in force, by kind, merchant and entity.
SELECT kind, merchant_id, entity_id, owner, until, ticket, reason, amount_text(amount, currency) AS amount, currency, source,
       created_by, created_at, updated_by, updated_at
FROM acknowledgements
ORDER BY kind, merchant_id, entity_id

-- name: ReopenedAsSaid
-- Whether the last change to the acknowledgement of kind $1, merchant $2,
-- entity $3 was a run reopening it (its finding's amount changed) while
-- it had owner $4, until $5 (YYYY-MM-DD), reason $6 and ticket $7 ('' for
-- none).
SELECT coalesce(any_value(action = 'reopen'
                          AND (before->>'owner') = $4 AND (before->>'until') = $5 AND (before->>'reason') = $6
                          AND coalesce(before->>'ticket', '') = $7), false)
FROM (SELECT action, before FROM acknowledgement_audit
      WHERE kind = $1 AND merchant_id = $2 AND entity_id = $3
      ORDER BY seq DESC LIMIT 1)
