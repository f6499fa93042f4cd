-- double_charge: a billing cycle with two or more PAID payments, reported
-- while a PAID payment after the cycle's first (by date, then payment
-- number) is dated in the window. Amount: what the payments after the
-- first collected. Entity: <subscription_id>:<cycle>.
SET VARIABLE window_start = TIMESTAMPTZ '2026-11-17 00:00:00+00'; -- business date 2026-11-20, lookback 3 days
SET VARIABLE window_end   = TIMESTAMPTZ '2026-11-21 00:00:00+00';

INSERT INTO subscription_payments (merchant_id, payment_id, subscription_id, status, payment_type, billing_cycle, payment_number, payment_date, billing_amount, setup_fee, currency, transaction_id) VALUES
    -- Reported sub-1:3: billed twice five minutes apart; 20.00 extra.
    ('m1', 'pay-1', 'sub-1', 'PAID',   'STANDARD', 3, 3, TIMESTAMPTZ '2026-11-18 10:00:00+00', 20.00, NULL, 'USD', 'tx-1'),
    ('m1', 'pay-2', 'sub-1', 'PAID',   'STANDARD', 3, 4, TIMESTAMPTZ '2026-11-18 10:05:00+00', 20.00, NULL, 'USD', 'tx-2'),
    -- Reported sub-2:1: first paid a month before the window, again in it;
    -- the extra payment's setup fee counts (30.00 + 5.00).
    ('m1', 'pay-3', 'sub-2', 'PAID',   'STANDARD', 1, 1, TIMESTAMPTZ '2026-10-15 10:00:00+00', 30.00, 5.00, 'USD', 'tx-3'),
    ('m1', 'pay-4', 'sub-2', 'PAID',   'STANDARD', 1, 2, TIMESTAMPTZ '2026-11-19 09:00:00+00', 30.00, 5.00, 'USD', 'tx-4'),
    -- Reported sub-5:6: same date, so the lower payment number is the
    -- first; the extra is pay-8's 12.00.
    ('m1', 'pay-8', 'sub-5', 'PAID',   'STANDARD', 6, 7, TIMESTAMPTZ '2026-11-19 12:00:00+00', 12.00, NULL, 'USD', 'tx-8'),
    ('m1', 'pay-9', 'sub-5', 'PAID',   'STANDARD', 6, 6, TIMESTAMPTZ '2026-11-19 12:00:00+00', 10.00, NULL, 'USD', 'tx-9'),
    -- Not reported: billed twice, but both before the window (reported
    -- by earlier runs).
    ('m1', 'pay-5', 'sub-3', 'PAID',   'STANDARD', 2, 2, TIMESTAMPTZ '2026-10-01 10:00:00+00', 15.00, NULL, 'USD', 'tx-5'),
    ('m1', 'pay-6', 'sub-3', 'PAID',   'STANDARD', 2, 3, TIMESTAMPTZ '2026-10-02 10:00:00+00', 15.00, NULL, 'USD', 'tx-6'),
    -- Not reported: failed, then a retry paid it: one PAID payment.
    ('m1', 'pay-7', 'sub-4', 'FAILED', 'STANDARD', 2, 2, TIMESTAMPTZ '2026-11-17 10:00:00+00', 15.00, NULL, 'USD', 'tx-7'),
    ('m1', 'pay-r', 'sub-4', 'PAID',   'RETRY',    2, 3, TIMESTAMPTZ '2026-11-19 10:00:00+00', 15.00, NULL, 'USD', 'tx-r'),
    -- Not reported: sub-1's cycle 4 is paid once by each member; the two
    -- would be a double charge if the check forgot merchant_id.
    ('m1', 'pay-10', 'sub-1', 'PAID',  'STANDARD', 4, 5, TIMESTAMPTZ '2026-11-19 10:00:00+00', 20.00, NULL, 'USD', 'tx-10'),
    ('m2', 'pay-11', 'sub-1', 'PAID',  'STANDARD', 4, 4, TIMESTAMPTZ '2026-11-19 11:00:00+00', 20.00, NULL, 'USD', 'tx-11'),
    -- Not reported: the other member's sub-1 paid its cycle 3 once, before
    -- m1's two payments; counted among them it would make both of m1's
    -- payments extra (40.00 for sub-1:3).
    ('m2', 'pay-12', 'sub-1', 'PAID',  'STANDARD', 3, 3, TIMESTAMPTZ '2026-11-17 08:00:00+00', 20.00, NULL, 'USD', 'tx-12');
