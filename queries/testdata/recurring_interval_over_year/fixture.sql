-- recurring_interval_over_year: a recurring MIT (initiator merchant,
-- commerceIndicator recurring, authorization or sale answered 2xx) in the
-- window made more than one year after the latest earlier successful
-- transaction (2xx, not DECLINED or FAILED) of its credential: the call
-- its previousTransactionId names (by response id or network transaction
-- id), the member's other MITs naming the same previousTransactionId (the
-- same chain), and the member's CITs and MITs (authorizations and sales
-- with an initiator type) on the same card (BIN and last four).
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
    -- Not reported mit-g: like every MIT of its subscription it names the
    -- original CIT (cit-g, 398 days old), as the spec asks of most networks
    -- ("previousTransactionId: original transaction ID; for one network the
    -- last successful transaction ID"); mit-g0, a month before, names it
    -- too: the same chain, so the credential was used 31 days ago.
    ('m1', 'journal.ndjson', 13, TIMESTAMPTZ '2025-10-15 10:00:00+00', '/pts/v2/payments', 201, 'authorization', 'cit-g', 'ntid-g', '477777', '7777', 9.00, 'USD', 'AUTHORIZED', 'internet', 'customer', true, NULL, NULL),
    ('m1', 'journal.ndjson', 14, TIMESTAMPTZ '2026-10-17 10:00:00+00', '/pts/v2/payments', 201, 'sale', 'mit-g0', NULL, '477777', '7777', 9.00, 'USD', 'AUTHORIZED', 'recurring', 'merchant', false, '7', 'cit-g'),
    ('m1', 'journal.ndjson', 15, TIMESTAMPTZ '2026-11-17 10:00:00+00', '/pts/v2/payments', 201, 'sale', 'mit-g', NULL, '477777', '7777', 9.00, 'USD', 'AUTHORIZED', 'recurring', 'merchant', false, '7', 'cit-g'),
    -- Not reported mit-h14: a monthly subscription billed by token (no card
    -- in its MITs) for 14 months, every MIT naming the original CIT's
    -- network transaction id (426 days old by the end): the chain's
    -- previous MIT, mit-h13, is 31 days old.
    ('m1', 'journal.ndjson', 16, TIMESTAMPTZ '2025-09-20 10:00:00+00', '/pts/v2/payments', 201, 'authorization', 'cit-h', 'ntid-h', '481111', '1111', 9.99, 'USD', 'AUTHORIZED', 'internet', 'customer', true, NULL, NULL),
    ('m1', 'journal.ndjson', 17, TIMESTAMPTZ '2025-10-20 10:00:00+00', '/pts/v2/payments', 201, 'sale', 'mit-h01', NULL, NULL, NULL, 9.99, 'USD', 'AUTHORIZED', 'recurring', 'merchant', false, '7', 'ntid-h'),
    ('m1', 'journal.ndjson', 18, TIMESTAMPTZ '2025-11-20 10:00:00+00', '/pts/v2/payments', 201, 'sale', 'mit-h02', NULL, NULL, NULL, 9.99, 'USD', 'AUTHORIZED', 'recurring', 'merchant', false, '7', 'ntid-h'),
    ('m1', 'journal.ndjson', 19, TIMESTAMPTZ '2025-12-20 10:00:00+00', '/pts/v2/payments', 201, 'sale', 'mit-h03', NULL, NULL, NULL, 9.99, 'USD', 'AUTHORIZED', 'recurring', 'merchant', false, '7', 'ntid-h'),
    ('m1', 'journal.ndjson', 20, TIMESTAMPTZ '2026-01-20 10:00:00+00', '/pts/v2/payments', 201, 'sale', 'mit-h04', NULL, NULL, NULL, 9.99, 'USD', 'AUTHORIZED', 'recurring', 'merchant', false, '7', 'ntid-h'),
    ('m1', 'journal.ndjson', 21, TIMESTAMPTZ '2026-02-20 10:00:00+00', '/pts/v2/payments', 201, 'sale', 'mit-h05', NULL, NULL, NULL, 9.99, 'USD', 'AUTHORIZED', 'recurring', 'merchant', false, '7', 'ntid-h'),
    ('m1', 'journal.ndjson', 22, TIMESTAMPTZ '2026-03-20 10:00:00+00', '/pts/v2/payments', 201, 'sale', 'mit-h06', NULL, NULL, NULL, 9.99, 'USD', 'AUTHORIZED', 'recurring', 'merchant', false, '7', 'ntid-h'),
    ('m1', 'journal.ndjson', 23, TIMESTAMPTZ '2026-04-20 10:00:00+00', '/pts/v2/payments', 201, 'sale', 'mit-h07', NULL, NULL, NULL, 9.99, 'USD', 'AUTHORIZED', 'recurring', 'merchant', false, '7', 'ntid-h'),
    ('m1', 'journal.ndjson', 24, TIMESTAMPTZ '2026-05-20 10:00:00+00', '/pts/v2/payments', 201, 'sale', 'mit-h08', NULL, NULL, NULL, 9.99, 'USD', 'AUTHORIZED', 'recurring', 'merchant', false, '7', 'ntid-h'),
    ('m1', 'journal.ndjson', 25, TIMESTAMPTZ '2026-06-20 10:00:00+00', '/pts/v2/payments', 201, 'sale', 'mit-h09', NULL, NULL, NULL, 9.99, 'USD', 'AUTHORIZED', 'recurring', 'merchant', false, '7', 'ntid-h'),
    ('m1', 'journal.ndjson', 26, TIMESTAMPTZ '2026-07-20 10:00:00+00', '/pts/v2/payments', 201, 'sale', 'mit-h10', NULL, NULL, NULL, 9.99, 'USD', 'AUTHORIZED', 'recurring', 'merchant', false, '7', 'ntid-h'),
    ('m1', 'journal.ndjson', 27, TIMESTAMPTZ '2026-08-20 10:00:00+00', '/pts/v2/payments', 201, 'sale', 'mit-h11', NULL, NULL, NULL, 9.99, 'USD', 'AUTHORIZED', 'recurring', 'merchant', false, '7', 'ntid-h'),
    ('m1', 'journal.ndjson', 28, TIMESTAMPTZ '2026-09-20 10:00:00+00', '/pts/v2/payments', 201, 'sale', 'mit-h12', NULL, NULL, NULL, 9.99, 'USD', 'AUTHORIZED', 'recurring', 'merchant', false, '7', 'ntid-h'),
    ('m1', 'journal.ndjson', 29, TIMESTAMPTZ '2026-10-20 10:00:00+00', '/pts/v2/payments', 201, 'sale', 'mit-h13', NULL, NULL, NULL, 9.99, 'USD', 'AUTHORIZED', 'recurring', 'merchant', false, '7', 'ntid-h'),
    ('m1', 'journal.ndjson', 30, TIMESTAMPTZ '2026-11-20 10:00:00+00', '/pts/v2/payments', 201, 'sale', 'mit-h14', NULL, NULL, NULL, 9.99, 'USD', 'AUTHORIZED', 'recurring', 'merchant', false, '7', 'ntid-h'),
    -- Reported mit-i: its chain (MITs naming cit-i) paid last on 10 October
    -- 2025, 404 days before: the MITs since were DECLINED (answered 201) or
    -- answered 502, neither a successful transaction. mit-i2 is also on
    -- the same card: the chain names how it belongs first.
    ('m1', 'journal.ndjson', 31, TIMESTAMPTZ '2025-05-10 10:00:00+00', '/pts/v2/payments', 201, 'sale', 'cit-i', 'ntid-i', '488888', '8888', 25.00, 'USD', 'AUTHORIZED', 'internet', 'customer', true, NULL, NULL),
    ('m1', 'journal.ndjson', 32, TIMESTAMPTZ '2025-06-10 10:00:00+00', '/pts/v2/payments', 201, 'sale', 'mit-i1', NULL, '488888', '8888', 25.00, 'USD', 'AUTHORIZED', 'recurring', 'merchant', false, '7', 'cit-i'),
    ('m1', 'journal.ndjson', 33, TIMESTAMPTZ '2025-10-10 10:00:00+00', '/pts/v2/payments', 201, 'sale', 'mit-i2', NULL, '488888', '8888', 25.00, 'USD', 'AUTHORIZED', 'recurring', 'merchant', false, '7', 'cit-i'),
    ('m1', 'journal.ndjson', 34, TIMESTAMPTZ '2026-06-10 10:00:00+00', '/pts/v2/payments', 201, 'sale', 'mit-i3', NULL, '488888', '8888', 25.00, 'USD', 'DECLINED', 'recurring', 'merchant', false, '7', 'cit-i'),
    ('m1', 'journal.ndjson', 35, TIMESTAMPTZ '2026-07-10 10:00:00+00', '/pts/v2/payments', 502, 'sale', NULL, NULL, '488888', '8888', 25.00, 'USD', NULL, 'recurring', 'merchant', false, '7', 'cit-i'),
    ('m1', 'journal.ndjson', 36, TIMESTAMPTZ '2026-11-18 10:00:00+00', '/pts/v2/payments', 201, 'sale', 'mit-i', NULL, '488888', '8888', 25.00, 'USD', 'AUTHORIZED', 'recurring', 'merchant', false, '7', 'cit-i'),
    -- Not reported mit-k: no previousTransactionId; the CIT that stored its
    -- card is 471 days old, but the customer paid with the stored card in
    -- June (a CIT on the same card, storing nothing): 167 days.
    ('m1', 'journal.ndjson', 37, TIMESTAMPTZ '2025-08-05 10:00:00+00', '/pts/v2/payments', 201, 'sale', 'cit-k', 'ntid-k', '499999', '9999', 12.00, 'USD', 'AUTHORIZED', 'internet', 'customer', true, NULL, NULL),
    ('m1', 'journal.ndjson', 38, TIMESTAMPTZ '2026-06-05 10:00:00+00', '/pts/v2/payments', 201, 'sale', 'cit-k2', 'ntid-k2', '499999', '9999', 12.00, 'USD', 'AUTHORIZED', 'internet', 'customer', false, NULL, NULL),
    ('m1', 'journal.ndjson', 39, TIMESTAMPTZ '2026-11-19 12:00:00+00', '/pts/v2/payments', 201, 'sale', 'mit-k', NULL, '499999', '9999', 12.00, 'USD', 'AUTHORIZED', 'recurring', 'merchant', false, '7', NULL),
    -- Reported mit-l: no previousTransactionId; the CIT that stored its
    -- card is 505 days old. A sale on the same card in October sent no
    -- initiator type: not a CIT or MIT of the credential.
    ('m1', 'journal.ndjson', 40, TIMESTAMPTZ '2025-07-01 10:00:00+00', '/pts/v2/payments', 201, 'sale', 'cit-l', 'ntid-l', '462222', '2222', 18.00, 'USD', 'AUTHORIZED', 'internet', 'customer', true, NULL, NULL),
    ('m1', 'journal.ndjson', 41, TIMESTAMPTZ '2026-10-01 10:00:00+00', '/pts/v2/payments', 201, 'sale', 'sale-l', 'ntid-l2', '462222', '2222', 18.00, 'USD', 'AUTHORIZED', 'internet', NULL, NULL, NULL, NULL),
    ('m1', 'journal.ndjson', 42, TIMESTAMPTZ '2026-11-18 11:00:00+00', '/pts/v2/payments', 201, 'sale', 'mit-l', NULL, '462222', '2222', 18.00, 'USD', 'AUTHORIZED', 'recurring', 'merchant', false, '7', NULL),
    -- The other member's MIT naming cit-i, on mit-i's card, in September:
    -- if the check forgot merchant_id in the chain or the card, mit-i's
    -- credential would have been used two months ago.
    ('m2', 'journal.ndjson',  7, TIMESTAMPTZ '2026-09-10 10:00:00+00', '/pts/v2/payments', 201, 'sale', 'mit-m2i', NULL, '488888', '8888', 25.00, 'USD', 'AUTHORIZED', 'recurring', 'merchant', false, '7', 'cit-i');
