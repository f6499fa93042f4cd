-- paid_without_transaction: a PAID subscription payment dated in the
-- window whose transaction the member's Transaction Search does not
-- return. Amount: billing amount + setup fee + surcharge.
SET VARIABLE window_start = TIMESTAMPTZ '2026-11-17 00:00:00+00'; -- business date 2026-11-20, lookback 3 days
SET VARIABLE window_end   = TIMESTAMPTZ '2026-11-21 00:00:00+00';

INSERT INTO subscription_payments (merchant_id, payment_id, subscription_id, status, payment_type, billing_cycle, payment_date, billing_amount, setup_fee, surcharge_amount, currency, transaction_id) VALUES
    -- Reported: PAID, no transaction tx-1; the surcharge counts.
    ('m1', 'pay-1', 'sub-1', 'PAID',   'STANDARD', 4, TIMESTAMPTZ '2026-11-18 10:00:00+00', 10.00, NULL, 0.30, 'USD', 'tx-1'),
    -- Reported: dated on the window's first instant (inclusive); cycle 1
    -- with its setup fee.
    ('m1', 'pay-0', 'sub-2', 'PAID',   'STANDARD', 1, TIMESTAMPTZ '2026-11-17 00:00:00+00', 10.00, 2.50, NULL, 'USD', 'tx-0'),
    -- Reported: tx-6 exists, but in the other member's transactions.
    ('m1', 'pay-6', 'sub-6', 'PAID',   'STANDARD', 2, TIMESTAMPTZ '2026-11-20 08:00:00+00', 10.00, NULL, NULL, 'USD', 'tx-6'),
    -- Reported: PAID with no transaction id at all.
    ('m1', 'pay-7', 'sub-7', 'PAID',   'STANDARD', 2, TIMESTAMPTZ '2026-11-20 09:00:00+00', 10.00, NULL, NULL, 'USD', NULL),
    -- Not reported: its transaction is there.
    ('m1', 'pay-2', 'sub-3', 'PAID',   'STANDARD', 3, TIMESTAMPTZ '2026-11-19 10:00:00+00', 10.00, NULL, NULL, 'USD', 'tx-2'),
    -- Not reported: FAILED, not PAID.
    ('m1', 'pay-3', 'sub-4', 'FAILED', 'STANDARD', 3, TIMESTAMPTZ '2026-11-19 10:00:00+00', 10.00, NULL, NULL, 'USD', 'tx-3'),
    -- Not reported: just before the window, and on its (exclusive) end.
    ('m1', 'pay-4', 'sub-5', 'PAID',   'STANDARD', 2, TIMESTAMPTZ '2026-11-16 23:59:59+00', 10.00, NULL, NULL, 'USD', 'tx-4'),
    ('m1', 'pay-5', 'sub-5', 'PAID',   'STANDARD', 3, TIMESTAMPTZ '2026-11-21 00:00:00+00', 10.00, NULL, NULL, 'USD', 'tx-5');

INSERT INTO transactions (merchant_id, transaction_id, submit_time, amount, currency) VALUES
    ('m1', 'tx-2', TIMESTAMPTZ '2026-11-19 10:00:01+00', 10.00, 'USD'),
    -- The other member's transaction, which must not count for m1's pay-6.
    ('m2', 'tx-6', TIMESTAMPTZ '2026-11-20 08:00:01+00', 10.00, 'USD');
