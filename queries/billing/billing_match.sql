-- The three-way match of the subscription payments of the run's reconciled
-- members that were processed (PAID or FAILED) and are dated in the window:
-- each against the platform's transaction it names (Transaction Search;
-- leg 'transaction') and against the merchant's journal of the payment
-- notifications the recurring billing service sent (lines whose request
-- carries event PAYMENT_SUCCESS or PAYMENT_FAILURE and a transactionId,
-- answered 2xx; the latest per transaction; leg 'journal'). One row per
-- exception and leg:
--   missing  the counterpart is absent and the payment is dated on the
--            window's first day: this run is the last to re-read it;
--   late     the counterpart is absent and the payment is later in the
--            window: it may still arrive (reported, not flagged);
--   mismatch the counterpart is present with another amount, currency or
--            outcome (reasons lists which). The transaction's amount is
--            compared with billing amount + setup fee + surcharge, the
--            notification's billingAmount + setupFee with billing amount +
--            setup fee (notifications carry no surcharge); the outcome is
--            success for a PAID payment (a transaction with rCode 1, or,
--            without an rCode, a status other than DECLINED or FAILED; the
--            event PAYMENT_SUCCESS), failure for a FAILED one.
-- $1 = run_id, $2 = business date; the window from window_start/window_end.
INSERT INTO billing_match (run_id, business_date, merchant_id, payment_id, leg, class, flagged, reasons,
                           subscription_id, transaction_id, billing_cycle, payment_date, payment_status,
                           amount, currency, found_amount, found_currency, found_status)
WITH pays AS (
    SELECT p.merchant_id, p.payment_id, p.subscription_id, p.transaction_id, p.billing_cycle, p.payment_date,
           p.status, p.currency,
           p.billing_amount + coalesce(p.setup_fee, 0) + coalesce(p.surcharge_amount, 0) AS charged,
           p.billing_amount + coalesce(p.setup_fee, 0) AS billed,
           CASE WHEN p.payment_date < getvariable('window_start') + INTERVAL 1 DAY THEN 'missing' ELSE 'late' END AS absent
    FROM subscription_payments p
    JOIN run_members rm ON rm.run_id = $1 AND rm.merchant_id = p.merchant_id AND rm.status = 'ok'
    WHERE p.status IN ('PAID', 'FAILED')
      AND p.payment_date >= getvariable('window_start') AND p.payment_date < getvariable('window_end')
),
notices AS (
    SELECT j.merchant_id, (j.request->>'transactionId') AS transaction_id, (j.request->>'event') AS event,
           TRY_CAST((j.request->>'billingAmount') AS DECIMAL(18,3)) + coalesce(TRY_CAST((j.request->>'setupFee') AS DECIMAL(18,3)), 0) AS amount,
           (j.request->>'currency') AS currency
    FROM journal j
    WHERE j.status BETWEEN 200 AND 299
      AND (j.request->>'event') IN ('PAYMENT_SUCCESS', 'PAYMENT_FAILURE')
      AND (j.request->>'transactionId') IS NOT NULL
    QUALIFY row_number() OVER (PARTITION BY j.merchant_id, (j.request->>'transactionId') ORDER BY j.time DESC, j.file, j.line) = 1
),
legs AS (
    SELECT 'transaction' AS leg, p.*, p.charged AS expected, t.transaction_id IS NOT NULL AS present,
           t.amount AS found_amount, t.currency AS found_currency, t.status AS found_status,
           CASE WHEN t.transaction_id IS NULL THEN NULL
                WHEN coalesce(t.r_code = '1', coalesce(t.status, '') NOT IN ('DECLINED', 'FAILED')) THEN 'PAID'
                ELSE 'FAILED' END AS found_outcome
    FROM pays p
    LEFT JOIN transactions t ON t.merchant_id = p.merchant_id AND t.transaction_id = p.transaction_id
    UNION ALL
    SELECT 'journal', p.*, p.billed, n.transaction_id IS NOT NULL,
           n.amount, n.currency, n.event,
           CASE n.event WHEN 'PAYMENT_SUCCESS' THEN 'PAID' WHEN 'PAYMENT_FAILURE' THEN 'FAILED' END
    FROM pays p
    LEFT JOIN notices n ON n.merchant_id = p.merchant_id AND n.transaction_id = p.transaction_id
),
judged AS (
    SELECT *,
           CASE WHEN NOT present THEN absent ELSE 'mismatch' END AS class,
           CASE WHEN present THEN concat_ws(', ',
               CASE WHEN found_amount IS DISTINCT FROM expected THEN 'amount' END,
               CASE WHEN found_currency IS DISTINCT FROM currency THEN 'currency' END,
               CASE WHEN found_outcome IS DISTINCT FROM status THEN 'status' END) END AS reasons
    FROM legs
)
SELECT $1, $2, merchant_id, payment_id, leg, class, class <> 'late', nullif(reasons, ''),
       subscription_id, transaction_id, billing_cycle, payment_date, status,
       expected, currency, found_amount, found_currency, found_status
FROM judged
WHERE NOT present OR reasons <> ''
