-- settled_amount_mismatch: a settlement requested in the window whose amount
-- or currency differs from its transaction's.
SET VARIABLE window_start = TIMESTAMPTZ '2026-11-17 00:00:00+00'; -- business date 2026-11-20, lookback 3 days
SET VARIABLE window_end   = TIMESTAMPTZ '2026-11-21 00:00:00+00';

INSERT INTO settlements (merchant_id, request_id, transaction_type, request_time, settlement_status, batch_id, batch_time, amount, currency, funding_amount, funding_currency) VALUES
    -- Reported: settled 1.00 more than captured.
    ('m1', 'tx-1', 'Purchases', TIMESTAMPTZ '2026-11-17 10:00:00+00', 'Settled', 'b1', TIMESTAMPTZ '2026-11-18 00:00:00+00', 11.00, 'USD', 10.70, 'USD'),
    -- Reported: same amount, other currency.
    ('m1', 'tx-2', 'Purchases', TIMESTAMPTZ '2026-11-17 11:00:00+00', 'Settled', 'b1', TIMESTAMPTZ '2026-11-18 00:00:00+00', 10.00, 'EUR', 9.70, 'EUR'),
    -- Not reported: equal, funded in another currency.
    ('m1', 'tx-3', 'Purchases', TIMESTAMPTZ '2026-11-17 12:00:00+00', 'Settled', 'b1', TIMESTAMPTZ '2026-11-18 00:00:00+00', 10.00, 'USD', 9.70, 'EUR'),
    -- Not reported: equal (10.000 is 10.00).
    ('m1', 'tx-4', 'Purchases', TIMESTAMPTZ '2026-11-20 23:59:59+00', 'Settled', 'b2', TIMESTAMPTZ '2026-11-21 00:00:00+00', 10.000, 'USD', 9.70, 'USD'),
    -- Not reported: requested before the window.
    ('m1', 'tx-5', 'Purchases', TIMESTAMPTZ '2026-11-16 10:00:00+00', 'Settled', 'b0', TIMESTAMPTZ '2026-11-17 00:00:00+00', 99.00, 'USD', 96.00, 'USD'),
    -- Not reported: pending, no batch.
    ('m1', 'tx-6', 'Purchases', TIMESTAMPTZ '2026-11-18 10:00:00+00', 'Pending', NULL, NULL, 99.00, 'USD', NULL, NULL),
    -- Not reported: the transaction tx-1 of m2 differs, but this is m2's own and equal.
    ('m2', 'tx-1', 'Purchases', TIMESTAMPTZ '2026-11-17 10:00:00+00', 'Settled', 'b9', TIMESTAMPTZ '2026-11-18 00:00:00+00', 50.00, 'USD', 48.00, 'USD');

INSERT INTO transactions (merchant_id, transaction_id, submit_time, status, application_names, amount, currency) VALUES
    ('m1', 'tx-1', TIMESTAMPTZ '2026-11-17 10:00:00+00', 'PENDING', 'ics_bill', 10.00, 'USD'),
    ('m1', 'tx-2', TIMESTAMPTZ '2026-11-17 11:00:00+00', 'PENDING', 'ics_bill', 10.00, 'USD'),
    ('m1', 'tx-3', TIMESTAMPTZ '2026-11-17 12:00:00+00', 'PENDING', 'ics_bill', 10.00, 'USD'),
    ('m1', 'tx-4', TIMESTAMPTZ '2026-11-20 23:59:59+00', 'PENDING', 'ics_bill', 10.00, 'USD'),
    ('m1', 'tx-5', TIMESTAMPTZ '2026-11-16 10:00:00+00', 'PENDING', 'ics_bill', 10.00, 'USD'),
    ('m1', 'tx-6', TIMESTAMPTZ '2026-11-18 10:00:00+00', 'PENDING', 'ics_bill', 10.00, 'USD'),
    ('m2', 'tx-1', TIMESTAMPTZ '2026-11-17 10:00:00+00', 'PENDING', 'ics_bill', 50.00, 'USD');
