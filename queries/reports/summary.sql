-- The Summary sheet of the finance workbook (reports/catalog.go), top to
-- bottom: the run's facts, then its tables, the whole run's first and the
-- same per group after.
--
-- The statements of the sheets (queries/reports/) take $1 = the run ID
-- and $2 = the group ID of a group's workbook, or NULL for the whole
-- run's; each block's comment says its parameters. To run one in
-- `reconcile sql`, write the run ID (e.g. '2026-11-20') for $1 and NULL or
-- a group ID (e.g. '1001') for $2.
--
-- Each statement starts with the CTEs it needs, written the same way in
-- every statement so that each runs as written (TestReportCTEsAgree keeps
-- the copies equal):
--   scope           the members the workbook covers: the run's members,
--                   or those of group $2 as listed by this run
--                   (group_members.run_id), so a group the run was not
--                   asked for (--groups) does not show up from an old
--                   listing;
--   member_groups   scope's members, each once, with its groups of the
--                   run as '1001, 1002': a member in several groups is on
--                   a row of its own ('1001, 1002'), never in each
--                   group's, so a per-group table sums to the whole;
--   run             the run's row of runs;
--   scoped_findings the run's findings of scope's members, every state;
--   member_list     scope's reconciled members (status 'ok');
--   kinds           the finding kinds of $3, numbered in the catalog's
--                   order (tables list kinds in that order);
--   groups_of       each member's groups of the run, as '1001, 1002'.

-- name: RunFacts
-- The run at a glance, one row, for the whole run's workbook: its date,
-- the number of groups it covered, status, data source, members, findings
-- (new, open and acknowledged: every finding reported today) and each
-- state, previous run, window, finish time, problems and run ID.
-- $1 = run ID, $2 = NULL, $3 = the data source's label.
WITH scope AS (
    SELECT rm.merchant_id, rm.status, rm.error
    FROM run_members rm
    WHERE rm.run_id = $1
      AND ($2::VARCHAR IS NULL OR EXISTS (
          SELECT 1 FROM group_members gm
          WHERE gm.run_id = $1 AND gm.group_id = $2 AND gm.merchant_id = rm.merchant_id))
),
member_groups AS (
    SELECT string_agg(gm.group_id, ', ' ORDER BY gm.group_id) AS group_id, s.merchant_id, s.status, s.error
    FROM scope s JOIN group_members gm ON gm.merchant_id = s.merchant_id AND gm.run_id = $1
    GROUP BY s.merchant_id, s.status, s.error
),
run AS (SELECT * FROM runs WHERE run_id = $1),
scoped_findings AS (
    SELECT f.* FROM findings f WHERE f.run_id = $1 AND f.merchant_id IN (SELECT merchant_id FROM scope)
)
SELECT r.business_date, (SELECT count(DISTINCT mg.g) FROM (SELECT unnest(string_split(group_id, ', ')) AS g FROM member_groups) mg), r.status, $3::VARCHAR,
       (SELECT count(*) FROM scope),
       (SELECT count(*) FROM scope WHERE status = 'ok'),
       (SELECT count(*) FROM scope WHERE status = 'failed'),
       (SELECT count(*) FROM scoped_findings WHERE state IN ('new', 'open', 'acknowledged')),
       (SELECT count(*) FROM scoped_findings WHERE state = 'new'),
       (SELECT count(*) FROM scoped_findings WHERE state = 'open'),
       (SELECT count(*) FROM scoped_findings WHERE state = 'acknowledged'),
       (SELECT count(*) FROM scoped_findings WHERE state = 'resolved'),
       (SELECT business_date FROM runs WHERE run_id = r.previous_run),
       r.window_start, r.window_end, r.finished_at, r.error, r.run_id
FROM run r

