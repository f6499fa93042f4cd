-- bin_unresolved: a BIN whose lookup ended MULTIPLE or NO MATCH, carried
-- by a member's in-window transactions or journal calls: one finding per
-- member and BIN, entity the BIN, no amount; detail.occurrences counts
-- the transactions and journal calls that carry it.
SET VARIABLE window_start = TIMESTAMPTZ '2026-11-17 00:00:00+00'; -- business date 2026-11-20, lookback 3 days
SET VARIABLE window_end   = TIMESTAMPTZ '2026-11-21 00:00:00+00';

INSERT INTO bin_attributes (bin, lookup_status, card_platform) VALUES
    ('400001', 'MULTIPLE',  NULL),
    ('400002', 'NO MATCH',  NULL),
    ('400003', 'COMPLETED', 'CONSUMER'),
    ('400004', 'MULTIPLE',  NULL);

INSERT INTO transactions (merchant_id, transaction_id, submit_time, amount, currency, card_bin, card_last4) VALUES
    -- Reported m1 400001: two transactions ...
    ('m1', 'tx-1', TIMESTAMPTZ '2026-11-18 10:00:00+00', 10.00, 'USD', '400001', '0001'),
    ('m1', 'tx-2', TIMESTAMPTZ '2026-11-19 10:00:00+00', 10.00, 'USD', '400001', '0002'),
    -- Not reported: a BIN the lookup resolved.
    ('m1', 'tx-3', TIMESTAMPTZ '2026-11-19 11:00:00+00', 10.00, 'USD', '400003', '0003'),
    -- Not reported: unresolved, but carried only the day before the window.
    ('m1', 'tx-4', TIMESTAMPTZ '2026-11-16 11:00:00+00', 10.00, 'USD', '400004', '0004'),
    -- Not reported: a BIN not looked up (yet): nothing known either way.
    ('m1', 'tx-5', TIMESTAMPTZ '2026-11-19 12:00:00+00', 10.00, 'USD', '400005', '0005'),
    -- Reported m2 400001, apart from m1's: one occurrence.
    ('m2', 'tx-9', TIMESTAMPTZ '2026-11-20 10:00:00+00', 10.00, 'EUR', '400001', '0009');

INSERT INTO journal (merchant_id, file, line, time, path, status, call_kind, transaction_id, card_bin, card_last4, amount, currency) VALUES
    -- ... and the journal line of tx-1. occurrences adds up rows of both
    -- sources, so this call, also returned by Transaction Search, counts
    -- twice: 3 occurrences for two payments.
    ('m1', 'journal-m1.ndjson', 1, TIMESTAMPTZ '2026-11-18 10:00:00+00', '/pts/v2/payments', 201, 'sale', 'tx-1', '400001', '0001', 10.00, 'USD'),
    -- Reported m1 400002: a NO MATCH BIN only the journal carries.
    ('m1', 'journal-m1.ndjson', 2, TIMESTAMPTZ '2026-11-19 13:00:00+00', '/pts/v2/payments', 201, 'sale', 'sale-2', '400002', '0002', 10.00, 'USD');
