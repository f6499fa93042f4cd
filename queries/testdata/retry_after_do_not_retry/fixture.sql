-- retry_after_do_not_retry: an attempt in the window (a journaled
-- authorization or sale answered 2xx, or a processed subscription payment;
-- the view card_attempts) on a card (BIN and last four) the same member
-- saw declined do-not-retry less than 30 days before, with no approval of
-- the card in between. Do-not-retry: on a Visa card merchant advice code 1
-- or a category 1 response code; on another card merchant advice code 03
-- or 21 (code or codeRaw); on any card reason code 205 or 231.
--
-- The network is the BIN's brand (bin_attributes), else the card type.
SET VARIABLE window_start = TIMESTAMPTZ '2026-11-17 00:00:00+00'; -- business date 2026-11-20, lookback 3 days
SET VARIABLE window_end   = TIMESTAMPTZ '2026-11-21 00:00:00+00';

INSERT INTO bin_attributes (bin, lookup_status, brand) VALUES
    ('530695', 'COMPLETED', 'MASTERCARD'), ('411111', 'COMPLETED', 'VISA'), ('427533', 'COMPLETED', 'Visa'),
    ('378282', 'COMPLETED', 'AMERICAN EXPRESS'), ('520082', 'MULTIPLE', NULL);

INSERT INTO journal (merchant_id, file, line, time, path, status, call_kind, transaction_id, card_bin, card_last4, card_type, amount, currency, response_status, initiator_type, processor_response_code, merchant_advice_code, merchant_advice_code_raw) VALUES
    -- Mastercard ...0001: advice code 03, then a sale two hours later:
    -- reported a2.
    ('m1', 'j.ndjson',  1, TIMESTAMPTZ '2026-11-18 10:00:00+00', '/pts/v2/payments', 201, 'sale',          'a1',  '530695', '0001', '002', 20.00, 'GBP', 'DECLINED',   'merchant', '05', '03', '03'),
    ('m1', 'j.ndjson',  2, TIMESTAMPTZ '2026-11-18 12:00:00+00', '/pts/v2/payments', 201, 'sale',          'a2',  '530695', '0001', '002', 20.00, 'GBP', 'DECLINED',   'merchant', '05', '03', '03'),
    -- Mastercard ...0002: codeRaw 21 (payment cancelled) under a code 02:
    -- reported b2 the next day, and b3, still declined, after it.
    ('m1', 'j.ndjson',  3, TIMESTAMPTZ '2026-11-18 10:00:00+00', '/pts/v2/payments', 201, 'sale',          'b1',  '530695', '0002', '002', 21.00, 'GBP', 'DECLINED',   'merchant', '05', '02', '21'),
    ('m1', 'j.ndjson',  4, TIMESTAMPTZ '2026-11-19 10:00:00+00', '/pts/v2/payments', 201, 'authorization', 'b2',  '530695', '0002', '002', 21.00, 'GBP', 'DECLINED',   'merchant', '05', '02', '02'),
    ('m1', 'j.ndjson',  5, TIMESTAMPTZ '2026-11-20 10:00:00+00', '/pts/v2/payments', 201, 'authorization', 'b3',  '530695', '0002', '002', 21.00, 'GBP', 'AUTHORIZED', 'merchant', '00', NULL, NULL),
    -- Not reported c2, c3: Mastercard ...0003 declined "try again later"
    -- (02, then 24: retry after an hour).
    ('m1', 'j.ndjson',  6, TIMESTAMPTZ '2026-11-18 10:00:00+00', '/pts/v2/payments', 201, 'sale',          'c1',  '530695', '0003', '002', 22.00, 'GBP', 'DECLINED',   'merchant', '51', '02', '02'),
    ('m1', 'j.ndjson',  7, TIMESTAMPTZ '2026-11-18 11:00:00+00', '/pts/v2/payments', 201, 'sale',          'c2',  '530695', '0003', '002', 22.00, 'GBP', 'DECLINED',   'merchant', '51', '24', '24'),
    ('m1', 'j.ndjson',  8, TIMESTAMPTZ '2026-11-18 12:00:00+00', '/pts/v2/payments', 201, 'sale',          'c3',  '530695', '0003', '002', 22.00, 'GBP', 'AUTHORIZED', 'merchant', '00', NULL, NULL),
    -- Visa ...0004: category 1 response code 14 (invalid account number),
    -- then a customer's authorization by token, its card from Transaction
    -- Search: reported d2.
    ('m1', 'j.ndjson',  9, TIMESTAMPTZ '2026-11-17 09:00:00+00', '/pts/v2/payments', 201, 'authorization', 'd1',  '411111', '0004', '001', 30.00, 'USD', 'DECLINED',   'customer', '14', NULL, NULL),
    ('m1', 'j.ndjson', 10, TIMESTAMPTZ '2026-11-17 09:05:00+00', '/pts/v2/payments', 201, 'authorization', 'd2',  NULL,     NULL,   NULL,  30.00, 'USD', 'AUTHORIZED', NULL,       '00', NULL, NULL),
    -- Visa ...0005: merchant advice code 1 (issuer never approves) under a
    -- response 05: reported e2.
    ('m1', 'j.ndjson', 11, TIMESTAMPTZ '2026-11-19 08:00:00+00', '/pts/v2/payments', 201, 'sale',          'e1',  '411111', '0005', '001', 31.00, 'USD', 'DECLINED',   'merchant', '05', '1',  NULL),
    ('m1', 'j.ndjson', 12, TIMESTAMPTZ '2026-11-19 09:00:00+00', '/pts/v2/payments', 201, 'sale',          'e2',  '411111', '0005', '001', 31.00, 'USD', 'DECLINED',   'merchant', '05', '1',  NULL),
    -- Not reported f2: on a Visa card advice code 03 is Visa's category 3
    -- (revalidate the data), not Mastercard's do-not-try-again.
    ('m1', 'j.ndjson', 13, TIMESTAMPTZ '2026-11-19 08:00:00+00', '/pts/v2/payments', 201, 'sale',          'f1',  '411111', '0006', '001', 32.00, 'USD', 'DECLINED',   'merchant', '05', '03', NULL),
    ('m1', 'j.ndjson', 14, TIMESTAMPTZ '2026-11-19 09:00:00+00', '/pts/v2/payments', 201, 'sale',          'f2',  '411111', '0006', '001', 32.00, 'USD', 'AUTHORIZED', 'merchant', '00', NULL, NULL),
    -- Not reported g2: Visa's category 1 codes are Visa's; an American
    -- Express decline 43 without reason code 205 says nothing of retries.
    ('m1', 'j.ndjson', 15, TIMESTAMPTZ '2026-11-19 08:00:00+00', '/pts/v2/payments', 201, 'sale',          'g1',  '378282', '0007', '003', 33.00, 'USD', 'DECLINED',   'merchant', '43', NULL, NULL),
    ('m1', 'j.ndjson', 16, TIMESTAMPTZ '2026-11-19 09:00:00+00', '/pts/v2/payments', 201, 'sale',          'g2',  '378282', '0007', '003', 33.00, 'USD', 'AUTHORIZED', 'merchant', '00', NULL, NULL),
    -- Visa ...0008 (brand written Visa): the subscription payment below
    -- failed with reason code 205, then the merchant charged the card
    -- itself: reported h2.
    ('m1', 'j.ndjson', 17, TIMESTAMPTZ '2026-11-19 10:00:00+00', '/pts/v2/payments', 201, 'sale',          'h2',  '427533', '0008', '001', 34.00, 'USD', 'AUTHORIZED', 'merchant', '00', NULL, NULL),
    -- Mastercard ...0009: advice 21 on the merchant's call, then the
    -- billing engine charged the card (below): reported i2 (a payment).
    ('m1', 'j.ndjson', 18, TIMESTAMPTZ '2026-11-18 10:00:00+00', '/pts/v2/payments', 201, 'sale',          'i1',  '530695', '0009', '002', 35.00, 'GBP', 'DECLINED',   'merchant', '05', '21', '21'),
    -- Visa ...0010: response 41 (lost card), then the customer's approved
    -- authorization (reported k2: the first charge after the refusal),
    -- then an MIT (not reported k3: the approval came between).
    ('m1', 'j.ndjson', 19, TIMESTAMPTZ '2026-11-17 10:00:00+00', '/pts/v2/payments', 201, 'sale',          'k1',  '411111', '0010', '001', 36.00, 'USD', 'DECLINED',   'merchant', '41', NULL, NULL),
    ('m1', 'j.ndjson', 20, TIMESTAMPTZ '2026-11-18 10:00:00+00', '/pts/v2/payments', 201, 'authorization', 'k2',  '411111', '0010', '001', 36.00, 'USD', 'AUTHORIZED', 'customer', '00', NULL, NULL),
    ('m1', 'j.ndjson', 21, TIMESTAMPTZ '2026-11-19 10:00:00+00', '/pts/v2/payments', 201, 'sale',          'k3',  '411111', '0010', '001', 36.00, 'USD', 'AUTHORIZED', 'merchant', '00', NULL, NULL),
    -- Mastercard ...0011, refused 03 on 19 October 10:00: a charge 29 days
    -- 23:59:59 later is reported (l2, declined 05), one exactly 30 days
    -- later is not (l3).
    ('m1', 'j.ndjson', 22, TIMESTAMPTZ '2026-10-19 10:00:00+00', '/pts/v2/payments', 201, 'sale',          'l1',  '530695', '0011', '002', 37.00, 'GBP', 'DECLINED',   'merchant', '05', '03', '03'),
    ('m1', 'j.ndjson', 23, TIMESTAMPTZ '2026-11-18 09:59:59+00', '/pts/v2/payments', 201, 'sale',          'l2',  '530695', '0011', '002', 37.00, 'GBP', 'DECLINED',   'merchant', '05', '02', '02'),
    ('m1', 'j.ndjson', 24, TIMESTAMPTZ '2026-11-18 10:00:00+00', '/pts/v2/payments', 201, 'sale',          'l3',  '530695', '0011', '002', 37.00, 'GBP', 'DECLINED',   'merchant', '05', '02', '02'),
    -- Card ...0012 on a BIN the lookup left MULTIPLE: Mastercard by its
    -- card type, refused 03; the retry at the window's start is reported
    -- (q2), the one before it is outside the window (q0), as is one at its
    -- end (q3), and one answered 400 never reached the issuer (q4).
    ('m1', 'j.ndjson', 25, TIMESTAMPTZ '2026-11-16 10:00:00+00', '/pts/v2/payments', 201, 'sale',          'q1',  '520082', '0012', '002', 38.00, 'USD', 'DECLINED',   'merchant', '05', '03', NULL),
    ('m1', 'j.ndjson', 26, TIMESTAMPTZ '2026-11-16 23:59:59+00', '/pts/v2/payments', 201, 'sale',          'q0',  '520082', '0012', '002', 38.00, 'USD', 'DECLINED',   'merchant', '05', '03', NULL),
    ('m1', 'j.ndjson', 27, TIMESTAMPTZ '2026-11-17 00:00:00+00', '/pts/v2/payments', 201, 'sale',          'q2',  '520082', '0012', '002', 38.00, 'USD', 'DECLINED',   'merchant', '05', '03', NULL),
    ('m1', 'j.ndjson', 28, TIMESTAMPTZ '2026-11-21 00:00:00+00', '/pts/v2/payments', 201, 'sale',          'q3',  '520082', '0012', '002', 38.00, 'USD', 'DECLINED',   'merchant', '05', '03', NULL),
    ('m1', 'j.ndjson', 29, TIMESTAMPTZ '2026-11-20 10:00:00+00', '/pts/v2/payments', 400, 'sale',          'q4',  '520082', '0012', '002', 38.00, 'USD', 'INVALID_REQUEST', 'merchant', NULL, NULL, NULL),
    -- Not reported n2: only the other member was refused on card ...0013.
    ('m1', 'j.ndjson', 30, TIMESTAMPTZ '2026-11-19 10:00:00+00', '/pts/v2/payments', 201, 'sale',          'n2',  '530695', '0013', '002', 39.00, 'GBP', 'AUTHORIZED', 'merchant', '00', NULL, NULL),
    ('m2', 'j.ndjson', 30, TIMESTAMPTZ '2026-11-18 10:00:00+00', '/pts/v2/payments', 201, 'sale',          'n1',  '530695', '0013', '002', 39.00, 'GBP', 'DECLINED',   'merchant', '05', '03', '03'),
    -- a2 journaled again (a replayed file): one finding, from the first line.
    ('m1', 'k.ndjson',  1, TIMESTAMPTZ '2026-11-18 12:00:00+00', '/pts/v2/payments', 201, 'sale',          'a2',  '530695', '0001', '002', 20.00, 'GBP', 'DECLINED',   'merchant', '05', '03', '03');

