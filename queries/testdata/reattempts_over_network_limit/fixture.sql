-- reattempts_over_network_limit: in the window, a reattempt (an attempt
-- whose previous attempt on the same card at the same member, in the same
-- counter, was declined) with which the reattempts since the card's last
-- approval, less than the window before it, exceed the network's limit.
-- Attempts are those of the view card_attempts: journaled authorizations
-- and sales answered 2xx, and processed subscription payments (counted as
-- merchant-initiated).
--
-- The limits are a --retry-limits file's, smaller than the defaults so
-- that the rows stay few: Visa 3 in 30 days counting customer- and
-- merchant-initiated reattempts apart, Mastercard 2 in a day and 4 in 30
-- days, any other network 1 in a day.
SET VARIABLE window_start = TIMESTAMPTZ '2026-11-17 00:00:00+00'; -- business date 2026-11-20, lookback 3 days
SET VARIABLE window_end   = TIMESTAMPTZ '2026-11-21 00:00:00+00';

INSERT INTO retry_limits (network, reattempts, window_length, cit_mit_apart, source) VALUES
    ('VISA',       3, INTERVAL '30 days', true,  'limits.csv'),
    ('MASTERCARD', 2, INTERVAL '1 day',   false, 'limits.csv'),
    ('MASTERCARD', 4, INTERVAL '30 days', false, 'limits.csv'),
    ('*',          1, INTERVAL '1 day',   false, 'limits.csv');

INSERT INTO bin_attributes (bin, lookup_status, brand) VALUES
    ('411111', 'COMPLETED', 'VISA'), ('427533', 'COMPLETED', 'VISA'), ('530695', 'COMPLETED', 'MASTERCARD'),
    ('378282', 'COMPLETED', 'AMERICAN EXPRESS');

