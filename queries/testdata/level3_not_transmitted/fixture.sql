-- level3_not_transmitted: a capture or sale, answered 2xx in the window,
-- that sent Level III (purchaseLevel 3, or line items) and whose response
-- said Level III was not transmitted (journal.level3_status 'N',
-- normalised at import from "N" or false). N on a call that sent no Level
-- III means only that none was sent (the SDK's
-- level3TransmissionStatus), and credits are not answered the status.
-- One finding per response id, from its first journal line.
SET VARIABLE window_start = TIMESTAMPTZ '2026-11-17 00:00:00+00'; -- business date 2026-11-20, lookback 3 days
SET VARIABLE window_end   = TIMESTAMPTZ '2026-11-21 00:00:00+00';

INSERT INTO journal (merchant_id, file, line, time, path, status, call_kind, transaction_id, parent_id, amount, currency, purchase_level, line_item_count, level3_status) VALUES
    -- Reported: a capture answered level3TransmissionStatus N, journaled
    -- twice (line 1 and a replayed copy in another file): one finding,
    -- from line 1.
    ('m1', 'journal-m1.ndjson',  1, TIMESTAMPTZ '2026-11-18 10:00:00+00', '/pts/v2/payments/auth-1/captures', 201, 'capture', 'cap-1', 'auth-1', 120.00, 'USD', '3', 2, 'N'),
    ('m1', 'replay-m1.ndjson',   7, TIMESTAMPTZ '2026-11-18 10:00:00+00', '/pts/v2/payments/auth-1/captures', 201, 'capture', 'cap-1', 'auth-1', 120.00, 'USD', '3', 2, 'N'),
    -- Not reported: a stand-alone credit (the platform answers the status
    -- on payments and captures only).
    ('m1', 'journal-m1.ndjson',  2, TIMESTAMPTZ '2026-11-19 10:00:00+00', '/pts/v2/credits', 201, 'credit', 'cr-2', NULL, 40.00, 'USD', '3', 1, 'N'),
    -- Not reported: a capture and a sale that sent no Level III (no
    -- purchaseLevel, no line items), answered N: Level III not sent, not
    -- a transmission failure; a purchaseLevel other than 3.
    ('m1', 'journal-m1.ndjson', 10, TIMESTAMPTZ '2026-11-19 15:00:00+00', '/pts/v2/payments/auth-10/captures', 201, 'capture', 'cap-10', 'auth-10', 90.00, 'USD', NULL, NULL, 'N'),
    ('m1', 'journal-m1.ndjson', 11, TIMESTAMPTZ '2026-11-19 16:00:00+00', '/pts/v2/payments', 201, 'sale', 'sale-11', NULL, 90.00, 'USD', NULL, 0, 'N'),
    ('m1', 'journal-m1.ndjson', 12, TIMESTAMPTZ '2026-11-19 17:00:00+00', '/pts/v2/payments', 201, 'sale', 'sale-12', NULL, 90.00, 'USD', '2', 0, 'N'),
    -- Reported: a sale that sent line items without purchaseLevel.
    ('m1', 'journal-m1.ndjson', 13, TIMESTAMPTZ '2026-11-19 18:00:00+00', '/pts/v2/payments', 201, 'sale', 'sale-13', NULL, 95.00, 'USD', NULL, 2, 'N'),
    -- Not reported: an authorization (Level III travels with the capture).
    ('m1', 'journal-m1.ndjson',  3, TIMESTAMPTZ '2026-11-19 11:00:00+00', '/pts/v2/payments', 201, 'authorization', 'auth-3', NULL, 75.00, 'USD', '3', 1, 'N'),
    -- Not reported: transmitted (Y), and a response that does not say.
    ('m1', 'journal-m1.ndjson',  4, TIMESTAMPTZ '2026-11-19 12:00:00+00', '/pts/v2/payments', 201, 'sale', 'sale-4', NULL, 75.00, 'USD', '3', 1, 'Y'),
    ('m1', 'journal-m1.ndjson',  5, TIMESTAMPTZ '2026-11-19 13:00:00+00', '/pts/v2/payments', 201, 'sale', 'sale-5', NULL, 75.00, 'USD', NULL, NULL, NULL),
    -- Not reported: answered 400 (no transaction).
    ('m1', 'journal-m1.ndjson',  6, TIMESTAMPTZ '2026-11-19 14:00:00+00', '/pts/v2/payments/auth-3/captures', 400, 'capture', 'cap-6', 'auth-3', 75.00, 'USD', '3', 1, 'N'),
    -- Not reported: the day before the window.
    ('m1', 'journal-m1.ndjson',  8, TIMESTAMPTZ '2026-11-16 23:00:00+00', '/pts/v2/payments', 201, 'sale', 'sale-8', NULL, 75.00, 'USD', '3', 1, 'N'),
    -- Reported for the other member too: its capture has m1's response id
    -- cap-1; the two members' calls are two findings.
    ('m2', 'journal-m2.ndjson',  1, TIMESTAMPTZ '2026-11-20 09:00:00+00', '/pts/v2/payments/auth-9/captures', 201, 'capture', 'cap-1', 'auth-9', 60.00, 'EUR', '3', 1, 'N');