INSERT INTO transactions (merchant_id, transaction_id, submit_time, status, reason_code, amount, currency, card_bin, card_last4, card_type) VALUES
    -- Transaction Search's record of d2 (sent by token).
    ('m1', 'd2',    TIMESTAMPTZ '2026-11-17 09:05:00+00', 'AUTHORIZED', '100', 30.00, 'USD', '411111', '0004', '001'),
    -- The subscription payments' transactions.
    ('m1', 'h1',    TIMESTAMPTZ '2026-11-17 08:00:00+00', 'DECLINED',   '205', 34.00, 'USD', '427533', '0008', '001'),
    ('m1', 'i2',    TIMESTAMPTZ '2026-11-19 08:00:00+00', 'PENDING',    '100', 35.00, 'GBP', '530695', '0009', '002'),
    -- Not reported p2: a failed payment with reason 203 (general decline)
    -- is no refusal.
    ('m1', 'p1',    TIMESTAMPTZ '2026-11-17 08:00:00+00', 'DECLINED',   '203', 40.00, 'USD', '411111', '0014', '001'),
    ('m1', 'p2',    TIMESTAMPTZ '2026-11-19 08:00:00+00', 'DECLINED',   '203', 40.00, 'USD', '411111', '0014', '001');

INSERT INTO subscription_payments (merchant_id, payment_id, subscription_id, status, payment_type, billing_cycle, payment_date, billing_amount, currency, transaction_id) VALUES
    ('m1', 'pay-h1', 'sub-h', 'FAILED', 'STANDARD', 3, TIMESTAMPTZ '2026-11-17 08:00:00+00', 34.00, 'USD', 'h1'),
    ('m1', 'pay-i2', 'sub-i', 'PAID',   'STANDARD', 2, TIMESTAMPTZ '2026-11-19 08:00:00+00', 35.00, 'GBP', 'i2'),
    ('m1', 'pay-p1', 'sub-p', 'FAILED', 'STANDARD', 5, TIMESTAMPTZ '2026-11-17 08:00:00+00', 40.00, 'USD', 'p1'),
    ('m1', 'pay-p2', 'sub-p', 'FAILED', 'RETRY',    5, TIMESTAMPTZ '2026-11-19 08:00:00+00', 40.00, 'USD', 'p2'),
    -- A scheduled payment is no attempt.
    ('m1', 'pay-i3', 'sub-i', 'SCHEDULED', 'STANDARD', 3, TIMESTAMPTZ '2026-12-19 08:00:00+00', 35.00, 'GBP', NULL);
