-- The recurring-billing sheets of the finance workbook (reports/billing.go,
-- docs/billing.md): Ageing, Metrics, Skipped and Three-way match, each by
-- group and member, reconciled members only. They read the tables the
-- billing reports (queries/billing/) filled for the run.
-- $1 = run ID, $2 = group ID or NULL (the whole run); each statement
-- starts with the CTEs it uses, word for word as in summary.sql, whose
-- header says what each is.

-- name: Ageing
-- Ageing: every DELINQUENT or SUSPENDED subscription, by group and member,
-- longest failing first: its failing cycle, when it first failed, the age,
-- the retries done and left, the next retry and the amount at risk.
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
SELECT mg.group_id, a.merchant_id, a.subscription_id, s.code, a.status, a.failed_cycle,
       a.first_failed_at, a.days_since_first_failure, a.age_bucket, a.retries_done, a.retries_remaining,
       a.next_retry_at, a.amount_at_risk, a.currency
FROM member_groups mg
JOIN delinquency_ageing a ON a.run_id = $1 AND a.merchant_id = mg.merchant_id
LEFT JOIN subscriptions s ON s.merchant_id = a.merchant_id AND s.subscription_id = a.subscription_id
WHERE mg.status = 'ok'
ORDER BY mg.group_id, a.merchant_id, a.days_since_first_failure DESC NULLS LAST, a.subscription_id

-- name: AgeingAtRisk
-- The amount at risk by group, member and age bucket (youngest first) and
-- currency.
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
SELECT mg.group_id, a.merchant_id, a.age_bucket, count(*), sum(a.amount_at_risk), a.currency
FROM member_groups mg
JOIN delinquency_ageing a ON a.run_id = $1 AND a.merchant_id = mg.merchant_id
WHERE mg.status = 'ok'
GROUP BY mg.group_id, a.merchant_id, a.age_bucket,
         CASE a.age_bucket WHEN '0-7 days' THEN 1 WHEN '8-14 days' THEN 2 WHEN '15-30 days' THEN 3
             WHEN '31-60 days' THEN 4 WHEN '61-90 days' THEN 5 WHEN 'over 90 days' THEN 6 ELSE 7 END,
         a.currency
ORDER BY mg.group_id, a.merchant_id,
         CASE a.age_bucket WHEN '0-7 days' THEN 1 WHEN '8-14 days' THEN 2 WHEN '15-30 days' THEN 3
             WHEN '31-60 days' THEN 4 WHEN '61-90 days' THEN 5 WHEN 'over 90 days' THEN 6 ELSE 7 END,
         a.currency

-- name: MetricsByGroup
-- Subscription metrics by group and currency: subscriptions, active,
-- delinquent, suspended, MRR, MRR at risk, churned and recovered today,
-- skipped cycles and the amount they defer.
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
SELECT mg.group_id, m.currency,
       sum(m.subscriptions), sum(m.active), sum(m.delinquent), sum(m.suspended), sum(m.mrr), sum(m.mrr_at_risk),
       sum(m.churned_today), sum(m.recovered_today), sum(m.skipped_cycles), sum(m.deferred_amount)
FROM member_groups mg
JOIN subscription_metrics m ON m.run_id = $1 AND m.merchant_id = mg.merchant_id
WHERE mg.status = 'ok'
GROUP BY mg.group_id, m.currency ORDER BY mg.group_id, m.currency NULLS LAST

-- name: MetricsByMember
-- MetricsByGroup per member too.
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
SELECT mg.group_id, m.merchant_id, m.currency,
       sum(m.subscriptions), sum(m.active), sum(m.delinquent), sum(m.suspended), sum(m.mrr), sum(m.mrr_at_risk),
       sum(m.churned_today), sum(m.recovered_today), sum(m.skipped_cycles), sum(m.deferred_amount)
FROM member_groups mg
JOIN subscription_metrics m ON m.run_id = $1 AND m.merchant_id = mg.merchant_id
WHERE mg.status = 'ok'
GROUP BY mg.group_id, m.merchant_id, m.currency ORDER BY mg.group_id, m.merchant_id, m.currency NULLS LAST

-- name: RecoveredToday
-- The subscriptions delinquent or suspended when last seen and active now:
-- how they recovered, when paid, and the amount.
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
SELECT mg.group_id, r.merchant_id, r.subscription_id, r.previous_status, r.status, r.how,
       r.paid_at, r.amount, r.currency
FROM member_groups mg
JOIN subscription_recoveries r ON r.run_id = $1 AND r.merchant_id = mg.merchant_id
WHERE mg.status = 'ok'
ORDER BY mg.group_id, r.merchant_id, r.subscription_id

