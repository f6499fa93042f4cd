-- bnpl_session_stale: a buy-now-pay-later session (call_kind bnpl_session,
-- answered 2xx PENDING) created in the window but longer ago than the
-- session age (bnpl_session_age, 24 hours when unset, as here) at the
-- cut-off (window_end), whose token no authorization of the member
-- answered AUTHORIZED or PENDING carried (as preApprovalToken) before the
-- cut-off. detail.age_hours: whole hours elapsed at the cut-off, rounded
-- down.
SET VARIABLE window_start = TIMESTAMPTZ '2026-11-17 00:00:00+00'; -- business date 2026-11-20, lookback 3 days
SET VARIABLE window_end   = TIMESTAMPTZ '2026-11-21 00:00:00+00'; -- the cut-off: sessions before 2026-11-20 00:00 are judged

INSERT INTO journal (merchant_id, file, line, time, path, status, call_kind, transaction_id, amount, currency, response_status, action_list, session_token, country) VALUES
    -- Reported ses-1: a second over 24 hours old, never authorized; its
    -- age_hours is 24, the whole hours elapsed (not 25, the hour
    -- boundaries crossed).
    ('m1', 'journal-m1.ndjson',  1, TIMESTAMPTZ '2026-11-19 23:59:59+00', '/pts/v2/payment-references', 201, 'bnpl_session',  'ses-1', 150.00, 'USD', 'PENDING',    'AP_SESSIONS', 'tok-1', 'US'),
    -- Not reported ses-2: authorized five minutes later with its token.
    ('m1', 'journal-m1.ndjson',  2, TIMESTAMPTZ '2026-11-18 10:00:00+00', '/pts/v2/payment-references', 201, 'bnpl_session',  'ses-2', 150.00, 'USD', 'PENDING',    'AP_SESSIONS', 'tok-2', 'US'),
    ('m1', 'journal-m1.ndjson',  3, TIMESTAMPTZ '2026-11-18 10:05:00+00', '/pts/v2/payments',           201, 'authorization', 'ap-2',  150.00, 'USD', 'AUTHORIZED', 'AP_AUTH',     'tok-2', 'US'),
    -- Not reported ses-3: exactly 24 hours old at the cut-off: not older
    -- than the age yet.
    ('m1', 'journal-m1.ndjson',  4, TIMESTAMPTZ '2026-11-20 00:00:00+00', '/pts/v2/payment-references', 201, 'bnpl_session',  'ses-3', 150.00, 'USD', 'PENDING',    'AP_SESSIONS', 'tok-3', 'US'),
    -- Reported ses-4: its authorization was DECLINED.
    ('m1', 'journal-m1.ndjson',  5, TIMESTAMPTZ '2026-11-18 11:00:00+00', '/pts/v2/payment-references', 201, 'bnpl_session',  'ses-4', 80.00,  'USD', 'PENDING',    'AP_SESSIONS', 'tok-4', 'US'),
    ('m1', 'journal-m1.ndjson',  6, TIMESTAMPTZ '2026-11-18 11:10:00+00', '/pts/v2/payments',           201, 'authorization', 'ap-4',  80.00,  'USD', 'DECLINED',   'AP_AUTH',     'tok-4', 'US'),
    -- Reported ses-5: authorized, but only at the cut-off (the journal
    -- runs past it when a date is re-run).
    ('m1', 'journal-m1.ndjson',  7, TIMESTAMPTZ '2026-11-18 12:00:00+00', '/pts/v2/payment-references', 201, 'bnpl_session',  'ses-5', 60.00,  'USD', 'PENDING',    'AP_SESSIONS', 'tok-5', 'US'),
    ('m1', 'journal-m1.ndjson',  8, TIMESTAMPTZ '2026-11-21 00:00:00+00', '/pts/v2/payments',           201, 'authorization', 'ap-5',  60.00,  'USD', 'AUTHORIZED', 'AP_AUTH',     'tok-5', 'US'),
    -- Not reported ses-6: the session itself FAILED (not PENDING).
    ('m1', 'journal-m1.ndjson',  9, TIMESTAMPTZ '2026-11-18 13:00:00+00', '/pts/v2/payment-references', 201, 'bnpl_session',  'ses-6', 60.00,  'USD', 'FAILED',     'AP_SESSIONS', NULL,    'US'),
    -- Not reported ses-7: created before the window.
    ('m1', 'journal-m1.ndjson', 10, TIMESTAMPTZ '2026-11-16 23:00:00+00', '/pts/v2/payment-references', 201, 'bnpl_session',  'ses-7', 60.00,  'USD', 'PENDING',    'AP_SESSIONS', 'tok-7', 'US'),
    -- Not reported ses-8: its authorization is PENDING (the provider is
    -- still deciding): the customer came back.
    ('m1', 'journal-m1.ndjson', 11, TIMESTAMPTZ '2026-11-18 14:00:00+00', '/pts/v2/payment-references', 201, 'bnpl_session',  'ses-8', 60.00,  'USD', 'PENDING',    'AP_SESSIONS', 'tok-8', 'US'),
    ('m1', 'journal-m1.ndjson', 12, TIMESTAMPTZ '2026-11-18 14:10:00+00', '/pts/v2/payments',           201, 'authorization', 'ap-8',  60.00,  'USD', 'PENDING',    'AP_AUTH',     'tok-8', 'US'),
    -- Reported ses-9: a second short of 72 hours old: age_hours 71.
    ('m1', 'journal-m1.ndjson', 13, TIMESTAMPTZ '2026-11-18 00:00:01+00', '/pts/v2/payment-references', 201, 'bnpl_session',  'ses-9', 45.00,  'USD', 'PENDING',    'AP_SESSIONS', 'tok-9', 'US'),
    -- The other member authorized a tok-1: it does not complete m1's ses-1.
    ('m2', 'journal-m2.ndjson',  1, TIMESTAMPTZ '2026-11-20 10:00:00+00', '/pts/v2/payments',           201, 'authorization', 'ap-9',  150.00, 'USD', 'AUTHORIZED', 'AP_AUTH',     'tok-1', 'US'),
    -- Reported for the other member too, apart from m1's ses-1 (same id).
    ('m2', 'journal-m2.ndjson',  2, TIMESTAMPTZ '2026-11-18 09:00:00+00', '/pts/v2/payment-references', 201, 'bnpl_session',  'ses-1', 30.00,  'GBP', 'PENDING',    'AP_SESSIONS', 'tok-m2', 'GB');
