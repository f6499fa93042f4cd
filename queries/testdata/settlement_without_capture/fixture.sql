-- settlement_without_capture: a settlement requested in the window, with a
-- batch, whose request id is no transaction of its member.
SET VARIABLE window_start = TIMESTAMPTZ '2026-11-17 00:00:00+00'; -- business date 2026-11-20, lookback 3 days
SET VARIABLE window_end   = TIMESTAMPTZ '2026-11-21 00:00:00+00';

INSERT INTO settlements (merchant_id, request_id, transaction_type, request_time, settlement_status, batch_id, batch_time, amount, currency) VALUES
    -- Reported: no transaction rq-1.
    ('m1', 'rq-1', 'Purchases', TIMESTAMPTZ '2026-11-17 00:00:00+00', 'Settled', 'b1', TIMESTAMPTZ '2026-11-18 00:00:00+00', 25.00, 'USD'),
    -- Not reported: its transaction is there.
    ('m1', 'tx-1', 'Purchases', TIMESTAMPTZ '2026-11-18 10:00:00+00', 'Settled', 'b2', TIMESTAMPTZ '2026-11-19 00:00:00+00', 10.00, 'USD'),
    -- Not reported: requested before the window (its transaction was not searched).
    ('m1', 'rq-2', 'Purchases', TIMESTAMPTZ '2026-11-16 23:59:59+00', 'Settled', 'b0', TIMESTAMPTZ '2026-11-17 00:00:00+00', 5.00, 'USD'),
    -- Not reported: pending (capture_not_settled's business).
    ('m1', 'rq-3', 'Purchases', TIMESTAMPTZ '2026-11-18 10:00:00+00', 'Pending', NULL, NULL, 6.00, 'USD'),
    -- Not reported: the other member's tx-2 is no transaction of m1... but
    -- m1's rq-4 is reported, tx-2 is m2's.
    ('m1', 'tx-2', 'Refunds',   TIMESTAMPTZ '2026-11-20 10:00:00+00', 'Settled', 'b3', TIMESTAMPTZ '2026-11-21 00:00:00+00', 7.00, 'USD'),
    -- Not reported: m3 has no transaction of the window at all (not read).
    ('m3', 'rq-5', 'Purchases', TIMESTAMPTZ '2026-11-18 10:00:00+00', 'Settled', 'b4', TIMESTAMPTZ '2026-11-19 00:00:00+00', 8.00, 'USD');

INSERT INTO transactions (merchant_id, transaction_id, submit_time, status, application_names, amount, currency) VALUES
    ('m1', 'tx-1', TIMESTAMPTZ '2026-11-18 10:00:00+00', 'PENDING', 'ics_bill', 10.00, 'USD'),
    ('m2', 'tx-2', TIMESTAMPTZ '2026-11-20 10:00:00+00', 'PENDING', 'ics_credit', 7.00, 'USD');
