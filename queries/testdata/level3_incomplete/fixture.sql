-- level3_incomplete: a capture, credit or sale sent with purchaseLevel 3,
-- answered 2xx in the window, whose Level III data is incomplete (a line
-- item left out a required field, or no line items at all) or whose rate
-- is written as a percent (above 1). Import fills journal.level3_missing
-- and percent_rates (level3audit.Inspect); the check reads them.
SET VARIABLE window_start = TIMESTAMPTZ '2026-11-17 00:00:00+00'; -- business date 2026-11-20, lookback 3 days
SET VARIABLE window_end   = TIMESTAMPTZ '2026-11-21 00:00:00+00';

INSERT INTO journal (merchant_id, file, line, time, path, status, call_kind, transaction_id, parent_id, amount, currency, purchase_level, line_item_count, level3_status, level3_missing, percent_rates) VALUES
    -- Reported: the second line item has no unitOfMeasure.
    ('m1', 'journal-m1.ndjson', 1, TIMESTAMPTZ '2026-11-18 10:00:00+00', '/pts/v2/payments/auth-1/captures', 201, 'capture', 'cap-1', 'auth-1', 120.00, 'USD', '3', 2, 'Y', 'lineItems[1].unitOfMeasure', NULL),
    -- Reported: complete, but the tax rate written 8.25 (percent) rather
    -- than 0.0825.
    ('m1', 'journal-m1.ndjson', 2, TIMESTAMPTZ '2026-11-18 11:00:00+00', '/pts/v2/payments', 201, 'sale', 'sale-2', NULL, 108.25, 'USD', '3', 1, 'Y', NULL, 'lineItems[0].taxDetails[0].rate=8.25'),
    -- Reported: purchaseLevel 3 with no line items at all.
    ('m1', 'journal-m1.ndjson', 3, TIMESTAMPTZ '2026-11-19 10:00:00+00', '/pts/v2/credits', 201, 'credit', 'cr-3', NULL, 40.00, 'USD', '3', 0, NULL, 'lineItems', NULL),
    -- Not reported: complete, rates as fractions.
    ('m1', 'journal-m1.ndjson', 4, TIMESTAMPTZ '2026-11-19 11:00:00+00', '/pts/v2/payments', 201, 'sale', 'sale-4', NULL, 60.00, 'USD', '3', 2, 'Y', NULL, NULL),
    -- Not reported: an authorization (the check judges what is settled).
    ('m1', 'journal-m1.ndjson', 5, TIMESTAMPTZ '2026-11-19 12:00:00+00', '/pts/v2/payments', 201, 'authorization', 'auth-5', NULL, 60.00, 'USD', '3', 1, NULL, 'lineItems[0].commodityCode', NULL),
    -- Not reported: no purchaseLevel 3 (Level II at most: nothing to
    -- complete).
    ('m1', 'journal-m1.ndjson', 6, TIMESTAMPTZ '2026-11-19 13:00:00+00', '/pts/v2/payments', 201, 'sale', 'sale-6', NULL, 60.00, 'USD', '2', NULL, NULL, NULL, NULL),
    -- Not reported: answered 400; and the day before the window.
    ('m1', 'journal-m1.ndjson', 7, TIMESTAMPTZ '2026-11-19 14:00:00+00', '/pts/v2/payments', 400, 'sale', 'sale-7', NULL, 60.00, 'USD', '3', 1, NULL, 'lineItems[0].unitPrice', NULL),
    ('m1', 'journal-m1.ndjson', 8, TIMESTAMPTZ '2026-11-16 14:00:00+00', '/pts/v2/payments', 201, 'sale', 'sale-8', NULL, 60.00, 'USD', '3', 1, 'Y', 'lineItems[0].unitPrice', NULL),
    -- Reported for the other member too, apart from m1's cap-1 (same id).
    ('m2', 'journal-m2.ndjson', 1, TIMESTAMPTZ '2026-11-20 10:00:00+00', '/pts/v2/payments/auth-9/captures', 201, 'capture', 'cap-1', 'auth-9', 35.00, 'EUR', '3', 1, 'Y', 'lineItems[0].discountAmount,lineItems[0].productCode', NULL);

-- The merchant's order number (detail.client_reference): as the request
-- sent it (cap-1 of m1), or, with none sent, as the platform answered it
-- (sale-2).
UPDATE journal SET request = '{"clientReferenceInformation":{"code":"ORD-1001"}}',
                   response = '{"clientReferenceInformation":{"code":"ignored: the request says"}}'
WHERE merchant_id = 'm1' AND line = 1;
UPDATE journal SET response = '{"clientReferenceInformation":{"code":"ORD-1002"}}' WHERE merchant_id = 'm1' AND line = 2;