-- name: GroupRunFacts
-- RunFacts for a group's workbook: the second column is the group, its ID
-- and name, instead of the number of groups.
-- $1 = run ID, $2 = group ID, $3 = the data source's label.
WITH scope AS (
    SELECT rm.merchant_id, rm.status, rm.error
    FROM run_members rm
    WHERE rm.run_id = $1
      AND ($2::VARCHAR IS NULL OR EXISTS (
          SELECT 1 FROM group_members gm
          WHERE gm.run_id = $1 AND gm.group_id = $2 AND gm.merchant_id = rm.merchant_id))
),
run AS (SELECT * FROM runs WHERE run_id = $1),
scoped_findings AS (
    SELECT f.* FROM findings f WHERE f.run_id = $1 AND f.merchant_id IN (SELECT merchant_id FROM scope)
)
SELECT r.business_date, (SELECT group_id || coalesce(' ' || name, '') FROM groups WHERE group_id = $2), r.status, $3::VARCHAR,
       (SELECT count(*) FROM scope),
       (SELECT count(*) FROM scope WHERE status = 'ok'),
       (SELECT count(*) FROM scope WHERE status = 'failed'),
       (SELECT count(*) FROM scoped_findings WHERE state IN ('new', 'open', 'acknowledged')),
       (SELECT count(*) FROM scoped_findings WHERE state = 'new'),
       (SELECT count(*) FROM scoped_findings WHERE state = 'open'),
       (SELECT count(*) FROM scoped_findings WHERE state = 'acknowledged'),
       (SELECT count(*) FROM scoped_findings WHERE state = 'resolved'),
       (SELECT business_date FROM runs WHERE run_id = r.previous_run),
       r.window_start, r.window_end, r.finished_at, r.error, r.run_id
FROM run r

-- name: FindingsByKind
-- Findings by kind: per kind of the catalog (every kind, zero or not),
-- its findings today (new, open and acknowledged), new, still open,
-- acknowledged, and resolved.
-- $1 = run ID, $2 = group ID or NULL, $3 = the catalog's kinds, in order.
WITH scope AS (
    SELECT rm.merchant_id, rm.status, rm.error
    FROM run_members rm
    WHERE rm.run_id = $1
      AND ($2::VARCHAR IS NULL OR EXISTS (
          SELECT 1 FROM group_members gm
          WHERE gm.run_id = $1 AND gm.group_id = $2 AND gm.merchant_id = rm.merchant_id))
),
scoped_findings AS (
    SELECT f.* FROM findings f WHERE f.run_id = $1 AND f.merchant_id IN (SELECT merchant_id FROM scope)
),
kinds AS (
    SELECT unnest($3::VARCHAR[]) AS kind, generate_subscripts($3::VARCHAR[], 1) AS ord
)
SELECT k.kind,
       count(f.kind) FILTER (WHERE f.state IN ('new', 'open', 'acknowledged')),
       count(f.kind) FILTER (WHERE f.state = 'new'),
       count(f.kind) FILTER (WHERE f.state = 'open'),
       count(f.kind) FILTER (WHERE f.state = 'acknowledged'),
       count(f.kind) FILTER (WHERE f.state = 'resolved')
FROM kinds k LEFT JOIN scoped_findings f ON f.kind = k.kind
GROUP BY k.kind, k.ord ORDER BY k.ord

-- name: FundingMix
-- Funding mix: the transactions submitted in the window by the funding
-- source of their card's BIN ('(unknown)' when the lookup did not
-- resolve), with each one's share; reconciled members only.
-- $1 = run ID, $2 = group ID or NULL.
WITH scope AS (
    SELECT rm.merchant_id, rm.status, rm.error
    FROM run_members rm
    WHERE rm.run_id = $1
      AND ($2::VARCHAR IS NULL OR EXISTS (
          SELECT 1 FROM group_members gm
          WHERE gm.run_id = $1 AND gm.group_id = $2 AND gm.merchant_id = rm.merchant_id))
),
run AS (SELECT * FROM runs WHERE run_id = $1)
SELECT coalesce(b.funding_source, '(unknown)') AS funding, count(*) AS n,
       count(*) / sum(count(*)) OVER () AS share
FROM transactions t
JOIN scope s ON s.merchant_id = t.merchant_id AND s.status = 'ok'
LEFT JOIN bin_attributes b ON b.bin = t.card_bin
WHERE t.submit_time >= (SELECT window_start FROM run) AND t.submit_time < (SELECT window_end FROM run)
GROUP BY 1 ORDER BY n DESC, funding

