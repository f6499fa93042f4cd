-- healthcare_amounts_exceed_total: an authorization or sale, answered 2xx
-- in the window, whose healthcare total (amount type healthcare,
-- journal.healthcare_amount) or the sum of the other types (prescription,
-- clinic, dental, vision: parts of it, journal.healthcare_detail_amount)
-- is greater than its totalAmount. Equal is allowed; the two are not
-- added together.
SET VARIABLE window_start = TIMESTAMPTZ '2026-11-17 00:00:00+00'; -- business date 2026-11-20, lookback 3 days
SET VARIABLE window_end   = TIMESTAMPTZ '2026-11-21 00:00:00+00';

INSERT INTO journal (merchant_id, file, line, time, path, status, call_kind, transaction_id, amount, currency, response_status, product_subtype, healthcare_amount, healthcare_detail_amount, healthcare_amount_count) VALUES
    -- Reported: healthcare total 120.00 on a 100.00 sale.
    ('m1', 'journal-m1.ndjson', 1, TIMESTAMPTZ '2026-11-18 10:00:00+00', '/pts/v2/payments', 201, 'sale',          'sale-1', 100.00, 'USD', 'AUTHORIZED', 'HC', 120.00, NULL,   1),
    -- Not reported: healthcare total equal to the total.
    ('m1', 'journal-m1.ndjson', 2, TIMESTAMPTZ '2026-11-18 11:00:00+00', '/pts/v2/payments', 201, 'sale',          'sale-2', 100.00, 'USD', 'AUTHORIZED', 'HC', 100.00, NULL,   1),
    -- Reported: prescription + dental = 110.00 on 100.00 (the healthcare
    -- total, 90.00, is within it).
    ('m1', 'journal-m1.ndjson', 3, TIMESTAMPTZ '2026-11-18 12:00:00+00', '/pts/v2/payments', 201, 'authorization', 'auth-3', 100.00, 'USD', 'AUTHORIZED', 'HC',  90.00, 110.00, 3),
    -- Not reported: the parts add up to the total exactly.
    ('m1', 'journal-m1.ndjson', 4, TIMESTAMPTZ '2026-11-18 13:00:00+00', '/pts/v2/payments', 201, 'authorization', 'auth-4', 100.00, 'USD', 'AUTHORIZED', 'HC', NULL,   100.00, 2),
    -- Not reported: total 80.00 and parts 70.00, each within 100.00 (the
    -- parts belong to the total: 150.00 is not a sum that means anything).
    ('m1', 'journal-m1.ndjson', 5, TIMESTAMPTZ '2026-11-18 14:00:00+00', '/pts/v2/payments', 201, 'sale',          'sale-5', 100.00, 'USD', 'AUTHORIZED', 'HC',  80.00,  70.00, 3),
    -- Not reported: answered 400; on the window's (exclusive) end.
    ('m1', 'journal-m1.ndjson', 6, TIMESTAMPTZ '2026-11-19 10:00:00+00', '/pts/v2/payments', 400, 'sale',          'sale-6', 100.00, 'USD', 'INVALID_REQUEST', 'HC', 120.00, NULL, 1),
    ('m1', 'journal-m1.ndjson', 7, TIMESTAMPTZ '2026-11-21 00:00:00+00', '/pts/v2/payments', 201, 'sale',          'sale-7', 100.00, 'USD', 'AUTHORIZED', 'HC', 120.00, NULL,   1),
    -- Reported for the other member too, apart from m1's sale-1 (same id).
    ('m2', 'journal-m2.ndjson', 1, TIMESTAMPTZ '2026-11-20 10:00:00+00', '/pts/v2/payments', 201, 'sale',          'sale-1',  20.00, 'USD', 'DECLINED',   'HC',  25.00, NULL,   1);
