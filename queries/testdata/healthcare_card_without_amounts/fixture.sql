-- healthcare_card_without_amounts: an authorization or sale, answered 2xx
-- in the window, on a health-care card (BIN lookup COMPLETED with
-- healthCard true) sent without healthCareInformation.amountDetails
-- (journal.healthcare_amount_count NULL). The card as in the view
-- journal_cards.
--
-- Both members' journals were imported from one path, journal.ndjson (on
-- different days), so a file and line name a call only with its
-- merchant_id: the card of a call (journal_cards) must be joined on all
-- three.
SET VARIABLE window_start = TIMESTAMPTZ '2026-11-17 00:00:00+00'; -- business date 2026-11-20, lookback 3 days
SET VARIABLE window_end   = TIMESTAMPTZ '2026-11-21 00:00:00+00';

INSERT INTO bin_attributes (bin, lookup_status, health_card, card_product, funding_source) VALUES
    ('488888', 'COMPLETED', true,  'HSA',          'DEBIT'),
    ('411111', 'COMPLETED', false, 'Visa Classic', 'CREDIT'),
    -- Says health card, but the lookup was ambiguous: not trusted.
    ('489999', 'MULTIPLE',  true,  NULL,           NULL);

INSERT INTO transactions (merchant_id, transaction_id, submit_time, amount, currency, card_bin, card_last4) VALUES
    -- Transaction Search's record of auth-6, sent by token.
    ('m1', 'auth-6', TIMESTAMPTZ '2026-11-19 10:00:00+00', 80.00, 'USD', '488888', '0006'),
    -- The other member's record of tok-9 (m1's id below) on the HSA card.
    ('m2', 'tok-9',  TIMESTAMPTZ '2026-11-19 11:00:00+00', 80.00, 'USD', '488888', '0009');

INSERT INTO journal (merchant_id, file, line, time, path, status, call_kind, transaction_id, parent_id, card_bin, card_last4, amount, currency, response_status, product_subtype, healthcare_amount, healthcare_detail_amount, healthcare_amount_count) VALUES
    -- Reported: a sale on an HSA card with no healthcare amounts.
    ('m1', 'journal.ndjson', 1, TIMESTAMPTZ '2026-11-18 10:00:00+00', '/pts/v2/payments', 201, 'sale',          'sale-1', NULL,     '488888', '0001', 45.00, 'USD', 'AUTHORIZED', NULL, NULL,  NULL, NULL),
    -- Not reported: the same card with its amounts (healthcare total).
    ('m1', 'journal.ndjson', 2, TIMESTAMPTZ '2026-11-18 11:00:00+00', '/pts/v2/payments', 201, 'authorization', 'auth-2', NULL,     '488888', '0001', 45.00, 'USD', 'AUTHORIZED', 'HC', 45.00, NULL, 1),
    -- Not reported: its capture (healthcare fields are not sent on
    -- follow-on calls).
    ('m1', 'journal.ndjson', 3, TIMESTAMPTZ '2026-11-18 12:00:00+00', '/pts/v2/payments/auth-2/captures', 201, 'capture', 'cap-3', 'auth-2', NULL, NULL, 45.00, 'USD', 'PENDING', NULL, NULL, NULL, NULL),
    -- Not reported: a card that is not a health card; an ambiguous BIN.
    ('m1', 'journal.ndjson', 4, TIMESTAMPTZ '2026-11-18 13:00:00+00', '/pts/v2/payments', 201, 'sale',          'sale-4', NULL,     '411111', '1111', 45.00, 'USD', 'AUTHORIZED', NULL, NULL,  NULL, NULL),
    ('m1', 'journal.ndjson', 5, TIMESTAMPTZ '2026-11-18 14:00:00+00', '/pts/v2/payments', 201, 'sale',          'sale-5', NULL,     '489999', '0005', 45.00, 'USD', 'AUTHORIZED', NULL, NULL,  NULL, NULL),
    -- Reported: by token, the card from Transaction Search; the issuer
    -- declined it (answered 201 DECLINED).
    ('m1', 'journal.ndjson', 6, TIMESTAMPTZ '2026-11-19 10:00:00+00', '/pts/v2/payments', 201, 'authorization', 'auth-6', NULL,     NULL,     NULL,   80.00, 'USD', 'DECLINED',   NULL, NULL,  NULL, NULL),
    -- Not reported: answered 400; the day before the window.
    ('m1', 'journal.ndjson', 7, TIMESTAMPTZ '2026-11-19 12:00:00+00', '/pts/v2/payments', 400, 'sale',          'sale-7', NULL,     '488888', '0001', 45.00, 'USD', 'INVALID_REQUEST', NULL, NULL, NULL, NULL),
    ('m1', 'journal.ndjson', 8, TIMESTAMPTZ '2026-11-16 12:00:00+00', '/pts/v2/payments', 201, 'sale',          'sale-8', NULL,     '488888', '0001', 45.00, 'USD', 'AUTHORIZED', NULL, NULL,  NULL, NULL),
    -- Not reported: by token, and only the other member's Transaction
    -- Search knows a tok-9 (on the HSA card): m1's call has no known card.
    ('m1', 'journal.ndjson', 9, TIMESTAMPTZ '2026-11-19 11:00:00+00', '/pts/v2/payments', 201, 'authorization', 'tok-9', NULL,      NULL,     NULL,   80.00, 'USD', 'AUTHORIZED', NULL, NULL,  NULL, NULL),
    -- Not reported: the other member's own call on the HSA card, with its
    -- amounts. Its line number is that of m1's consumer-card sale-4.
    ('m2', 'journal.ndjson', 4, TIMESTAMPTZ '2026-11-19 12:00:00+00', '/pts/v2/payments', 201, 'sale',          'sale-m2', NULL,    '488888', '0002', 30.00, 'EUR', 'AUTHORIZED', 'HC', 30.00, NULL, 1),
    -- Reported for the other member too, apart from m1's sale-1 (same id).
    ('m2', 'journal.ndjson', 10, TIMESTAMPTZ '2026-11-20 10:00:00+00', '/pts/v2/payments', 201, 'sale',         'sale-1', NULL,     '488888', '0002', 15.00, 'USD', 'DECLINED',   NULL, NULL,  NULL, NULL);
