-- The retry_after_do_not_retry sheet of the finance workbook
-- (reports/catalog.go): a charge on a card after its issuer answered
-- do-not-retry for it. One row per finding of the kind today (new, open
-- and acknowledged), with the columns a controller needs to act on it
-- (docs/workbook.md lists them): the charge, its card, and the
-- do-not-retry decline it followed, its codes written out. The column
-- names are the sheet's headers and their types its cell types
-- (outputs.Block.FromQuery); the detail's keys are those of
-- queries/findings/retry_after_do_not_retry.sql, the codes' meanings
-- those of docs/payments-audit.md.
-- $1 = run ID, $2 = group ID or NULL (the whole run), $3 = the kind.
-- When: the charge
-- ID: Transaction ID
-- It runs after the kinds' prelude, queries/reports/kind_prelude.sql (the
-- CTEs scope, scoped_findings, kind_findings, groups_of and run), which
-- queries.KindSheet puts before it.
WITH charges AS (
    -- Each charge of the kind's findings with what the platform and the
    -- merchant's journal say of it: its order number (the call's, else
    -- the platform's record of the transaction, else the subscription's),
    -- its customer, and the do-not-retry answer it followed in words.
    SELECT f.merchant_id, f.entity_id,
           coalesce(j.client_reference, t.client_reference, s.client_reference) AS client_reference,
           coalesce(t.customer_id, s.customer_id) AS customer_id,
           CASE
               WHEN (f.detail->>'network') = 'VISA' AND (f.detail->>'merchant_advice_code') IN ('1', '01')
                   THEN 'Visa merchant advice code 1 (issuer never approves)'
               WHEN (f.detail->>'network') = 'VISA' AND (f.detail->>'response_code') IN ('04', '07', '12', '14', '15', '41', '43', '46', '57', 'R0', 'R1', 'R3')
                   THEN 'Visa category 1 response code ' || (f.detail->>'response_code') || ' (issuer never approves)'
               WHEN (f.detail->>'network') IS DISTINCT FROM 'VISA' AND ((f.detail->>'merchant_advice_code') IN ('3', '03') OR (f.detail->>'merchant_advice_code_raw') IN ('3', '03'))
                   THEN 'merchant advice code 03 (do not try again)'
               WHEN (f.detail->>'network') IS DISTINCT FROM 'VISA' AND ((f.detail->>'merchant_advice_code') = '21' OR (f.detail->>'merchant_advice_code_raw') = '21')
                   THEN 'merchant advice code 21 (payment cancelled)'
               WHEN (f.detail->>'reason_code') = '205' THEN 'reason code 205 (stolen or lost card)'
               WHEN (f.detail->>'reason_code') = '231' THEN 'reason code 231 (invalid account number)'
               ELSE 'do-not-retry'
           END AS answer
    FROM kind_findings f
    LEFT JOIN LATERAL (SELECT j.client_reference FROM journal j
                       WHERE j.merchant_id = f.merchant_id AND j.file = (f.detail->>'file') AND j.line = TRY_CAST(f.detail->>'line' AS INTEGER)) j ON true
    LEFT JOIN LATERAL (SELECT t.client_reference, t.customer_id FROM transactions t
                       WHERE t.merchant_id = f.merchant_id AND t.transaction_id = f.entity_id) t ON true
    LEFT JOIN LATERAL (SELECT s.client_reference, s.customer_id FROM subscriptions s
                       WHERE s.merchant_id = f.merchant_id AND s.subscription_id = (f.detail->>'subscription_id')) s ON true
)
SELECT TRY_CAST(f.detail->>'time' AS TIMESTAMPTZ) AS "When",
       f.merchant_id AS "Merchant ID",
       mn.name AS "Merchant name",
       g.groups AS "Group",
       c.client_reference AS "Client reference",
       f.entity_id AS "Transaction ID",
       replace(f.detail->>'call_kind', '_', ' ') AS "Call",
       CASE WHEN TRY_CAST(f.detail->>'declined' AS BOOLEAN) THEN 'declined' ELSE 'approved' END AS "Outcome",
       c.customer_id AS "Customer ID",
       (f.detail->>'subscription_id') AS "Subscription ID",
       coalesce(b.brand, f.detail->>'network') AS "Card brand",
       (f.detail->>'bin') AS "BIN",
       (f.detail->>'last4') AS "Last four",
       f.amount AS "Amount",
       f.currency AS "Currency",
       TRY_CAST(f.detail->>'refused_time' AS TIMESTAMPTZ) AS "Do-not-retry answered",
       (f.detail->>'refused_id') AS "Declined transaction ID",
       c.answer AS "Do-not-retry answer",
       coalesce(f.detail->>'merchant_advice_code', f.detail->>'merchant_advice_code_raw') AS "Advice code",
       (f.detail->>'response_code') AS "Response code",
       (f.detail->>'reason_code') AS "Platform reason code",
       date_diff('day', TRY_CAST(f.detail->>'refused_time' AS TIMESTAMPTZ), TRY_CAST(f.detail->>'time' AS TIMESTAMPTZ)) AS "Days after the answer",
       f.state AS "State",
       coalesce(fr.business_date, TRY_CAST(left(f.first_seen_run, 10) AS DATE)) AS "First seen",
       format('Card {}…{} charged again on {} ({}, {}) after its issuer answered do not retry on {}: {}', coalesce(f.detail->>'bin', '?'), coalesce(f.detail->>'last4', '?'), coalesce(strftime(TRY_CAST(f.detail->>'time' AS TIMESTAMPTZ), '%Y-%m-%d'), '?'), replace(coalesce(f.detail->>'call_kind', 'charge'), '_', ' '), CASE WHEN TRY_CAST(f.detail->>'declined' AS BOOLEAN) THEN 'declined' ELSE 'approved' END, coalesce(strftime(TRY_CAST(f.detail->>'refused_time' AS TIMESTAMPTZ), '%Y-%m-%d'), '?'), c.answer) AS "Reason",
       f.kind AS "Kind ID",
       f.ack_reason AS "Acknowledge: reason",
       f.ack_owner AS "Acknowledge: owner",
       f.ack_until AS "Acknowledge: until",
       f.ack_ticket AS "Acknowledge: ticket"
FROM kind_findings f
LEFT JOIN runs fr ON fr.run_id = f.first_seen_run
LEFT JOIN groups_of g ON g.merchant_id = f.merchant_id
LEFT JOIN merchant_names mn ON mn.run_id = $1 AND mn.merchant_id = f.merchant_id
LEFT JOIN charges c ON c.merchant_id = f.merchant_id AND c.entity_id = f.entity_id
LEFT JOIN bin_attributes b ON b.bin = (f.detail->>'bin')
ORDER BY f.merchant_id, "When", f.entity_id
