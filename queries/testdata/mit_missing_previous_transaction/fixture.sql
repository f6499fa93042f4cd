-- mit_missing_previous_transaction: a merchant-initiated authorization or
-- sale (initiator type merchant), answered 2xx in the window, sent without
-- merchantInitiatedTransaction.previousTransactionId (accepted only with a
-- stored token).
SET VARIABLE window_start = TIMESTAMPTZ '2026-11-17 00:00:00+00'; -- business date 2026-11-20, lookback 3 days
SET VARIABLE window_end   = TIMESTAMPTZ '2026-11-21 00:00:00+00';

INSERT INTO journal (merchant_id, file, line, time, path, status, call_kind, transaction_id, amount, currency, response_status, commerce_indicator, initiator_type, mit_reason, previous_transaction_id) VALUES
    -- Reported: a recurring MIT by token, no previous transaction id.
    ('m1', 'journal-m1.ndjson', 1, TIMESTAMPTZ '2026-11-18 10:00:00+00', '/pts/v2/payments', 201, 'sale',          'mit-1', 19.99, 'USD', 'AUTHORIZED', 'recurring', 'merchant', '7',  NULL),
    -- Reported: an unscheduled one the issuer declined (answered 201).
    ('m1', 'journal-m1.ndjson', 2, TIMESTAMPTZ '2026-11-19 10:00:00+00', '/pts/v2/payments', 201, 'authorization', 'mit-2', 42.00, 'USD', 'DECLINED',   'internet',  'merchant', '10', NULL),
    -- Not reported: the CIT's network transaction id sent.
    ('m1', 'journal-m1.ndjson', 3, TIMESTAMPTZ '2026-11-19 11:00:00+00', '/pts/v2/payments', 201, 'sale',          'mit-3', 19.99, 'USD', 'AUTHORIZED', 'recurring', 'merchant', '7',  '016150703802094'),
    -- Not reported: customer-initiated (it has no previous transaction).
    ('m1', 'journal-m1.ndjson', 4, TIMESTAMPTZ '2026-11-19 12:00:00+00', '/pts/v2/payments', 201, 'authorization', 'cit-4', 19.99, 'USD', 'AUTHORIZED', 'internet',  'customer', NULL, NULL),
    -- Not reported: answered 400; just before the window.
    ('m1', 'journal-m1.ndjson', 5, TIMESTAMPTZ '2026-11-19 13:00:00+00', '/pts/v2/payments', 400, 'sale',          'mit-5', 19.99, 'USD', 'INVALID_REQUEST', 'recurring', 'merchant', '7', NULL),
    ('m1', 'journal-m1.ndjson', 6, TIMESTAMPTZ '2026-11-16 23:59:59+00', '/pts/v2/payments', 201, 'sale',          'mit-6', 19.99, 'USD', 'AUTHORIZED', 'recurring', 'merchant', '7',  NULL),
    -- Reported for the other member too, apart from m1's mit-1 (same id).
    ('m2', 'journal-m2.ndjson', 1, TIMESTAMPTZ '2026-11-20 10:00:00+00', '/pts/v2/payments', 201, 'sale',          'mit-1', 55.00, 'EUR', 'AUTHORIZED', 'recurring', 'merchant', '7',  NULL);
