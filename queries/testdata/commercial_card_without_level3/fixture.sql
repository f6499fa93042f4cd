-- commercial_card_without_level3: a capture or sale (never an
-- authorization), answered 2xx in the window, on a card whose BIN lookup
-- completed with a business platform (BUSINESS, CORPORATE, COMMERCIAL or
-- GOVERNMENT: all but CONSUMER), sent with neither purchaseLevel 3
-- nor line items. The card: the call's own, else Transaction Search's
-- record of the call, else of the authorization it follows, else that
-- authorization's journal line.
SET VARIABLE window_start = TIMESTAMPTZ '2026-11-17 00:00:00+00'; -- business date 2026-11-20, lookback 3 days
SET VARIABLE window_end   = TIMESTAMPTZ '2026-11-21 00:00:00+00';

INSERT INTO bin_attributes (bin, lookup_status, card_platform, card_product, funding_source, brand) VALUES
    ('555501', 'COMPLETED', 'COMMERCIAL', 'Corporate T&E', 'CREDIT', 'MASTERCARD'),
    ('411111', 'COMPLETED', 'CONSUMER',   'Visa Classic',  'CREDIT', 'VISA'),
    ('455501', 'COMPLETED', 'BUSINESS',   'Visa Business', 'CREDIT', 'VISA'),
    ('455502', 'COMPLETED', 'CORPORATE',  'Visa Corporate', 'CREDIT', 'VISA'),
    ('455503', 'COMPLETED', 'GOVERNMENT', 'Visa Government', 'CREDIT', 'VISA'),
    -- A platform the SDK does not list: not known to be a business card.
    ('455504', 'COMPLETED', 'PREMIUM',    'Visa Premium',  'CREDIT', 'VISA'),
    -- Ambiguous: the lookup could not say which card it is.
    ('555502', 'MULTIPLE',  NULL,         NULL,            NULL,     NULL);

INSERT INTO transactions (merchant_id, transaction_id, submit_time, amount, currency, card_bin, card_last4) VALUES
    -- An authorization made before the journals began: only Transaction
    -- Search knows its card.
    ('m1', 'auth-6', TIMESTAMPTZ '2026-11-10 09:00:00+00', 300.00, 'USD', '555501', '0006');

