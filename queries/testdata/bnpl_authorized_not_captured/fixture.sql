-- bnpl_authorized_not_captured: a buy-now-pay-later authorization
-- (actionList AP_AUTH) in the window answered AUTHORIZED that no capture
-- or reversal of the member (a call on its /captures or /reversals,
-- answered 2xx) followed before the cut-off (window_end).
SET VARIABLE window_start = TIMESTAMPTZ '2026-11-17 00:00:00+00'; -- business date 2026-11-20, lookback 3 days
SET VARIABLE window_end   = TIMESTAMPTZ '2026-11-21 00:00:00+00'; -- the cut-off

INSERT INTO journal (merchant_id, file, line, time, path, status, call_kind, transaction_id, parent_id, amount, currency, response_status, action_list, session_token, country) VALUES
    -- Reported ap-1: authorized, never captured.
    ('m1', 'journal-m1.ndjson',  1, TIMESTAMPTZ '2026-11-18 10:00:00+00', '/pts/v2/payments', 201, 'authorization', 'ap-1', NULL, 150.00, 'USD', 'AUTHORIZED', 'AP_AUTH', 'tok-1', 'US'),
    -- Not reported ap-2: captured the next day.
    ('m1', 'journal-m1.ndjson',  2, TIMESTAMPTZ '2026-11-18 11:00:00+00', '/pts/v2/payments', 201, 'authorization', 'ap-2', NULL, 150.00, 'USD', 'AUTHORIZED', 'AP_AUTH', 'tok-2', 'US'),
    ('m1', 'journal-m1.ndjson',  3, TIMESTAMPTZ '2026-11-19 11:00:00+00', '/pts/v2/payments/ap-2/captures', 201, 'capture', 'cap-2', 'ap-2', 150.00, 'USD', 'PENDING', NULL, NULL, NULL),
    -- Not reported ap-3: reversed (the order will not ship).
    ('m1', 'journal-m1.ndjson',  4, TIMESTAMPTZ '2026-11-18 12:00:00+00', '/pts/v2/payments', 201, 'authorization', 'ap-3', NULL, 70.00, 'USD', 'AUTHORIZED', 'AP_AUTH', 'tok-3', 'US'),
    ('m1', 'journal-m1.ndjson',  5, TIMESTAMPTZ '2026-11-18 15:00:00+00', '/pts/v2/payments/ap-3/reversals', 201, 'reversal', 'rev-3', 'ap-3', 70.00, 'USD', 'REVERSED', NULL, NULL, NULL),
    -- Reported ap-4: its capture was answered 400.
    ('m1', 'journal-m1.ndjson',  6, TIMESTAMPTZ '2026-11-18 13:00:00+00', '/pts/v2/payments', 201, 'authorization', 'ap-4', NULL, 90.00, 'USD', 'AUTHORIZED', 'AP_AUTH', NULL, 'GB'),
    ('m1', 'journal-m1.ndjson',  7, TIMESTAMPTZ '2026-11-19 13:00:00+00', '/pts/v2/payments/ap-4/captures', 400, 'capture', NULL, 'ap-4', 90.00, 'USD', 'INVALID_REQUEST', NULL, NULL, NULL),
    -- Reported ap-5: captured, but at the cut-off, not before it.
    ('m1', 'journal-m1.ndjson',  8, TIMESTAMPTZ '2026-11-18 14:00:00+00', '/pts/v2/payments', 201, 'authorization', 'ap-5', NULL, 40.00, 'USD', 'AUTHORIZED', 'AP_AUTH', 'tok-5', 'US'),
    ('m1', 'journal-m1.ndjson',  9, TIMESTAMPTZ '2026-11-21 00:00:00+00', '/pts/v2/payments/ap-5/captures', 201, 'capture', 'cap-5', 'ap-5', 40.00, 'USD', 'PENDING', NULL, NULL, NULL),
    -- Not reported: answered PENDING (the provider has not decided); a
    -- card authorization (no AP_AUTH); authorized before the window.
    ('m1', 'journal-m1.ndjson', 10, TIMESTAMPTZ '2026-11-19 10:00:00+00', '/pts/v2/payments', 201, 'authorization', 'ap-6', NULL, 40.00, 'USD', 'PENDING', 'AP_AUTH', 'tok-6', 'US'),
    ('m1', 'journal-m1.ndjson', 11, TIMESTAMPTZ '2026-11-19 11:00:00+00', '/pts/v2/payments', 201, 'authorization', 'auth-7', NULL, 40.00, 'USD', 'AUTHORIZED', NULL, NULL, 'US'),
    ('m1', 'journal-m1.ndjson', 12, TIMESTAMPTZ '2026-11-16 11:00:00+00', '/pts/v2/payments', 201, 'authorization', 'ap-8', NULL, 40.00, 'USD', 'AUTHORIZED', 'AP_AUTH', 'tok-8', 'US'),
    -- The other member captured an ap-1: it does not capture m1's.
    ('m2', 'journal-m2.ndjson',  1, TIMESTAMPTZ '2026-11-19 10:00:00+00', '/pts/v2/payments/ap-1/captures', 201, 'capture', 'cap-9', 'ap-1', 150.00, 'USD', 'PENDING', NULL, NULL, NULL),
    -- Reported for the other member too, apart from m1's ap-4 (same id).
    ('m2', 'journal-m2.ndjson',  2, TIMESTAMPTZ '2026-11-19 09:00:00+00', '/pts/v2/payments', 201, 'authorization', 'ap-4', NULL, 25.00, 'USD', 'AUTHORIZED', 'AP_AUTH', 'tok-m2', 'US');