INSERT INTO journal (merchant_id, file, line, time, path, status, call_kind, transaction_id, card_bin, card_last4, card_type, amount, currency, response_status, initiator_type) VALUES
    -- Visa ...0001, merchant-initiated: declined, then reattempted 5 times
    -- (the 4th, a4, and the approved 5th, a5, over the limit of 3); after
    -- the approval a6 is a first attempt and a7 the first reattempt again.
    ('m1', 'j.ndjson',  1, TIMESTAMPTZ '2026-11-15 08:00:00+00', '/pts/v2/payments', 201, 'sale', 'a0', '411111', '0001', '001', 10.00, 'USD', 'DECLINED',   'merchant'),
    ('m1', 'j.ndjson',  2, TIMESTAMPTZ '2026-11-16 08:00:00+00', '/pts/v2/payments', 201, 'sale', 'a1', '411111', '0001', '001', 10.00, 'USD', 'DECLINED',   'merchant'),
    ('m1', 'j.ndjson',  3, TIMESTAMPTZ '2026-11-17 08:00:00+00', '/pts/v2/payments', 201, 'sale', 'a2', '411111', '0001', '001', 10.00, 'USD', 'DECLINED',   'merchant'),
    ('m1', 'j.ndjson',  4, TIMESTAMPTZ '2026-11-18 08:00:00+00', '/pts/v2/payments', 201, 'sale', 'a3', '411111', '0001', '001', 10.00, 'USD', 'DECLINED',   'merchant'),
    ('m1', 'j.ndjson',  5, TIMESTAMPTZ '2026-11-19 08:00:00+00', '/pts/v2/payments', 201, 'sale', 'a4', '411111', '0001', '001', 10.00, 'USD', 'DECLINED',   'merchant'),
    ('m1', 'j.ndjson',  6, TIMESTAMPTZ '2026-11-19 09:00:00+00', '/pts/v2/payments', 201, 'sale', 'a5', '411111', '0001', '001', 10.00, 'USD', 'AUTHORIZED', 'merchant'),
    ('m1', 'j.ndjson',  7, TIMESTAMPTZ '2026-11-19 10:00:00+00', '/pts/v2/payments', 201, 'sale', 'a6', '411111', '0001', '001', 10.00, 'USD', 'DECLINED',   'merchant'),
    ('m1', 'j.ndjson',  8, TIMESTAMPTZ '2026-11-20 10:00:00+00', '/pts/v2/payments', 201, 'sale', 'a7', '411111', '0001', '001', 10.00, 'USD', 'DECLINED',   'merchant'),
    -- Visa ...0002: merchant- and customer-initiated attempts interleaved.
    -- Counted apart (Visa's rule): 3 merchant-initiated reattempts (b2, b4,
    -- b5), at the limit, and 1 customer-initiated (b3): none reported.
    -- Together they would be 5.
    ('m1', 'j.ndjson',  9, TIMESTAMPTZ '2026-11-17 08:00:00+00', '/pts/v2/payments', 201, 'sale',          'b0', '411111', '0002', '001', 11.00, 'USD', 'DECLINED', 'merchant'),
    ('m1', 'j.ndjson', 10, TIMESTAMPTZ '2026-11-17 09:00:00+00', '/pts/v2/payments', 201, 'authorization', 'b1', '411111', '0002', '001', 11.00, 'USD', 'DECLINED', 'customer'),
    ('m1', 'j.ndjson', 11, TIMESTAMPTZ '2026-11-17 10:00:00+00', '/pts/v2/payments', 201, 'sale',          'b2', '411111', '0002', '001', 11.00, 'USD', 'DECLINED', 'merchant'),
    ('m1', 'j.ndjson', 12, TIMESTAMPTZ '2026-11-17 11:00:00+00', '/pts/v2/payments', 201, 'authorization', 'b3', '411111', '0002', '001', 11.00, 'USD', 'DECLINED', NULL),
    ('m1', 'j.ndjson', 13, TIMESTAMPTZ '2026-11-18 10:00:00+00', '/pts/v2/payments', 201, 'sale',          'b4', '411111', '0002', '001', 11.00, 'USD', 'DECLINED', 'merchant'),
    ('m1', 'j.ndjson', 14, TIMESTAMPTZ '2026-11-19 10:00:00+00', '/pts/v2/payments', 201, 'sale',          'b5', '411111', '0002', '001', 11.00, 'USD', 'DECLINED', 'merchant'),
    -- Mastercard ...0003: reattempts c1-c3 within a day (c3 over 2 a day);
    -- c4 a day after c2 to the second (c2 no longer counted: 2 in the day,
    -- 4 in 30 days, both at the limit); c5 over both (the day's reported).
    -- The call answered 400 never reached the issuer.
    ('m1', 'j.ndjson', 15, TIMESTAMPTZ '2026-11-18 08:00:00+00', '/pts/v2/payments', 201, 'sale', 'c0', '530695', '0003', '002', 12.00, 'GBP', 'DECLINED', 'merchant'),
    ('m1', 'j.ndjson', 16, TIMESTAMPTZ '2026-11-18 09:00:00+00', '/pts/v2/payments', 201, 'sale', 'c1', '530695', '0003', '002', 12.00, 'GBP', 'DECLINED', 'merchant'),
    ('m1', 'j.ndjson', 17, TIMESTAMPTZ '2026-11-18 09:30:00+00', '/pts/v2/payments', 400, 'sale', 'cx', '530695', '0003', '002', 12.00, 'GBP', 'INVALID_REQUEST', 'merchant'),
    ('m1', 'j.ndjson', 18, TIMESTAMPTZ '2026-11-18 10:00:00+00', '/pts/v2/payments', 201, 'sale', 'c2', '530695', '0003', '002', 12.00, 'GBP', 'DECLINED', 'merchant'),
    ('m1', 'j.ndjson', 19, TIMESTAMPTZ '2026-11-18 11:00:00+00', '/pts/v2/payments', 201, 'sale', 'c3', '530695', '0003', '002', 12.00, 'GBP', 'DECLINED', 'merchant'),
    ('m1', 'j.ndjson', 20, TIMESTAMPTZ '2026-11-19 10:00:00+00', '/pts/v2/payments', 201, 'sale', 'c4', '530695', '0003', '002', 12.00, 'GBP', 'DECLINED', 'merchant'),
    ('m1', 'j.ndjson', 21, TIMESTAMPTZ '2026-11-19 10:30:00+00', '/pts/v2/payments', 201, 'sale', 'c5', '530695', '0003', '002', 12.00, 'GBP', 'DECLINED', 'merchant'),
    -- The other member's attempts on card ...0003, between m1's: its own 2
    -- reattempts are at the limit, and m1's count without them.
    ('m2', 'j.ndjson',  1, TIMESTAMPTZ '2026-11-18 09:15:00+00', '/pts/v2/payments', 201, 'sale', 'x0', '530695', '0003', '002', 12.00, 'GBP', 'DECLINED', 'merchant'),
    ('m2', 'j.ndjson',  2, TIMESTAMPTZ '2026-11-18 09:30:00+00', '/pts/v2/payments', 201, 'sale', 'x1', '530695', '0003', '002', 12.00, 'GBP', 'DECLINED', 'merchant'),
    ('m2', 'j.ndjson',  3, TIMESTAMPTZ '2026-11-18 10:30:00+00', '/pts/v2/payments', 201, 'sale', 'x2', '530695', '0003', '002', 12.00, 'GBP', 'DECLINED', 'merchant'),
    -- Mastercard ...0004: one reattempt a day, each exactly a day after the
    -- one before: d5, the 5th in 30 days, is over 4.
    ('m1', 'j.ndjson', 22, TIMESTAMPTZ '2026-11-13 12:00:00+00', '/pts/v2/payments', 201, 'sale', 'd0', '530695', '0004', '002', 13.00, 'GBP', 'DECLINED', 'merchant'),
    ('m1', 'j.ndjson', 23, TIMESTAMPTZ '2026-11-14 12:00:00+00', '/pts/v2/payments', 201, 'sale', 'd1', '530695', '0004', '002', 13.00, 'GBP', 'DECLINED', 'merchant'),
    ('m1', 'j.ndjson', 24, TIMESTAMPTZ '2026-11-15 12:00:00+00', '/pts/v2/payments', 201, 'sale', 'd2', '530695', '0004', '002', 13.00, 'GBP', 'DECLINED', 'merchant'),
    ('m1', 'j.ndjson', 25, TIMESTAMPTZ '2026-11-16 12:00:00+00', '/pts/v2/payments', 201, 'sale', 'd3', '530695', '0004', '002', 13.00, 'GBP', 'DECLINED', 'merchant'),
    ('m1', 'j.ndjson', 26, TIMESTAMPTZ '2026-11-17 12:00:00+00', '/pts/v2/payments', 201, 'sale', 'd4', '530695', '0004', '002', 13.00, 'GBP', 'DECLINED', 'merchant'),
    ('m1', 'j.ndjson', 27, TIMESTAMPTZ '2026-11-18 12:00:00+00', '/pts/v2/payments', 201, 'sale', 'd5', '530695', '0004', '002', 13.00, 'GBP', 'DECLINED', 'merchant'),
    -- Visa ...0005: the merchant's declines, then the billing engine's
    -- payment and retries (below) on the same card, all merchant-initiated:
    -- the retry e4 is the 4th reattempt.
    ('m1', 'j.ndjson', 28, TIMESTAMPTZ '2026-11-10 08:00:00+00', '/pts/v2/payments', 201, 'sale', 'e0', '427533', '0005', '001', 14.00, 'USD', 'DECLINED', 'merchant'),
    ('m1', 'j.ndjson', 29, TIMESTAMPTZ '2026-11-12 08:00:00+00', '/pts/v2/payments', 201, 'sale', 'e1', '427533', '0005', '001', 14.00, 'USD', 'DECLINED', 'merchant'),
    -- American Express ...0006, under the * limit (1 a day): f2 reported.
    ('m1', 'j.ndjson', 30, TIMESTAMPTZ '2026-11-19 08:00:00+00', '/pts/v2/payments', 201, 'sale', 'f0', '378282', '0006', '003', 15.00, 'USD', 'DECLINED', 'customer'),
    ('m1', 'j.ndjson', 31, TIMESTAMPTZ '2026-11-19 09:00:00+00', '/pts/v2/payments', 201, 'sale', 'f1', '378282', '0006', '003', 15.00, 'USD', 'DECLINED', 'customer'),
    ('m1', 'j.ndjson', 32, TIMESTAMPTZ '2026-11-19 10:00:00+00', '/pts/v2/payments', 201, 'sale', 'f2', '378282', '0006', '003', 15.00, 'USD', 'DECLINED', 'customer');

INSERT INTO transactions (merchant_id, transaction_id, submit_time, status, reason_code, amount, currency, card_bin, card_last4, card_type) VALUES
    ('m1', 'e2', TIMESTAMPTZ '2026-11-14 08:00:00+00', 'DECLINED', '203', 14.00, 'USD', '427533', '0005', '001'),
    ('m1', 'e3', TIMESTAMPTZ '2026-11-16 08:00:00+00', 'DECLINED', '203', 14.00, 'USD', '427533', '0005', '001'),
    ('m1', 'e4', TIMESTAMPTZ '2026-11-18 08:00:00+00', 'DECLINED', '203', 14.00, 'USD', '427533', '0005', '001');

INSERT INTO subscription_payments (merchant_id, payment_id, subscription_id, status, payment_type, billing_cycle, payment_date, billing_amount, currency, transaction_id) VALUES
    ('m1', 'pay-e2', 'sub-e', 'FAILED', 'STANDARD', 4, TIMESTAMPTZ '2026-11-14 08:00:00+00', 14.00, 'USD', 'e2'),
    ('m1', 'pay-e3', 'sub-e', 'FAILED', 'RETRY',    4, TIMESTAMPTZ '2026-11-16 08:00:00+00', 14.00, 'USD', 'e3'),
    ('m1', 'pay-e4', 'sub-e', 'FAILED', 'RETRY',    4, TIMESTAMPTZ '2026-11-18 08:00:00+00', 14.00, 'USD', 'e4');
