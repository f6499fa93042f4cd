-- amount_mismatch: a PAID subscription payment dated in the window whose
-- transaction's amount differs from billing amount + setup fee +
-- surcharge, or whose currency differs. Amount: the expected total.
SET VARIABLE window_start = TIMESTAMPTZ '2026-11-17 00:00:00+00'; -- business date 2026-11-20, lookback 3 days
SET VARIABLE window_end   = TIMESTAMPTZ '2026-11-21 00:00:00+00';

INSERT INTO subscription_payments (merchant_id, payment_id, subscription_id, status, payment_type, billing_cycle, payment_date, billing_amount, setup_fee, surcharge_amount, currency, transaction_id) VALUES
    -- Reported: the transaction left out the 0.30 surcharge.
    ('m1', 'pay-3', 'sub-3', 'PAID',   'STANDARD', 2, TIMESTAMPTZ '2026-11-19 10:00:00+00', 10.00, NULL, 0.30, 'USD', 'tx-3'),
    -- Reported: same amount, other currency.
    ('m1', 'pay-4', 'sub-4', 'PAID',   'STANDARD', 2, TIMESTAMPTZ '2026-11-19 11:00:00+00', 10.00, NULL, NULL, 'USD', 'tx-4'),
    -- Not reported: billing amount + setup fee + surcharge = 12.50 exactly.
    ('m1', 'pay-1', 'sub-1', 'PAID',   'STANDARD', 1, TIMESTAMPTZ '2026-11-18 10:00:00+00', 10.00, 2.00, 0.50, 'USD', 'tx-1'),
    -- Not reported: no setup fee or surcharge (NULL) adds nothing.
    ('m1', 'pay-2', 'sub-2', 'PAID',   'STANDARD', 3, TIMESTAMPTZ '2026-11-18 11:00:00+00', 10.00, NULL, NULL, 'USD', 'tx-2'),
    -- Not reported: FAILED (its transaction is a decline of 0).
    ('m1', 'pay-5', 'sub-5', 'FAILED', 'STANDARD', 2, TIMESTAMPTZ '2026-11-19 12:00:00+00', 10.00, NULL, NULL, 'USD', 'tx-5'),
    -- Not reported: mismatching, but paid the day before the window.
    ('m1', 'pay-6', 'sub-6', 'PAID',   'STANDARD', 2, TIMESTAMPTZ '2026-11-16 10:00:00+00', 10.00, NULL, NULL, 'USD', 'tx-6'),
    -- Not reported: m1 has no tx-7 (that is paid_without_transaction); the
    -- other member's tx-7 of 99.00 is not m1's.
    ('m1', 'pay-7', 'sub-7', 'PAID',   'STANDARD', 2, TIMESTAMPTZ '2026-11-20 10:00:00+00', 10.00, NULL, NULL, 'USD', 'tx-7');

INSERT INTO transactions (merchant_id, transaction_id, submit_time, amount, currency) VALUES
    ('m1', 'tx-1', TIMESTAMPTZ '2026-11-18 10:00:01+00', 12.50, 'USD'),
    ('m1', 'tx-2', TIMESTAMPTZ '2026-11-18 11:00:01+00', 10.00, 'USD'),
    ('m1', 'tx-3', TIMESTAMPTZ '2026-11-19 10:00:01+00', 10.00, 'USD'),
    ('m1', 'tx-4', TIMESTAMPTZ '2026-11-19 11:00:01+00', 10.00, 'EUR'),
    ('m1', 'tx-5', TIMESTAMPTZ '2026-11-19 12:00:01+00',  0.00, 'USD'),
    ('m1', 'tx-6', TIMESTAMPTZ '2026-11-16 10:00:01+00', 11.00, 'USD'),
    -- The other member's transactions with m1's ids: tx-1 would make
    -- m1's pay-1 a mismatch if the join forgot merchant_id.
    ('m2', 'tx-1', TIMESTAMPTZ '2026-11-18 09:00:00+00', 15.00, 'USD'),
    ('m2', 'tx-7', TIMESTAMPTZ '2026-11-20 09:00:00+00', 99.00, 'USD');
