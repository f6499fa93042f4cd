-- level2_missing_po: a capture, credit or sale, answered 2xx in the
-- window, on a purchasing or procurement card (BIN lookup COMPLETED, card
-- product naming either, any case) sent without a purchase order number.
-- The card as in the view journal_cards: the call's, else Transaction
-- Search's record, else the authorization it follows.
--
-- Both members' journals were imported from one path, journal.ndjson (on
-- different days), so a file and line name a call only with its
-- merchant_id: the card of a call (journal_cards) must be joined on all
-- three.
SET VARIABLE window_start = TIMESTAMPTZ '2026-11-17 00:00:00+00'; -- business date 2026-11-20, lookback 3 days
SET VARIABLE window_end   = TIMESTAMPTZ '2026-11-21 00:00:00+00';

INSERT INTO bin_attributes (bin, lookup_status, card_platform, card_product, brand) VALUES
    ('556677', 'COMPLETED', 'COMMERCIAL', 'Purchasing Card',   'MASTERCARD'),
    ('556688', 'COMPLETED', 'COMMERCIAL', 'PROCUREMENT CARD',  'VISA'),
    ('411111', 'COMPLETED', 'CONSUMER',   'Visa Classic',      'VISA'),
    -- Names purchasing, but the lookup was ambiguous: not trusted.
    ('556699', 'MULTIPLE',  NULL,         'Purchasing',        NULL);

INSERT INTO journal (merchant_id, file, line, time, path, status, call_kind, transaction_id, parent_id, card_bin, card_last4, amount, currency, purchase_level, purchase_order_number) VALUES
    -- Reported: a sale on a purchasing card without a purchase order.
    ('m1', 'journal.ndjson',  1, TIMESTAMPTZ '2026-11-18 10:00:00+00', '/pts/v2/payments', 201, 'sale', 'sale-1', NULL, '556677', '0001', 500.00, 'USD', '2', NULL),
    -- Not reported: the same with its purchase order.
    ('m1', 'journal.ndjson',  2, TIMESTAMPTZ '2026-11-18 10:10:00+00', '/pts/v2/payments', 201, 'sale', 'sale-2', NULL, '556677', '0001', 500.00, 'USD', '2', 'PO-1234'),
    -- Reported: a credit on a procurement card (upper case).
    ('m1', 'journal.ndjson',  3, TIMESTAMPTZ '2026-11-18 11:00:00+00', '/pts/v2/credits', 201, 'credit', 'cr-3', NULL, '556688', '0003', 75.00, 'USD', NULL, NULL),
    -- Not reported: an authorization (Level II travels with the capture) ...
    ('m1', 'journal.ndjson',  4, TIMESTAMPTZ '2026-11-18 12:00:00+00', '/pts/v2/payments', 201, 'authorization', 'auth-4', NULL, '556677', '0004', 220.00, 'USD', NULL, NULL),
    -- ... but reported: its capture by token, the card from the
    -- authorization's journal line.
    ('m1', 'journal.ndjson',  5, TIMESTAMPTZ '2026-11-19 12:00:00+00', '/pts/v2/payments/auth-4/captures', 201, 'capture', 'cap-5', 'auth-4', NULL, NULL, 220.00, 'USD', NULL, NULL),
    -- Not reported: a consumer card; an ambiguous BIN.
    ('m1', 'journal.ndjson',  6, TIMESTAMPTZ '2026-11-19 13:00:00+00', '/pts/v2/payments', 201, 'sale', 'sale-6', NULL, '411111', '1111', 20.00, 'USD', NULL, NULL),
    ('m1', 'journal.ndjson',  7, TIMESTAMPTZ '2026-11-19 14:00:00+00', '/pts/v2/payments', 201, 'sale', 'sale-7', NULL, '556699', '0007', 20.00, 'USD', NULL, NULL),
    -- Not reported: answered 400; and the day before the window.
    ('m1', 'journal.ndjson',  8, TIMESTAMPTZ '2026-11-19 15:00:00+00', '/pts/v2/payments', 400, 'sale', 'sale-8', NULL, '556677', '0001', 20.00, 'USD', NULL, NULL),
    ('m1', 'journal.ndjson',  9, TIMESTAMPTZ '2026-11-16 15:00:00+00', '/pts/v2/payments', 201, 'sale', 'sale-9', NULL, '556677', '0001', 20.00, 'USD', NULL, NULL),
    -- Not reported: a capture of auth-m2, which only the other member
    -- journaled (on a purchasing card, at the line number of m1's
    -- consumer-card sale-6): m1's capture has no known card.
    ('m1', 'journal.ndjson', 10, TIMESTAMPTZ '2026-11-19 16:00:00+00', '/pts/v2/payments/auth-m2/captures', 201, 'capture', 'cap-10', 'auth-m2', NULL, NULL, 90.00, 'USD', NULL, NULL),
    ('m2', 'journal.ndjson',  6, TIMESTAMPTZ '2026-11-18 09:00:00+00', '/pts/v2/payments', 201, 'authorization', 'auth-m2', NULL, '556677', '0009', 90.00, 'USD', NULL, NULL),
    -- Reported for the other member too, apart from m1's sale-1 (same id).
    ('m2', 'journal.ndjson', 12, TIMESTAMPTZ '2026-11-20 10:00:00+00', '/pts/v2/payments', 201, 'sale', 'sale-1', NULL, '556677', '0009', 40.00, 'USD', NULL, NULL);
