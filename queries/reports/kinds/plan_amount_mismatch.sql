-- The plan_amount_mismatch sheet of the finance workbook
-- (reports/catalog.go): a PAID payment whose billing amount is neither its
-- subscription's nor its plan's. One row per finding of the kind today
-- (new, open and acknowledged), with the columns a controller needs to act
-- on it (docs/workbook.md lists them). The column names are the sheet's
-- headers and their types its cell types (outputs.Block.FromQuery); the
-- detail's keys are those of queries/findings/plan_amount_mismatch.sql.
-- $1 = run ID, $2 = group ID or NULL (the whole run), $3 = the kind.
-- When: the payment's date
-- ID: Payment ID
-- It runs after the kinds' prelude, queries/reports/kind_prelude.sql (the
-- CTEs scope, scoped_findings, kind_findings, groups_of and run), which
-- queries.KindSheet puts before it.
SELECT TRY_CAST(f.detail->>'payment_date' AS TIMESTAMPTZ) AS "When",
       f.merchant_id AS "Merchant ID",
       mn.name AS "Merchant name",
       g.groups AS "Group",
       f.entity_id AS "Payment ID",
       (f.detail->>'subscription_id') AS "Subscription ID",
       s.code AS "Subscription code",
       pl.name AS "Plan",
       s.customer_id AS "Customer ID",
       s.client_reference AS "Client reference",
       (f.detail->>'plan_id') AS "Plan ID",
       TRY_CAST(f.detail->>'billing_cycle' AS INTEGER) AS "Cycle",
       (f.detail->>'transaction_id') AS "Transaction ID",
       b.brand AS "Card brand",
       t.card_bin AS "BIN",
       t.card_last4 AS "Last four",
       TRY_CAST(f.detail->>'subscription_amount' AS DECIMAL(18,3)) AS "Subscription amount",
       (f.detail->>'subscription_currency') AS "Subscription currency",
       TRY_CAST(f.detail->>'plan_amount' AS DECIMAL(18,3)) AS "Plan amount",
       (f.detail->>'plan_currency') AS "Plan currency",
       f.amount AS "Amount",
       f.currency AS "Currency",
       f.state AS "State",
       coalesce(fr.business_date, TRY_CAST(left(f.first_seen_run, 10) AS DATE)) AS "First seen",
       format('Billed {} {}; the subscription''s amount is {} {} and the plan''s {} {}', coalesce(amount_text(f.amount, f.currency), '?'), coalesce(f.currency, ''), coalesce(amount_text(TRY_CAST(f.detail->>'subscription_amount' AS DECIMAL(18,3)), coalesce(f.detail->>'subscription_currency', f.currency)), '(none)'), coalesce(f.detail->>'subscription_currency', ''), coalesce(amount_text(TRY_CAST(f.detail->>'plan_amount' AS DECIMAL(18,3)), coalesce(f.detail->>'plan_currency', f.currency)), '(none)'), coalesce(f.detail->>'plan_currency', '')) AS "Reason",
       f.kind AS "Kind ID",
       f.ack_reason AS "Acknowledge: reason",
       f.ack_owner AS "Acknowledge: owner",
       f.ack_until AS "Acknowledge: until",
       f.ack_ticket AS "Acknowledge: ticket"
FROM kind_findings f
LEFT JOIN runs fr ON fr.run_id = f.first_seen_run
LEFT JOIN groups_of g ON g.merchant_id = f.merchant_id
LEFT JOIN merchant_names mn ON mn.run_id = $1 AND mn.merchant_id = f.merchant_id
LEFT JOIN LATERAL (SELECT s.code, s.customer_id, s.client_reference, s.plan_id FROM subscriptions s
                   WHERE s.merchant_id = f.merchant_id AND s.subscription_id = (f.detail->>'subscription_id')) s ON true
LEFT JOIN plans pl ON pl.merchant_id = f.merchant_id AND pl.plan_id = s.plan_id
LEFT JOIN LATERAL (SELECT t.card_bin, t.card_last4 FROM transactions t
                   WHERE t.merchant_id = f.merchant_id AND t.transaction_id = (f.detail->>'transaction_id')) t ON true
LEFT JOIN bin_attributes b ON b.bin = t.card_bin
ORDER BY f.merchant_id, "When", f.entity_id