INSERT INTO journal (merchant_id, file, line, time, path, status, call_kind, transaction_id, parent_id, card_bin, card_last4, amount, currency, purchase_level, line_item_count) VALUES
    -- Reported: a sale with the commercial card's number, no Level III.
    ('m1', 'journal-m1.ndjson',  1, TIMESTAMPTZ '2026-11-18 10:00:00+00', '/pts/v2/payments', 201, 'sale', 'sale-1', NULL, '555501', '0001', 250.00, 'USD', NULL, NULL),
    -- Not reported: purchaseLevel 3 with line items; line items alone.
    ('m1', 'journal-m1.ndjson',  2, TIMESTAMPTZ '2026-11-18 10:10:00+00', '/pts/v2/payments', 201, 'sale', 'sale-2', NULL, '555501', '0001', 250.00, 'USD', '3',  3),
    ('m1', 'journal-m1.ndjson',  3, TIMESTAMPTZ '2026-11-18 10:20:00+00', '/pts/v2/payments', 201, 'sale', 'sale-3', NULL, '555501', '0001', 250.00, 'USD', NULL, 2),
    -- Not reported: an authorization without Level III ...
    ('m1', 'journal-m1.ndjson',  4, TIMESTAMPTZ '2026-11-17 09:00:00+00', '/pts/v2/payments', 201, 'authorization', 'auth-4', NULL, '555501', '0004', 100.00, 'USD', NULL, NULL),
    -- ... but reported: its capture, by token (no card in the call): the
    -- card comes from the authorization's journal line.
    ('m1', 'journal-m1.ndjson',  5, TIMESTAMPTZ '2026-11-18 11:00:00+00', '/pts/v2/payments/auth-4/captures', 201, 'capture', 'cap-5', 'auth-4', NULL, NULL, 100.00, 'USD', NULL, NULL),
    -- Reported: a capture of auth-6, its card from auth-6's record.
    ('m1', 'journal-m1.ndjson',  6, TIMESTAMPTZ '2026-11-18 12:00:00+00', '/pts/v2/payments/auth-6/captures', 201, 'capture', 'cap-6', 'auth-6', NULL, NULL, 300.00, 'USD', NULL, NULL),
    -- Not reported: a consumer card; a BIN the lookup could not resolve
    -- (bin_unresolved's business).
    ('m1', 'journal-m1.ndjson',  7, TIMESTAMPTZ '2026-11-19 10:00:00+00', '/pts/v2/payments', 201, 'sale', 'sale-7', NULL, '411111', '1111', 50.00, 'USD', NULL, NULL),
    ('m1', 'journal-m1.ndjson',  8, TIMESTAMPTZ '2026-11-19 11:00:00+00', '/pts/v2/payments', 201, 'sale', 'sale-8', NULL, '555502', '0008', 50.00, 'USD', NULL, NULL),
    -- Reported: business, corporate and government cards are business
    -- cards as much as commercial ones.
    ('m1', 'journal-m1.ndjson', 12, TIMESTAMPTZ '2026-11-19 14:00:00+00', '/pts/v2/payments', 201, 'sale', 'sale-12', NULL, '455501', '0012', 60.00, 'USD', NULL, NULL),
    ('m1', 'journal-m1.ndjson', 13, TIMESTAMPTZ '2026-11-19 15:00:00+00', '/pts/v2/payments', 201, 'sale', 'sale-13', NULL, '455502', '0013', 70.00, 'USD', NULL, NULL),
    ('m1', 'journal-m1.ndjson', 14, TIMESTAMPTZ '2026-11-19 16:00:00+00', '/pts/v2/payments', 201, 'sale', 'sale-14', NULL, '455503', '0014', 80.00, 'USD', NULL, NULL),
    -- Not reported: a government card sent with Level III; an unlisted
    -- platform.
    ('m1', 'journal-m1.ndjson', 15, TIMESTAMPTZ '2026-11-19 17:00:00+00', '/pts/v2/payments', 201, 'sale', 'sale-15', NULL, '455503', '0014', 80.00, 'USD', '3', 2),
    ('m1', 'journal-m1.ndjson', 16, TIMESTAMPTZ '2026-11-19 18:00:00+00', '/pts/v2/payments', 201, 'sale', 'sale-16', NULL, '455504', '0016', 90.00, 'USD', NULL, NULL),
    -- Not reported: answered 400; and on the window's (exclusive) end.
    ('m1', 'journal-m1.ndjson',  9, TIMESTAMPTZ '2026-11-19 12:00:00+00', '/pts/v2/payments/auth-4/captures', 400, 'capture', 'cap-9', 'auth-4', NULL, NULL, 100.00, 'USD', NULL, NULL),
    ('m1', 'journal-m1.ndjson', 10, TIMESTAMPTZ '2026-11-21 00:00:00+00', '/pts/v2/payments', 201, 'sale', 'sale-10', NULL, '555501', '0001', 80.00, 'USD', NULL, NULL),
    -- Not reported: a capture of auth-m2, an authorization only the other
    -- member journaled (with the commercial card below): m1's capture has
    -- no card of its own.
    ('m1', 'journal-m1.ndjson', 11, TIMESTAMPTZ '2026-11-19 13:00:00+00', '/pts/v2/payments/auth-m2/captures', 201, 'capture', 'cap-11', 'auth-m2', NULL, NULL, 90.00, 'USD', NULL, NULL),
    ('m2', 'journal-m2.ndjson',  1, TIMESTAMPTZ '2026-11-18 09:00:00+00', '/pts/v2/payments', 201, 'authorization', 'auth-m2', NULL, '555501', '0009', 90.00, 'USD', NULL, NULL),
    -- Reported for the other member too, apart from m1's sale-1 (same id).
    ('m2', 'journal-m2.ndjson',  2, TIMESTAMPTZ '2026-11-20 10:00:00+00', '/pts/v2/payments', 201, 'sale', 'sale-1', NULL, '555501', '0009', 45.00, 'EUR', NULL, NULL);
