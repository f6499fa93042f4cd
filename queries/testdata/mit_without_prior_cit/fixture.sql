-- mit_without_prior_cit: a merchant-initiated authorization or sale,
-- answered 2xx in the window, on a card (BIN and last four, the card as
-- in the view journal_cards) that no earlier customer-initiated call of
-- the same member stored: initiator customer, credentialStoredOnFile true
-- or actionList TOKEN_CREATE, answered 2xx and approved (AUTHORIZED or
-- PARTIAL_AUTHORIZED: a CIT pending authentication or review, declined by
-- the risk tool, or of a status nobody knows stored nothing).
--
-- Both members' journals were imported from one path, journal.ndjson (on
-- different days), so a file and line name a call only with its
-- merchant_id: the card of a call (journal_cards) must be joined on all
-- three.
SET VARIABLE window_start = TIMESTAMPTZ '2026-11-17 00:00:00+00'; -- business date 2026-11-20, lookback 3 days
SET VARIABLE window_end   = TIMESTAMPTZ '2026-11-21 00:00:00+00';

INSERT INTO transactions (merchant_id, transaction_id, submit_time, amount, currency, card_bin, card_last4) VALUES
    -- Transaction Search's record of mit-a, which was sent by token.
    ('m1', 'mit-a', TIMESTAMPTZ '2026-11-18 10:00:00+00', 19.99, 'USD', '411111', '1111');

