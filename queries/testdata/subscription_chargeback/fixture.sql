-- subscription_chargeback: a chargeback recorded in the window on the
-- transaction of a subscription payment of the same member; one finding
-- per disputed transaction (its latest chargeback in the window), with the
-- subscription, its cycle and the response's due date.
SET VARIABLE window_start = TIMESTAMPTZ '2026-11-17 00:00:00+00';
SET VARIABLE window_end   = TIMESTAMPTZ '2026-11-21 00:00:00+00';

INSERT INTO subscription_payments (merchant_id, payment_id, subscription_id, status, billing_cycle, payment_date, billing_amount, currency, transaction_id) VALUES
    ('m1', 'pay-1', 'sub-1', 'PAID', 4, TIMESTAMPTZ '2026-11-01 09:00:00+00', 19.99, 'USD', 'tx-1'),
    ('m1', 'pay-2', 'sub-2', 'PAID', 2, TIMESTAMPTZ '2026-11-02 09:00:00+00', 5.00,  'EUR', 'tx-2'),
    ('m1', 'pay-3', 'sub-3', 'PAID', 7, TIMESTAMPTZ '2026-10-15 09:00:00+00', 30.00, 'USD', 'tx-3'),
    -- m2's payment on a transaction id m1 also has a chargeback on.
    ('m2', 'pay-9', 'sub-9', 'PAID', 1, TIMESTAMPTZ '2026-11-03 09:00:00+00', 12.00, 'USD', 'tx-9');

INSERT INTO chargebacks (merchant_id, request_id, time, reason_code, amount, currency, response_due) VALUES
    -- Reported tx-1: cycle 4 of sub-1.
    ('m1', 'tx-1', TIMESTAMPTZ '2026-11-20 10:00:00+00', '13.2', 19.99, 'USD', TIMESTAMPTZ '2026-12-10 10:00:00+00'),
    -- Not reported tx-5: a one-off payment (no subscription payment).
    ('m1', 'tx-5', TIMESTAMPTZ '2026-11-20 10:01:00+00', '10.4', 75.00, 'USD', TIMESTAMPTZ '2026-12-10 10:01:00+00'),
    -- Reported tx-2 once: two chargebacks in the window, the latest (a
    -- second chargeback) reported.
    ('m1', 'tx-2', TIMESTAMPTZ '2026-11-17 00:00:00+00', '13.2', 5.00, 'EUR', TIMESTAMPTZ '2026-12-07 00:00:00+00'),
    ('m1', 'tx-2', TIMESTAMPTZ '2026-11-19 12:00:00+00', '13.7', 5.00, 'EUR', TIMESTAMPTZ '2026-12-09 12:00:00+00'),
    -- Not reported tx-3: recorded at the window's end (exclusive).
    ('m1', 'tx-3', TIMESTAMPTZ '2026-11-21 00:00:00+00', '13.2', 30.00, 'USD', TIMESTAMPTZ '2026-12-11 00:00:00+00'),
    -- Not reported: m1's chargeback on tx-9, which is m2's subscription
    -- payment, not m1's.
    ('m1', 'tx-9', TIMESTAMPTZ '2026-11-18 10:00:00+00', '13.2', 12.00, 'USD', TIMESTAMPTZ '2026-12-08 10:00:00+00');