-- name: PaymentsByStatus
-- Subscription payments dated in the window, by status; reconciled
-- members only.
-- $1 = run ID, $2 = group ID or NULL.
WITH scope AS (
    SELECT rm.merchant_id, rm.status, rm.error
    FROM run_members rm
    WHERE rm.run_id = $1
      AND ($2::VARCHAR IS NULL OR EXISTS (
          SELECT 1 FROM group_members gm
          WHERE gm.run_id = $1 AND gm.group_id = $2 AND gm.merchant_id = rm.merchant_id))
),
run AS (SELECT * FROM runs WHERE run_id = $1)
SELECT coalesce(p.status, '(none)') AS status, count(*) AS n
FROM subscription_payments p
JOIN scope s ON s.merchant_id = p.merchant_id AND s.status = 'ok'
WHERE p.payment_date >= (SELECT window_start FROM run) AND p.payment_date < (SELECT window_end FROM run)
GROUP BY 1 ORDER BY n DESC, status

-- name: MembersByGroup
-- Members by group: each group's name, members, reconciled and failed.
-- $1 = run ID, $2 = group ID or NULL.
WITH scope AS (
    SELECT rm.merchant_id, rm.status, rm.error
    FROM run_members rm
    WHERE rm.run_id = $1
      AND ($2::VARCHAR IS NULL OR EXISTS (
          SELECT 1 FROM group_members gm
          WHERE gm.run_id = $1 AND gm.group_id = $2 AND gm.merchant_id = rm.merchant_id))
),
member_groups AS (
    SELECT string_agg(gm.group_id, ', ' ORDER BY gm.group_id) AS group_id, s.merchant_id, s.status, s.error
    FROM scope s JOIN group_members gm ON gm.merchant_id = s.merchant_id AND gm.run_id = $1
    GROUP BY s.merchant_id, s.status, s.error
)
SELECT mg.group_id, coalesce(any_value(g.name), '(several groups)'), count(*),
       count(*) FILTER (WHERE mg.status = 'ok'),
       count(*) FILTER (WHERE mg.status = 'failed')
FROM member_groups mg LEFT JOIN groups g ON g.group_id = mg.group_id
GROUP BY mg.group_id ORDER BY mg.group_id

-- name: PaymentsBilledByGroup
-- Payments billed by group: subscription payments PAID and dated in the
-- window, billing amount + setup fee + surcharge, per group and currency
-- (never added across currencies); reconciled members only.
-- $1 = run ID, $2 = group ID or NULL.
WITH scope AS (
    SELECT rm.merchant_id, rm.status, rm.error
    FROM run_members rm
    WHERE rm.run_id = $1
      AND ($2::VARCHAR IS NULL OR EXISTS (
          SELECT 1 FROM group_members gm
          WHERE gm.run_id = $1 AND gm.group_id = $2 AND gm.merchant_id = rm.merchant_id))
),
member_groups AS (
    SELECT string_agg(gm.group_id, ', ' ORDER BY gm.group_id) AS group_id, s.merchant_id, s.status, s.error
    FROM scope s JOIN group_members gm ON gm.merchant_id = s.merchant_id AND gm.run_id = $1
    GROUP BY s.merchant_id, s.status, s.error
),
run AS (SELECT * FROM runs WHERE run_id = $1)
SELECT mg.group_id, count(*),
       sum(p.billing_amount + coalesce(p.setup_fee, 0) + coalesce(p.surcharge_amount, 0)), p.currency
FROM member_groups mg
JOIN subscription_payments p ON p.merchant_id = mg.merchant_id
WHERE mg.status = 'ok' AND p.status = 'PAID'
  AND p.payment_date >= (SELECT window_start FROM run) AND p.payment_date < (SELECT window_end FROM run)
GROUP BY mg.group_id, p.currency ORDER BY mg.group_id, p.currency