INSERT INTO journal (merchant_id, file, line, time, path, status, call_kind, transaction_id, card_bin, card_last4, amount, currency, response_status, commerce_indicator, initiator_type, credential_stored, action_list, mit_reason, previous_transaction_id) VALUES
    -- Not reported mit-a: a CIT stored card 411111...1111 in October; the
    -- MIT came by token, its card from its Transaction Search record.
    ('m1', 'journal.ndjson',  1, TIMESTAMPTZ '2026-10-01 10:00:00+00', '/pts/v2/payments', 201, 'authorization', 'cit-a', '411111', '1111', 19.99, 'USD', 'AUTHORIZED', 'internet',  'customer', true,  NULL,           NULL, NULL),
    ('m1', 'journal.ndjson',  2, TIMESTAMPTZ '2026-11-18 10:00:00+00', '/pts/v2/payments', 201, 'sale',          'mit-a', NULL,     NULL,   19.99, 'USD', 'AUTHORIZED', 'recurring', 'merchant', false, NULL,           '7',  'cit-a'),
    -- Reported mit-b: the CIT that would have stored 422222...2222 was
    -- DECLINED.
    ('m1', 'journal.ndjson',  3, TIMESTAMPTZ '2026-10-02 10:00:00+00', '/pts/v2/payments', 201, 'authorization', 'cit-b', '422222', '2222', 19.99, 'USD', 'DECLINED',   'internet',  'customer', true,  NULL,           NULL, NULL),
    ('m1', 'journal.ndjson',  4, TIMESTAMPTZ '2026-11-18 11:00:00+00', '/pts/v2/payments', 201, 'sale',          'mit-b', '422222', '2222', 19.99, 'USD', 'AUTHORIZED', 'recurring', 'merchant', false, NULL,           '7',  'cit-b'),
    -- Reported mit-c: the CIT storing 433333...3333 came an hour after it.
    ('m1', 'journal.ndjson',  5, TIMESTAMPTZ '2026-11-18 10:00:00+00', '/pts/v2/payments', 201, 'authorization', 'mit-c', '433333', '3333', 25.00, 'USD', 'AUTHORIZED', 'internet',  'merchant', false, NULL,           '10', NULL),
    ('m1', 'journal.ndjson',  6, TIMESTAMPTZ '2026-11-18 11:00:00+00', '/pts/v2/payments', 201, 'authorization', 'cit-c', '433333', '3333', 25.00, 'USD', 'AUTHORIZED', 'internet',  'customer', true,  NULL,           NULL, NULL),
    -- Not reported mit-d: stored by a CIT asking TOKEN_CREATE (without
    -- credentialStoredOnFile).
    ('m1', 'journal.ndjson',  7, TIMESTAMPTZ '2026-11-01 10:00:00+00', '/pts/v2/payments', 201, 'sale',          'cit-d', '444444', '4444', 30.00, 'USD', 'AUTHORIZED', 'internet',  'customer', false, 'TOKEN_CREATE', NULL, NULL),
    ('m1', 'journal.ndjson',  8, TIMESTAMPTZ '2026-11-19 10:00:00+00', '/pts/v2/payments', 201, 'sale',          'mit-d', '444444', '4444', 30.00, 'USD', 'AUTHORIZED', 'recurring', 'merchant', false, NULL,           '7',  'cit-d'),
    -- Reported mit-e: only the other member (below) stored 455555...5555.
    ('m1', 'journal.ndjson',  9, TIMESTAMPTZ '2026-11-19 11:00:00+00', '/pts/v2/payments', 201, 'sale',          'mit-e', '455555', '5555', 12.00, 'USD', 'AUTHORIZED', 'recurring', 'merchant', false, NULL,           '7',  'cit-x'),
    -- Reported mit-g .. mit-j: their CITs were answered
    -- PENDING_AUTHENTICATION, AUTHORIZED_RISK_DECLINED,
    -- AUTHORIZED_PENDING_REVIEW and a status the SDK does not list.
    ('m1', 'journal.ndjson', 11, TIMESTAMPTZ '2026-10-03 10:00:00+00', '/pts/v2/payments', 201, 'sale',          'cit-g', '477771', '7771', 15.00, 'USD', 'PENDING_AUTHENTICATION',   'internet',  'customer', true,  NULL, NULL, NULL),
    ('m1', 'journal.ndjson', 12, TIMESTAMPTZ '2026-11-19 13:00:00+00', '/pts/v2/payments', 201, 'sale',          'mit-g', '477771', '7771', 15.00, 'USD', 'AUTHORIZED', 'recurring', 'merchant', false, NULL, '7',  'cit-g'),
    ('m1', 'journal.ndjson', 13, TIMESTAMPTZ '2026-10-03 11:00:00+00', '/pts/v2/payments', 201, 'sale',          'cit-h', '477772', '7772', 15.00, 'USD', 'AUTHORIZED_RISK_DECLINED', 'internet',  'customer', true,  NULL, NULL, NULL),
    ('m1', 'journal.ndjson', 14, TIMESTAMPTZ '2026-11-19 14:00:00+00', '/pts/v2/payments', 201, 'sale',          'mit-h', '477772', '7772', 15.00, 'USD', 'AUTHORIZED', 'recurring', 'merchant', false, NULL, '7',  'cit-h'),
    ('m1', 'journal.ndjson', 15, TIMESTAMPTZ '2026-10-03 12:00:00+00', '/pts/v2/payments', 201, 'sale',          'cit-i', '477773', '7773', 15.00, 'USD', 'AUTHORIZED_PENDING_REVIEW', 'internet', 'customer', true,  NULL, NULL, NULL),
    ('m1', 'journal.ndjson', 16, TIMESTAMPTZ '2026-11-19 15:00:00+00', '/pts/v2/payments', 201, 'sale',          'mit-i', '477773', '7773', 15.00, 'USD', 'AUTHORIZED', 'recurring', 'merchant', false, NULL, '7',  'cit-i'),
    ('m1', 'journal.ndjson', 17, TIMESTAMPTZ '2026-10-03 13:00:00+00', '/pts/v2/payments', 201, 'sale',          'cit-j', '477774', '7774', 15.00, 'USD', 'APPROVED_MAYBE',           'internet',  'customer', true,  NULL, NULL, NULL),
    ('m1', 'journal.ndjson', 18, TIMESTAMPTZ '2026-11-19 16:00:00+00', '/pts/v2/payments', 201, 'sale',          'mit-j', '477774', '7774', 15.00, 'USD', 'AUTHORIZED', 'recurring', 'merchant', false, NULL, '7',  'cit-j'),
    -- Not reported mit-k: its CIT was PARTIAL_AUTHORIZED (approved for
    -- part of the amount: the card is stored).
    ('m1', 'journal.ndjson', 19, TIMESTAMPTZ '2026-10-03 14:00:00+00', '/pts/v2/payments', 201, 'sale',          'cit-k', '477775', '7775', 15.00, 'USD', 'PARTIAL_AUTHORIZED',       'internet',  'customer', true,  NULL, NULL, NULL),
    ('m1', 'journal.ndjson', 20, TIMESTAMPTZ '2026-11-19 17:00:00+00', '/pts/v2/payments', 201, 'sale',          'mit-k', '477775', '7775', 15.00, 'USD', 'AUTHORIZED', 'recurring', 'merchant', false, NULL, '7',  'cit-k'),
    -- Not reported: an MIT answered 400 (no transaction).
    ('m1', 'journal.ndjson', 10, TIMESTAMPTZ '2026-11-19 12:00:00+00', '/pts/v2/payments', 400, 'sale',          'mit-f', '466666', '6666', 12.00, 'USD', 'INVALID_REQUEST', 'recurring', 'merchant', false, NULL,      '7',  NULL),
    -- The other member stored 455555...5555 (line 1) and charged it as an
    -- MIT (line 2): not reported, its own CIT came first. Its line 2 has the
    -- number of m1's mit-a: joined by file and line alone, mit-a would take
    -- its card, which m1 never stored.
    ('m2', 'journal.ndjson',  1, TIMESTAMPTZ '2026-09-01 10:00:00+00', '/pts/v2/payments', 201, 'authorization', 'cit-x', '455555', '5555', 12.00, 'USD', 'AUTHORIZED', 'internet',  'customer', true,  NULL,           NULL, NULL),
    ('m2', 'journal.ndjson',  2, TIMESTAMPTZ '2026-11-19 09:00:00+00', '/pts/v2/payments', 201, 'sale',          'mit-x', '455555', '5555', 12.00, 'USD', 'AUTHORIZED', 'recurring', 'merchant', false, NULL,           '7',  'cit-x');
