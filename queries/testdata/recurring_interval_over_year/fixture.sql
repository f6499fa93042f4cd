-- recurring_interval_over_year: a recurring MIT (initiator merchant,
-- commerceIndicator recurring, authorization or sale answered 2xx) in the
-- window made more than one year after the previous transaction of its
-- credential: the member's latest earlier journaled call its
-- previousTransactionId names (by response id or network transaction
-- id), else the member's latest earlier CIT that stored the same card.
--
-- Both members' journals were imported from one path, journal.ndjson (on
-- different days), so a file and line name a call only with its
-- merchant_id: the card of a call (journal_cards) must be joined on all
-- three.
SET VARIABLE window_start = TIMESTAMPTZ '2026-11-17 00:00:00+00'; -- business date 2026-11-20, lookback 3 days
SET VARIABLE window_end   = TIMESTAMPTZ '2026-11-21 00:00:00+00';

INSERT INTO journal (merchant_id, file, line, time, path, status, call_kind, transaction_id, network_transaction_id, card_bin, card_last4, amount, currency, response_status, commerce_indicator, initiator_type, credential_stored, mit_reason, previous_transaction_id) VALUES
    -- Reported mit-a: 382 days after cit-a, which it names.
    ('m1', 'journal.ndjson',  1, TIMESTAMPTZ '2025-11-01 10:00:00+00', '/pts/v2/payments', 201, 'authorization', 'cit-a', 'ntid-a', '411111', '1111', 20.00, 'USD', 'AUTHORIZED', 'internet',  'customer', true,  NULL, NULL),
    ('m1', 'journal.ndjson',  2, TIMESTAMPTZ '2026-11-18 10:00:00+00', '/pts/v2/payments', 201, 'sale',          'mit-a', NULL,     '411111', '1111', 20.00, 'USD', 'AUTHORIZED', 'recurring', 'merchant', false, '7',  'cit-a'),
    -- Not reported mit-b: exactly one year after cit-b (not more).
    ('m1', 'journal.ndjson',  3, TIMESTAMPTZ '2025-11-18 10:00:00+00', '/pts/v2/payments', 201, 'authorization', 'cit-b', 'ntid-b', '422222', '2222', 20.00, 'USD', 'AUTHORIZED', 'internet',  'customer', true,  NULL, NULL),
    ('m1', 'journal.ndjson',  4, TIMESTAMPTZ '2026-11-18 10:00:00+00', '/pts/v2/payments', 201, 'sale',          'mit-b', NULL,     '422222', '2222', 20.00, 'USD', 'AUTHORIZED', 'recurring', 'merchant', false, '7',  'cit-b'),
    -- Reported mit-c: no previousTransactionId; the CIT that stored its
    -- card is 536 days older.
    ('m1', 'journal.ndjson',  5, TIMESTAMPTZ '2025-06-01 10:00:00+00', '/pts/v2/payments', 201, 'authorization', 'cit-c', 'ntid-c', '433333', '3333', 35.00, 'USD', 'AUTHORIZED', 'internet',  'customer', true,  NULL, NULL),
    ('m1', 'journal.ndjson',  6, TIMESTAMPTZ '2026-11-19 10:00:00+00', '/pts/v2/payments', 201, 'sale',          'mit-c', NULL,     '433333', '3333', 35.00, 'USD', 'AUTHORIZED', 'Recurring', 'merchant', false, '7',  NULL),
    -- Not reported mit-d: names the network transaction id of last
    -- month's MIT (the one network that asks for the latest).
    ('m1', 'journal.ndjson',  7, TIMESTAMPTZ '2026-10-18 10:00:00+00', '/pts/v2/payments', 201, 'sale',          'mit-d0', 'ntid-d0', '444444', '4444', 15.00, 'USD', 'AUTHORIZED', 'recurring', 'merchant', false, '7', 'ntid-d'),
    ('m1', 'journal.ndjson',  8, TIMESTAMPTZ '2026-11-18 10:00:00+00', '/pts/v2/payments', 201, 'sale',          'mit-d', NULL,     '444444', '4444', 15.00, 'USD', 'AUTHORIZED', 'recurring', 'merchant', false, '7',  'ntid-d0'),
    -- Not reported mit-e: names a CIT of 2024, but is not recurring
    -- (unscheduled, commerceIndicator internet).
    ('m1', 'journal.ndjson',  9, TIMESTAMPTZ '2024-06-01 10:00:00+00', '/pts/v2/payments', 201, 'authorization', 'cit-e', 'ntid-e', '455555', '5555', 60.00, 'USD', 'AUTHORIZED', 'internet',  'customer', true,  NULL, NULL),
    ('m1', 'journal.ndjson', 10, TIMESTAMPTZ '2026-11-19 10:00:00+00', '/pts/v2/payments', 201, 'authorization', 'mit-e', NULL,     '455555', '5555', 60.00, 'USD', 'AUTHORIZED', 'internet',  'merchant', false, '10', 'cit-e'),
    -- Not reported mit-f: it names cit-f, which only the other member
    -- journaled (in 2024, below); m1's own CIT storing its card is from
    -- September. The other member's call would make it over a year if the
    -- check forgot merchant_id.
    ('m1', 'journal.ndjson', 11, TIMESTAMPTZ '2026-09-01 10:00:00+00', '/pts/v2/payments', 201, 'authorization', 'cit-f1', 'ntid-f1', '466666', '6666', 10.00, 'USD', 'AUTHORIZED', 'internet', 'customer', true, NULL, NULL),
    ('m1', 'journal.ndjson', 12, TIMESTAMPTZ '2026-11-19 11:00:00+00', '/pts/v2/payments', 201, 'sale',          'mit-f', NULL,     '466666', '6666', 10.00, 'USD', 'AUTHORIZED', 'recurring', 'merchant', false, '7',  'cit-f'),
    ('m2', 'journal.ndjson',  1, TIMESTAMPTZ '2024-01-01 10:00:00+00', '/pts/v2/payments', 201, 'authorization', 'cit-f', 'ntid-f', '466666', '6666', 10.00, 'USD', 'AUTHORIZED', 'internet',  'customer', true,  NULL, NULL),
    -- The other member's calls at the line numbers of m1's cit-c and mit-c,
    -- the first storing mit-c's card (a customer of both members): if the
    -- check forgot merchant_id, they would give mit-c a CIT two weeks old,
    -- or the card of m1's recent cit-f1, and mit-c would go unreported.
    ('m2', 'journal.ndjson',  5, TIMESTAMPTZ '2026-11-01 10:00:00+00', '/pts/v2/payments', 201, 'authorization', 'cit-m2', 'ntid-m2', '433333', '3333', 10.00, 'USD', 'AUTHORIZED', 'internet', 'customer', true, NULL, NULL),
    ('m2', 'journal.ndjson',  6, TIMESTAMPTZ '2026-11-02 10:00:00+00', '/pts/v2/payments', 201, 'sale',          'sale-m2', 'ntid-s2', '466666', '6666', 10.00, 'USD', 'AUTHORIZED', 'internet', 'customer', false, NULL, NULL),
    -- NOTE: reported mit-g, by the rule as written, though its credential
    -- was used a month ago: like every MIT of this subscription it names
    -- the original CIT (cit-g, 398 days old), as the spec asks of most
    -- networks ("previousTransactionId: original transaction ID; for one
    -- network the last successful transaction ID"). A monthly subscription
    -- that follows the spec is reported from its thirteenth month on.
    ('m1', 'journal.ndjson', 13, TIMESTAMPTZ '2025-10-15 10:00:00+00', '/pts/v2/payments', 201, 'authorization', 'cit-g', 'ntid-g', '477777', '7777', 9.00, 'USD', 'AUTHORIZED', 'internet',  'customer', true,  NULL, NULL),
    ('m1', 'journal.ndjson', 14, TIMESTAMPTZ '2026-10-17 10:00:00+00', '/pts/v2/payments', 201, 'sale',          'mit-g0', NULL,    '477777', '7777', 9.00, 'USD', 'AUTHORIZED', 'recurring', 'merchant', false, '7',  'cit-g'),
    ('m1', 'journal.ndjson', 15, TIMESTAMPTZ '2026-11-17 10:00:00+00', '/pts/v2/payments', 201, 'sale',          'mit-g', NULL,     '477777', '7777', 9.00, 'USD', 'AUTHORIZED', 'recurring', 'merchant', false, '7',  'cit-g');
