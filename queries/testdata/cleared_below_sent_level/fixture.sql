-- cleared_below_sent_level: an interchange clearing record whose
-- transaction time is in the window and whose cleared level is below the
-- level sent (merchantPricedLevel), levels read as 1, 2, 3 whatever their
-- spelling (3, L3, LEVEL 3, III; STANDARD and STD are 1); a spelling not
-- known is not compared.
SET VARIABLE window_start = TIMESTAMPTZ '2026-11-17 00:00:00+00';
SET VARIABLE window_end   = TIMESTAMPTZ '2026-11-21 00:00:00+00';

INSERT INTO interchange_clearing (merchant_id, request_id, transaction_time, transaction_type, amount, currency, sent_level, cleared_level,
                                  billback_reason_code, billback_reason, downgrade_reason_code, fee_expected, fee_charged, billback_amount, fee_currency) VALUES
    -- Reported r1: Level III sent, cleared standard, billed back.
    ('m1', 'r1', TIMESTAMPTZ '2026-11-18 10:00:00+00', 'CAPTURE', 120.00, 'USD', '3', '1', 'X', 'Did not qualify at merchant price level', 'X', 2.38, 3.28, 0.90, 'USD'),
    -- Not reported r2: Level III sent, cleared at Level III.
    ('m1', 'r2', TIMESTAMPTZ '2026-11-18 11:00:00+00', 'CAPTURE', 120.00, 'USD', '3', '3', NULL, NULL, NULL, 2.38, 2.38, 0.00, 'USD'),
    -- Reported r3: the levels spelled L3 and STANDARD; no billback amount
    -- sent: the difference is charged less expected.
    ('m1', 'r3', TIMESTAMPTZ '2026-11-19 09:00:00+00', 'SALE', 50.00, 'USD', 'L3', 'STANDARD', NULL, NULL, '1', 1.05, 1.43, NULL, 'USD'),
    -- Not reported r4: cleared above the level sent.
    ('m1', 'r4', TIMESTAMPTZ '2026-11-19 10:00:00+00', 'SALE', 50.00, 'USD', '2', '3', NULL, NULL, NULL, 1.13, 1.05, 0.00, 'USD'),
    -- Not reported r5: at the window's end (exclusive).
    ('m1', 'r5', TIMESTAMPTZ '2026-11-21 00:00:00+00', 'CAPTURE', 80.00, 'USD', '3', '1', 'X', NULL, 'X', 1.62, 2.22, 0.60, 'USD'),
    -- Reported r6: at the window's start (inclusive), Level II sent.
    ('m1', 'r6', TIMESTAMPTZ '2026-11-17 00:00:00+00', 'CAPTURE', 80.00, 'USD', 'LEVEL 2', '1', '1', 'Transaction exceeded timeliness', '1', 1.74, 2.22, 0.48, 'USD'),
    -- Not reported r7: a level spelled in a way not known.
    ('m1', 'r7', TIMESTAMPTZ '2026-11-19 11:00:00+00', 'CAPTURE', 80.00, 'USD', 'GOLD', '1', NULL, NULL, NULL, 1.74, 2.22, 0.48, 'USD'),
    -- Reported for the other member, apart from m1's r1 (same id).
    ('m2', 'r1', TIMESTAMPTZ '2026-11-20 08:00:00+00', 'CAPTURE', 9000, 'JPY', 'III', 'I', 'X', NULL, 'X', 171, 239, 68, 'JPY');
