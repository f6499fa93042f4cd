-- plan_amount_mismatch: a PAID payment dated in the window whose billing
-- amount (in its currency) is neither its subscription's nor its plan's.
-- Setup fee and surcharge are not compared.
SET VARIABLE window_start = TIMESTAMPTZ '2026-11-17 00:00:00+00'; -- business date 2026-11-20, lookback 3 days
SET VARIABLE window_end   = TIMESTAMPTZ '2026-11-21 00:00:00+00';

INSERT INTO plans (merchant_id, plan_id, billing_amount, currency) VALUES
    ('m1', 'plan-1', 20.00, 'USD'),
    -- Amended to 25.00 with applyTo NEW: sub-2 keeps 20.00.
    ('m1', 'plan-2', 25.00, 'USD'),
    -- The other member's plan with m1's id plan-1 at 22.00: would excuse
    -- m1's pay-2 if the plan join forgot merchant_id.
    ('m2', 'plan-1', 22.00, 'USD');

INSERT INTO subscriptions (merchant_id, subscription_id, plan_id, status, billing_amount, currency) VALUES
    ('m1', 'sub-1', 'plan-1', 'ACTIVE', 20.00, 'USD'),
    ('m1', 'sub-2', 'plan-2', 'ACTIVE', 20.00, 'USD'),
    -- A one-time plan: no stored plan to compare with.
    ('m1', 'sub-3', NULL,     'ACTIVE', 30.00, 'USD'),
    -- The other member's sub-1 (m1's id) at 22.00: m1's pay-1 of 20.00
    -- would be a mismatch against it if the check forgot merchant_id.
    ('m2', 'sub-1', 'plan-1', 'ACTIVE', 22.00, 'USD');

INSERT INTO subscription_payments (merchant_id, payment_id, subscription_id, status, payment_type, billing_cycle, payment_date, billing_amount, setup_fee, surcharge_amount, currency, transaction_id) VALUES
    -- Reported: 22.00 is neither sub-1's nor plan-1's 20.00.
    ('m1', 'pay-2',  'sub-1', 'PAID',   'STANDARD', 2, TIMESTAMPTZ '2026-11-18 10:00:00+00', 22.00, NULL, NULL, 'USD', 'tx-2'),
    -- Reported: the right amount in the wrong currency.
    ('m1', 'pay-5',  'sub-1', 'PAID',   'STANDARD', 3, TIMESTAMPTZ '2026-11-19 10:00:00+00', 20.00, NULL, NULL, 'EUR', 'tx-5'),
    -- Reported: off the subscription's own price, no plan to excuse it.
    ('m1', 'pay-9',  'sub-3', 'PAID',   'STANDARD', 4, TIMESTAMPTZ '2026-11-20 10:00:00+00', 31.00, NULL, NULL, 'USD', 'tx-9'),
    -- Not reported: the subscription's amount; setup fee and surcharge
    -- are not compared.
    ('m1', 'pay-1',  'sub-1', 'PAID',   'STANDARD', 1, TIMESTAMPTZ '2026-11-17 10:00:00+00', 20.00, 5.00, 1.00, 'USD', 'tx-1'),
    -- Not reported: the plan's amended amount (the subscription record
    -- does not show the amendment yet), and the subscription's own.
    ('m1', 'pay-3',  'sub-2', 'PAID',   'STANDARD', 5, TIMESTAMPTZ '2026-11-18 11:00:00+00', 25.00, NULL, NULL, 'USD', 'tx-3'),
    ('m1', 'pay-4',  'sub-2', 'PAID',   'STANDARD', 6, TIMESTAMPTZ '2026-11-19 11:00:00+00', 20.00, NULL, NULL, 'USD', 'tx-4'),
    -- Not reported: off, but the day before the window; off, but FAILED.
    ('m1', 'pay-6',  'sub-1', 'PAID',   'STANDARD', 7, TIMESTAMPTZ '2026-11-16 10:00:00+00', 22.00, NULL, NULL, 'USD', 'tx-6'),
    ('m1', 'pay-7',  'sub-1', 'FAILED', 'STANDARD', 8, TIMESTAMPTZ '2026-11-20 12:00:00+00', 22.00, NULL, NULL, 'USD', 'tx-7');
