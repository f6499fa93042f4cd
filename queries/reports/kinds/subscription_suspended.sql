-- The subscription_suspended sheet of the finance workbook
-- (reports/catalog.go): a SUSPENDED subscription: retries exhausted, a do-
-- not-retry decline, or the merchant's suspension. One row per finding of
-- the kind today (new, open and acknowledged), with the columns a
-- controller needs to act on it (docs/workbook.md lists them). The column
-- names are the sheet's headers and their types its cell types
-- (outputs.Block.FromQuery); the detail's keys are those of
-- queries/findings/subscription_suspended.sql.
-- $1 = run ID, $2 = group ID or NULL (the whole run), $3 = the kind.
-- When: the first failure of the failing cycle
-- ID: Subscription ID
-- It runs after the kinds' prelude, queries/reports/kind_prelude.sql (the
-- CTEs scope, scoped_findings, kind_findings, groups_of and run), which
-- queries.KindSheet puts before it.
SELECT da.first_failed_at AS "When",
       f.merchant_id AS "Merchant ID",
       mn.name AS "Merchant name",
       g.groups AS "Group",
       s.customer_name AS "Customer",
       f.entity_id AS "Subscription ID",
       s.code AS "Subscription code",
       pl.name AS "Plan",
       s.customer_id AS "Customer ID",
       nullif(s.client_reference, s.code) AS "Client reference",
       da.failed_cycle AS "Failed cycle",
       da.days_since_first_failure AS "Days outstanding",
       da.retries_done AS "Retries done",
       f.amount AS "Amount",
       f.currency AS "Currency",
       f.state AS "State",
       coalesce(fr.business_date, TRY_CAST(left(f.first_seen_run, 10) AS DATE)) AS "First seen",
       CASE WHEN da.first_failed_at IS NULL THEN 'Suspended with no failed payment on record: the merchant suspended it, or a do-not-retry decline'
            ELSE format('Suspended: the payment of cycle {} first failed on {}; retries done: {}', coalesce(CAST(da.failed_cycle AS VARCHAR), '?'),
                        coalesce(strftime(da.first_failed_at, '%Y-%m-%d'), '?'), coalesce(CAST(da.retries_done AS VARCHAR), '?')) END AS "Reason",
       f.kind AS "Kind ID",
       f.ack_reason AS "Acknowledge: reason",
       f.ack_owner AS "Acknowledge: owner",
       f.ack_until AS "Acknowledge: until",
       f.ack_ticket AS "Acknowledge: ticket"
FROM kind_findings f
LEFT JOIN runs fr ON fr.run_id = f.first_seen_run
LEFT JOIN groups_of g ON g.merchant_id = f.merchant_id
LEFT JOIN merchant_names mn ON mn.run_id = $1 AND mn.merchant_id = f.merchant_id
LEFT JOIN LATERAL (SELECT s.code, s.customer_id, s.client_reference, s.plan_id,
                          nullif(trim(concat_ws(' ', s.raw->'orderInformation'->'billTo'->>'firstName',
                                                     s.raw->'orderInformation'->'billTo'->>'lastName')), '') AS customer_name
                   FROM subscriptions s
                   WHERE s.merchant_id = f.merchant_id AND s.subscription_id = f.entity_id) s ON true
LEFT JOIN plans pl ON pl.merchant_id = f.merchant_id AND pl.plan_id = s.plan_id
LEFT JOIN LATERAL (SELECT da.first_failed_at, da.failed_cycle, da.days_since_first_failure, da.retries_done FROM delinquency_ageing da
                   WHERE da.run_id = $1 AND da.merchant_id = f.merchant_id AND da.subscription_id = f.entity_id) da ON true
ORDER BY f.merchant_id, "When", f.entity_id
