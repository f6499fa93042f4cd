-- capture_not_settled: a purchase listed as not settled, or a window capture
-- the settlement reports do not list, more than settlement_days (3)
-- business days after its day at the business date (Friday 2026-11-20).
SET VARIABLE window_start = TIMESTAMPTZ '2026-11-17 00:00:00+00'; -- business date 2026-11-20, lookback 3 days
SET VARIABLE window_end   = TIMESTAMPTZ '2026-11-21 00:00:00+00';
SET VARIABLE settlement_days = 3;

INSERT INTO settlements (merchant_id, request_id, transaction_type, request_time, settlement_status, batch_id, batch_time, amount, currency) VALUES
    -- Reported: pending since Thursday 2026-11-12 (6 business days).
    ('m1', 'rq-1', 'Purchases', TIMESTAMPTZ '2026-11-12 10:00:00+00', 'Pending', NULL, NULL, 20.00, 'USD'),
    -- Not reported: pending since Tuesday 2026-11-17, exactly 3 business days (expected).
    ('m1', 'rq-2', 'Purchases', TIMESTAMPTZ '2026-11-17 10:00:00+00', 'Pending', NULL, NULL, 21.00, 'USD'),
    -- Reported: pending since Monday 2026-11-16, 4 business days.
    ('m1', 'rq-3', 'Purchases', TIMESTAMPTZ '2026-11-16 23:59:00+00', 'Pending', NULL, NULL, 22.00, 'EUR'),
    -- Not reported: a pending refund is no capture.
    ('m1', 'rq-4', 'Refunds',   TIMESTAMPTZ '2026-11-10 10:00:00+00', 'Pending', NULL, NULL, 5.00, 'USD'),
    -- Not reported: settled.
    ('m1', 'rq-5', 'Purchases', TIMESTAMPTZ '2026-11-10 10:00:00+00', 'Settled', 'b1', TIMESTAMPTZ '2026-11-11 00:00:00+00', 23.00, 'USD'),
    -- Not reported: settled capture of the window (tx-1).
    ('m1', 'tx-1', 'Purchases', TIMESTAMPTZ '2026-11-17 09:00:00+00', 'Settled', 'b2', TIMESTAMPTZ '2026-11-18 00:00:00+00', 10.00, 'USD');

INSERT INTO transactions (merchant_id, transaction_id, submit_time, status, application_names, amount, currency) VALUES
    ('m1', 'tx-1', TIMESTAMPTZ '2026-11-17 09:00:00+00', 'PENDING', 'ics_bill', 10.00, 'USD'),
    -- Not reported: not in the reports, but Tuesday is only 3 business days ago.
    ('m1', 'tx-2', TIMESTAMPTZ '2026-11-17 11:00:00+00', 'PENDING', 'ics_bill', 11.00, 'USD'),
    -- Not reported: an authorization (no ics_bill).
    ('m1', 'tx-3', TIMESTAMPTZ '2026-11-17 12:00:00+00', 'AUTHORIZED', 'ics_auth', 12.00, 'USD'),
    -- Not reported: m2 has no settlement rows at all (its reports were not read).
    ('m2', 'tx-9', TIMESTAMPTZ '2026-11-17 12:00:00+00', 'PENDING', 'ics_auth,ics_bill', 12.00, 'USD');