-- name: ChurnedToday
-- The subscriptions pending, active or delinquent when last seen and
-- cancelled or suspended now, with their billing amount.
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
SELECT mg.group_id, l.merchant_id, l.subscription_id, l.previous_status, l.status, s.billing_amount, s.currency
FROM member_groups mg
JOIN subscription_status_log l ON l.run_id = $1 AND l.merchant_id = mg.merchant_id
LEFT JOIN subscriptions s ON s.merchant_id = l.merchant_id AND s.subscription_id = l.subscription_id
WHERE mg.status = 'ok'
  AND l.previous_status IN ('PENDING', 'ACTIVE', 'DELINQUENT') AND l.status IN ('CANCELLED', 'SUSPENDED')
ORDER BY mg.group_id, l.merchant_id, l.subscription_id

-- name: SkippedByMember
-- What skipped cycles defer, by group, member and currency: the
-- subscriptions, the cycles skipped still to come and past, and the
-- amount deferred.
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
SELECT mg.group_id, d.merchant_id, d.currency, count(DISTINCT d.subscription_id),
       sum(d.skipped_cycles), sum(d.past_skipped_cycles), sum(d.deferred_amount)
FROM member_groups mg
JOIN skipped_deferrals d ON d.merchant_id = mg.merchant_id
WHERE mg.status = 'ok'
GROUP BY mg.group_id, d.merchant_id, d.currency ORDER BY mg.group_id, d.merchant_id, d.currency

-- name: SkippedBySubscription
-- SkippedByMember per subscription, with its code, status and cycles.
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
SELECT mg.group_id, d.merchant_id, d.subscription_id, s.code, s.status, d.cycles,
       d.skipped_cycles, d.skipped_amount, d.past_skipped_cycles, d.past_skipped_amount, d.deferred_amount,
       d.currency
FROM member_groups mg
JOIN skipped_deferrals d ON d.merchant_id = mg.merchant_id
LEFT JOIN subscriptions s ON s.merchant_id = d.merchant_id AND s.subscription_id = d.subscription_id
WHERE mg.status = 'ok'
ORDER BY mg.group_id, d.merchant_id, d.subscription_id

-- name: MatchByMember
-- The three-way match per group and member: the subscription payments
-- paid or failed in the window, those matched by a transaction and the
-- journal, and the exceptions by class (missing, mismatch, late).
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
run AS (SELECT * FROM runs WHERE run_id = $1),
pays AS (
    SELECT p.merchant_id, count(*) AS n
    FROM subscription_payments p
    WHERE p.status IN ('PAID', 'FAILED')
      AND p.payment_date >= (SELECT window_start FROM run) AND p.payment_date < (SELECT window_end FROM run)
    GROUP BY ALL
),
ex AS (
    SELECT merchant_id, count(DISTINCT payment_id) AS payments,
           count(*) FILTER (WHERE class = 'missing') AS missing,
           count(*) FILTER (WHERE class = 'late') AS late,
           count(*) FILTER (WHERE class = 'mismatch') AS mismatch
    FROM billing_match WHERE run_id = $1 GROUP BY ALL
)
SELECT mg.group_id, mg.merchant_id, coalesce(p.n, 0), coalesce(p.n, 0) - coalesce(ex.payments, 0),
       coalesce(ex.missing, 0), coalesce(ex.mismatch, 0), coalesce(ex.late, 0)
FROM member_groups mg
LEFT JOIN pays p ON p.merchant_id = mg.merchant_id
LEFT JOIN ex ON ex.merchant_id = mg.merchant_id
WHERE mg.status = 'ok'
ORDER BY mg.group_id, mg.merchant_id

-- name: MatchExceptions
-- The three-way match's exceptions, by member: missing (last look), then
-- mismatch, then late (may still arrive), with what was expected and what
-- was found.
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
SELECT b.merchant_id, g.groups, b.payment_id, b.leg, b.class, b.reasons, b.subscription_id,
       b.transaction_id, b.payment_date, b.payment_status, b.amount, b.currency,
       b.found_amount, b.found_currency, b.found_status
FROM billing_match b
LEFT JOIN groups_of g ON g.merchant_id = b.merchant_id
WHERE b.run_id = $1 AND b.merchant_id IN (SELECT merchant_id FROM scope WHERE status = 'ok')
ORDER BY b.merchant_id, CASE b.class WHEN 'missing' THEN 1 WHEN 'mismatch' THEN 2 ELSE 3 END,
         b.payment_id, b.leg
