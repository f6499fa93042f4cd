-- mit_missing_reason: a merchant-initiated authorization or sale
-- (initiator type merchant), answered 2xx in the window, sent without
-- merchantInitiatedTransaction.reason.
SET VARIABLE window_start = TIMESTAMPTZ '2026-11-17 00:00:00+00'; -- business date 2026-11-20, lookback 3 days
SET VARIABLE window_end   = TIMESTAMPTZ '2026-11-21 00:00:00+00';

INSERT INTO journal (merchant_id, file, line, time, path, status, call_kind, transaction_id, amount, currency, response_status, commerce_indicator, initiator_type, mit_reason, previous_transaction_id) VALUES
    -- Reported: a recurring MIT with no reason.
    ('m1', 'journal-m1.ndjson', 1, TIMESTAMPTZ '2026-11-18 10:00:00+00', '/pts/v2/payments', 201, 'sale',          'mit-1', 19.99, 'USD', 'AUTHORIZED', 'recurring', 'merchant', NULL, 'cit-0'),
    -- Not reported: reason 7 (recurring) sent.
    ('m1', 'journal-m1.ndjson', 2, TIMESTAMPTZ '2026-11-18 11:00:00+00', '/pts/v2/payments', 201, 'authorization', 'mit-2', 19.99, 'USD', 'AUTHORIZED', 'recurring', 'merchant', '7',  'cit-0'),
    -- Not reported: customer-initiated, or no initiator sent: not MITs.
    ('m1', 'journal-m1.ndjson', 3, TIMESTAMPTZ '2026-11-18 12:00:00+00', '/pts/v2/payments', 201, 'authorization', 'cit-3', 19.99, 'USD', 'AUTHORIZED', 'internet',  'customer', NULL, NULL),
    ('m1', 'journal-m1.ndjson', 4, TIMESTAMPTZ '2026-11-18 13:00:00+00', '/pts/v2/payments', 201, 'sale',          'pay-4', 19.99, 'USD', 'AUTHORIZED', 'internet',  NULL,       NULL, NULL),
    -- Not reported: answered 400; on the window's (exclusive) end.
    ('m1', 'journal-m1.ndjson', 5, TIMESTAMPTZ '2026-11-19 10:00:00+00', '/pts/v2/payments', 400, 'sale',          'mit-5', 19.99, 'USD', 'INVALID_REQUEST', 'recurring', 'merchant', NULL, 'cit-0'),
    ('m1', 'journal-m1.ndjson', 6, TIMESTAMPTZ '2026-11-21 00:00:00+00', '/pts/v2/payments', 201, 'sale',          'mit-6', 19.99, 'USD', 'AUTHORIZED', 'recurring', 'merchant', NULL, 'cit-0'),
    -- Reported for the other member too, apart from m1's mit-1 (same id):
    -- an unscheduled MIT that the issuer declined, still without a reason.
    ('m2', 'journal-m2.ndjson', 1, TIMESTAMPTZ '2026-11-20 10:00:00+00', '/pts/v2/payments', 201, 'authorization', 'mit-1', 55.00, 'EUR', 'DECLINED',   'internet',  'merchant', NULL, 'cit-9');