-- name: FindingsByGroupAndKind
-- Findings by group and kind: per group, kind (the catalog's order) and
-- currency, the findings today (new, open and acknowledged), new, still
-- open, acknowledged, resolved, and the amount of today's.
-- $1 = run ID, $2 = group ID or NULL, $3 = the catalog's kinds, in order.
WITH scope AS (
    SELECT rm.merchant_id, rm.status, rm.error
    FROM run_members rm
    WHERE rm.run_id = $1
      AND ($2::VARCHAR IS NULL OR EXISTS (
          SELECT 1 FROM group_members gm
          WHERE gm.run_id = $1 AND gm.group_id = $2 AND gm.merchant_id = rm.merchant_id))
),
member_groups AS (
    SELECT string_agg(gm.group_id, ', ' ORDER BY gm.group_id) AS group_id, s.merchant_id, s.status, s.error
    FROM scope s JOIN group_members gm ON gm.merchant_id = s.merchant_id AND gm.run_id = $1
    GROUP BY s.merchant_id, s.status, s.error
),
kinds AS (
    SELECT unnest($3::VARCHAR[]) AS kind, generate_subscripts($3::VARCHAR[], 1) AS ord
)
SELECT mg.group_id, f.kind,
       count(*) FILTER (WHERE f.state IN ('new', 'open', 'acknowledged')),
       count(*) FILTER (WHERE f.state = 'new'),
       count(*) FILTER (WHERE f.state = 'open'),
       count(*) FILTER (WHERE f.state = 'acknowledged'),
       count(*) FILTER (WHERE f.state = 'resolved'),
       sum(f.amount) FILTER (WHERE f.state IN ('new', 'open', 'acknowledged')),
       f.currency
FROM member_groups mg
JOIN findings f ON f.run_id = $1 AND f.merchant_id = mg.merchant_id
JOIN kinds k ON k.kind = f.kind
GROUP BY mg.group_id, f.kind, k.ord, f.currency
ORDER BY mg.group_id, k.ord, f.currency NULLS FIRST

-- name: FundingMixByGroup
-- Funding mix by group: the window's transactions per group, funding
-- source and currency, with their amount; reconciled members only.
-- $1 = run ID, $2 = group ID or NULL.
WITH scope AS (
    SELECT rm.merchant_id, rm.status, rm.error
    FROM run_members rm
    WHERE rm.run_id = $1
      AND ($2::VARCHAR IS NULL OR EXISTS (
          SELECT 1 FROM group_members gm
          WHERE gm.run_id = $1 AND gm.group_id = $2 AND gm.merchant_id = rm.merchant_id))
),
member_groups AS (
    SELECT string_agg(gm.group_id, ', ' ORDER BY gm.group_id) AS group_id, s.merchant_id, s.status, s.error
    FROM scope s JOIN group_members gm ON gm.merchant_id = s.merchant_id AND gm.run_id = $1
    GROUP BY s.merchant_id, s.status, s.error
),
run AS (SELECT * FROM runs WHERE run_id = $1)
SELECT mg.group_id, coalesce(b.funding_source, '(unknown)') AS funding, count(*), sum(t.amount), t.currency
FROM member_groups mg
JOIN transactions t ON t.merchant_id = mg.merchant_id
LEFT JOIN bin_attributes b ON b.bin = t.card_bin
WHERE mg.status = 'ok'
  AND t.submit_time >= (SELECT window_start FROM run) AND t.submit_time < (SELECT window_end FROM run)
GROUP BY mg.group_id, funding, t.currency ORDER BY mg.group_id, funding, t.currency

-- name: FailedMembers
-- The members that failed, with the error and their groups.
-- $1 = run ID, $2 = group ID or NULL.
WITH scope AS (
    SELECT rm.merchant_id, rm.status, rm.error
    FROM run_members rm
    WHERE rm.run_id = $1
      AND ($2::VARCHAR IS NULL OR EXISTS (
          SELECT 1 FROM group_members gm
          WHERE gm.run_id = $1 AND gm.group_id = $2 AND gm.merchant_id = rm.merchant_id))
),
groups_of AS (
    SELECT merchant_id, string_agg(group_id, ', ' ORDER BY group_id) AS groups
    FROM group_members WHERE run_id = $1 GROUP BY merchant_id
)
SELECT s.merchant_id, s.error, g.groups
FROM scope s LEFT JOIN groups_of g ON g.merchant_id = s.merchant_id
WHERE s.status = 'failed' ORDER BY s.merchant_id

-- name: NotEnabledMembers
-- The members reconciled without a product the platform answered "not
-- enabled" for (run_members.products_not_enabled), with its answer and
-- their groups. $1 = run ID, $2 = group ID or NULL.
WITH not_enabled AS (
    SELECT rm.merchant_id, rm.products_not_enabled, rm.not_enabled_message
    FROM run_members rm
    WHERE rm.run_id = $1 AND rm.status = 'ok' AND rm.products_not_enabled IS NOT NULL
      AND ($2::VARCHAR IS NULL OR EXISTS (
          SELECT 1 FROM group_members gm
          WHERE gm.run_id = $1 AND gm.group_id = $2 AND gm.merchant_id = rm.merchant_id))
),
groups_of AS (
    SELECT merchant_id, string_agg(group_id, ', ' ORDER BY group_id) AS groups
    FROM group_members WHERE run_id = $1 GROUP BY merchant_id
)
SELECT s.merchant_id, s.products_not_enabled, s.not_enabled_message, g.groups
FROM not_enabled s LEFT JOIN groups_of g ON g.merchant_id = s.merchant_id
ORDER BY s.merchant_id

-- name: Alarms
-- The alarms the run raised (package alarms, --alarms), one row each in
-- the program's order: the rule's name, what it says, and the finding
-- kind and currency it concerns ('' for the run's own rules). The texts
-- come from the program as arrays, like the Legend's.
-- $1 = the names, $2 = the messages, $3 = the kinds, $4 = the
-- currencies, the four arrays in the same order.
SELECT name, message, kind, currency FROM (
    SELECT unnest($1::VARCHAR[]) AS name, unnest($2::VARCHAR[]) AS message,
           unnest($3::VARCHAR[]) AS kind, unnest($4::VARCHAR[]) AS currency,
           generate_subscripts($1::VARCHAR[], 1) AS ord
) ORDER BY ord

-- name: KindRank
-- The catalog's kinds by money at stake in the workbook's scope, without
-- exchange rates: first by the amount of their findings today (new, open
-- and acknowledged) in the principal currency (the currency most of those
-- findings are in; the first by code on a tie), then by their amounts in
-- the other currencies added up (an order only: no total across
-- currencies is shown), then their count, then the catalog's order. The
-- workbook puts the kinds' sheets and the Summary's rows in this order.
-- $1 = run ID, $2 = group ID or NULL, $3 = the catalog's kinds, in order.
WITH scope AS (
    SELECT rm.merchant_id, rm.status, rm.error
    FROM run_members rm
    WHERE rm.run_id = $1
      AND ($2::VARCHAR IS NULL OR EXISTS (
          SELECT 1 FROM group_members gm
          WHERE gm.run_id = $1 AND gm.group_id = $2 AND gm.merchant_id = rm.merchant_id))
),
scoped_findings AS (
    SELECT f.* FROM findings f WHERE f.run_id = $1 AND f.merchant_id IN (SELECT merchant_id FROM scope)
),
kinds AS (
    SELECT unnest($3::VARCHAR[]) AS kind, generate_subscripts($3::VARCHAR[], 1) AS ord
),
principal AS (
    SELECT currency FROM scoped_findings
    WHERE state IN ('new', 'open', 'acknowledged') AND currency IS NOT NULL
    GROUP BY currency ORDER BY count(*) DESC, currency LIMIT 1
)
SELECT k.kind
FROM kinds k LEFT JOIN scoped_findings f ON f.kind = k.kind AND f.state IN ('new', 'open', 'acknowledged')
GROUP BY k.kind, k.ord
ORDER BY coalesce(sum(abs(f.amount)) FILTER (WHERE f.currency = (SELECT currency FROM principal)), 0) DESC,
         coalesce(sum(abs(f.amount)) FILTER (WHERE f.currency IS DISTINCT FROM (SELECT currency FROM principal)), 0) DESC,
         count(f.kind) DESC, k.ord

-- name: FindingsByKindAndCurrency
-- Findings by kind, per currency: one row per kind and currency of its
-- findings (a kind without findings: one row, no currency), with the
-- findings today (new, open and acknowledged), new, still open,
-- acknowledged and resolved, and the amount at stake of the findings
-- today (0 where the currency's findings are all resolved). Every count
-- is of the row's currency only, so a column sums to
-- the workbook's total. The kind's sheet name comes first (the workbook
-- links it to the sheet), its id (findings.kind) last.
-- $1 = run ID, $2 = group ID or NULL, $3 = the kinds, in the workbook's
-- order, $4 = their sheets' names, in the same order.
WITH scope AS (
    SELECT rm.merchant_id, rm.status, rm.error
    FROM run_members rm
    WHERE rm.run_id = $1
      AND ($2::VARCHAR IS NULL OR EXISTS (
          SELECT 1 FROM group_members gm
          WHERE gm.run_id = $1 AND gm.group_id = $2 AND gm.merchant_id = rm.merchant_id))
),
scoped_findings AS (
    SELECT f.* FROM findings f WHERE f.run_id = $1 AND f.merchant_id IN (SELECT merchant_id FROM scope)
),
kind_sheets AS (
    SELECT unnest($3::VARCHAR[]) AS kind, unnest($4::VARCHAR[]) AS sheet, generate_subscripts($3::VARCHAR[], 1) AS ord
),
per_currency AS (
    SELECT f.kind, f.currency,
           count(*) FILTER (WHERE f.state IN ('new', 'open', 'acknowledged')) AS findings,
           count(*) FILTER (WHERE f.state = 'new') AS new,
           count(*) FILTER (WHERE f.state = 'open') AS open,
           count(*) FILTER (WHERE f.state = 'acknowledged') AS acknowledged,
           count(*) FILTER (WHERE f.state = 'resolved') AS resolved,
           sum(f.amount) FILTER (WHERE f.state IN ('new', 'open', 'acknowledged')) AS amount
    FROM scoped_findings f GROUP BY f.kind, f.currency
)
SELECT k.sheet, p.currency, coalesce(p.findings, 0), coalesce(p.new, 0), coalesce(p.open, 0),
       coalesce(p.acknowledged, 0), coalesce(p.resolved, 0),
       CASE WHEN p.currency IS NOT NULL THEN coalesce(p.amount, 0) END, k.kind
FROM kind_sheets k LEFT JOIN per_currency p ON p.kind = k.kind
ORDER BY k.ord, p.amount DESC NULLS LAST, p.currency NULLS LAST

-- name: MoneyAtStake
-- The ten kinds with the most money at stake in the principal currency
-- (the currency most findings today are in: new, open and acknowledged),
-- for the Summary's chart: one currency on one axis, never amounts of
-- several compared or added up; the others are in Findings by kind.
-- $1 = run ID, $2 = group ID or NULL, $3 = the kinds, $4 = their sheets'
-- names, in the same order.
WITH scope AS (
    SELECT rm.merchant_id, rm.status, rm.error
    FROM run_members rm
    WHERE rm.run_id = $1
      AND ($2::VARCHAR IS NULL OR EXISTS (
          SELECT 1 FROM group_members gm
          WHERE gm.run_id = $1 AND gm.group_id = $2 AND gm.merchant_id = rm.merchant_id))
),
scoped_findings AS (
    SELECT f.* FROM findings f WHERE f.run_id = $1 AND f.merchant_id IN (SELECT merchant_id FROM scope)
),
kind_sheets AS (
    SELECT unnest($3::VARCHAR[]) AS kind, unnest($4::VARCHAR[]) AS sheet, generate_subscripts($3::VARCHAR[], 1) AS ord
),
principal AS (
    SELECT currency FROM scoped_findings
    WHERE state IN ('new', 'open', 'acknowledged') AND currency IS NOT NULL
    GROUP BY currency ORDER BY count(*) DESC, currency LIMIT 1
)
SELECT k.sheet, sum(f.amount) AS amount, f.currency
FROM kind_sheets k JOIN scoped_findings f ON f.kind = k.kind AND f.state IN ('new', 'open', 'acknowledged')
WHERE f.currency = (SELECT currency FROM principal) AND f.amount IS NOT NULL
GROUP BY k.sheet, k.ord, f.currency
HAVING sum(f.amount) > 0
ORDER BY amount DESC, k.ord
LIMIT 10
