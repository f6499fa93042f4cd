-- bnpl_unsupported_country_currency: a buy-now-pay-later session or
-- authorization (actionList AP_AUTH), answered 2xx in the window, whose
-- country and currency are not a supported pair: AU AUD, CA CAD (or CAN,
-- as the spec writes it), NZ NZD, GB GBP, US USD. A missing country or
-- currency is unsupported. Currency in any case.
SET VARIABLE window_start = TIMESTAMPTZ '2026-11-17 00:00:00+00'; -- business date 2026-11-20, lookback 3 days
SET VARIABLE window_end   = TIMESTAMPTZ '2026-11-21 00:00:00+00';

INSERT INTO journal (merchant_id, file, line, time, path, status, call_kind, transaction_id, amount, currency, response_status, action_list, country) VALUES
    -- Not reported: supported pairs, CAN as the spec writes it, a currency
    -- in lower case.
    ('m1', 'journal-m1.ndjson', 1, TIMESTAMPTZ '2026-11-18 10:00:00+00', '/pts/v2/payment-references', 201, 'bnpl_session',  'ses-1', 100.00, 'USD', 'PENDING',    'AP_SESSIONS', 'US'),
    ('m1', 'journal-m1.ndjson', 2, TIMESTAMPTZ '2026-11-18 11:00:00+00', '/pts/v2/payment-references', 201, 'bnpl_session',  'ses-2', 100.00, 'CAD', 'PENDING',    'AP_SESSIONS', 'CA'),
    ('m1', 'journal-m1.ndjson', 3, TIMESTAMPTZ '2026-11-18 11:05:00+00', '/pts/v2/payments',           201, 'authorization', 'ap-3',  100.00, 'CAN', 'AUTHORIZED', 'AP_AUTH',     'CA'),
    ('m1', 'journal-m1.ndjson', 4, TIMESTAMPTZ '2026-11-18 12:00:00+00', '/pts/v2/payment-references', 201, 'bnpl_session',  'ses-4', 100.00, 'gbp', 'PENDING',    'AP_SESSIONS', 'GB'),
    -- Reported ap-5: a US customer billed in euros; the platform answered
    -- FAILED.
    ('m1', 'journal-m1.ndjson', 5, TIMESTAMPTZ '2026-11-19 10:00:00+00', '/pts/v2/payments',           201, 'authorization', 'ap-5',  120.00, 'EUR', 'FAILED',     'AP_AUTH',     'US'),
    -- Reported ses-6: no country sent (neither billTo nor shipTo).
    ('m1', 'journal-m1.ndjson', 6, TIMESTAMPTZ '2026-11-19 11:00:00+00', '/pts/v2/payment-references', 201, 'bnpl_session',  'ses-6', 80.00,  'AUD', 'PENDING',    'AP_SESSIONS', NULL),
    -- Not reported: a card authorization in Germany (not buy-now-pay-later).
    ('m1', 'journal-m1.ndjson', 7, TIMESTAMPTZ '2026-11-19 12:00:00+00', '/pts/v2/payments',           201, 'authorization', 'auth-7', 50.00,  'EUR', 'AUTHORIZED', NULL,          'DE'),
    -- Not reported: answered 400; before the window.
    ('m1', 'journal-m1.ndjson', 8, TIMESTAMPTZ '2026-11-19 13:00:00+00', '/pts/v2/payment-references', 400, 'bnpl_session',  'ses-8', 50.00,  'EUR', 'INVALID_REQUEST', 'AP_SESSIONS', 'DE'),
    ('m1', 'journal-m1.ndjson', 9, TIMESTAMPTZ '2026-11-16 13:00:00+00', '/pts/v2/payment-references', 201, 'bnpl_session',  'ses-9', 50.00,  'EUR', 'PENDING',    'AP_SESSIONS', 'FR'),
    -- Reported for the other member too, apart from m1's ap-5 (same id):
    -- New Zealand billed in Australian dollars.
    ('m2', 'journal-m2.ndjson', 1, TIMESTAMPTZ '2026-11-20 10:00:00+00', '/pts/v2/payments',           201, 'authorization', 'ap-5',  70.00,  'AUD', 'FAILED',     'AP_AUTH',     'NZ');
