-- prepaid_card_on_subscription: a subscription, not CANCELLED or
-- COMPLETED, charged in the window (a payment whose transaction, paid or
-- declined, Transaction Search returns with a submit time in the window)
-- on a card whose BIN's funding source is PREPAID. One finding per
-- subscription; the detail shows its latest such transaction.
SET VARIABLE window_start = TIMESTAMPTZ '2026-11-17 00:00:00+00'; -- business date 2026-11-20, lookback 3 days
SET VARIABLE window_end   = TIMESTAMPTZ '2026-11-21 00:00:00+00';

INSERT INTO bin_attributes (bin, lookup_status, funding_source, card_product) VALUES
    ('423456', 'COMPLETED', 'PREPAID', 'Visa Prepaid'),
    ('411111', 'COMPLETED', 'CREDIT',  'Visa Classic');

INSERT INTO subscriptions (merchant_id, subscription_id, code, customer_id, status, billing_amount, currency) VALUES
    ('m1', 'sub-1', 'AWC-1', 'cust-1', 'ACTIVE',     9.99,  'USD'),
    ('m1', 'sub-2', 'AWC-2', 'cust-2', 'CANCELLED',  9.99,  'USD'),
    ('m1', 'sub-3', 'AWC-3', 'cust-3', 'ACTIVE',     9.99,  'USD'),
    ('m1', 'sub-4', 'AWC-4', 'cust-4', 'DELINQUENT', 14.99, 'USD'),
    ('m1', 'sub-5', 'AWC-5', 'cust-5', 'ACTIVE',     9.99,  'USD');

INSERT INTO subscription_payments (merchant_id, payment_id, subscription_id, status, payment_type, billing_cycle, payment_date, billing_amount, currency, transaction_id) VALUES
    -- Reported sub-1, once, with its later transaction tx-1b.
    ('m1', 'pay-1a', 'sub-1', 'PAID',   'STANDARD', 1, TIMESTAMPTZ '2026-11-17 10:00:00+00',  9.99, 'USD', 'tx-1a'),
    ('m1', 'pay-1b', 'sub-1', 'PAID',   'STANDARD', 2, TIMESTAMPTZ '2026-11-19 10:00:00+00',  9.99, 'USD', 'tx-1b'),
    -- Not reported: prepaid, but the subscription is CANCELLED.
    ('m1', 'pay-2',  'sub-2', 'PAID',   'STANDARD', 3, TIMESTAMPTZ '2026-11-18 10:00:00+00',  9.99, 'USD', 'tx-2'),
    -- Not reported: a credit card.
    ('m1', 'pay-3',  'sub-3', 'PAID',   'STANDARD', 3, TIMESTAMPTZ '2026-11-18 11:00:00+00',  9.99, 'USD', 'tx-3'),
    -- Reported sub-4: a declined payment counts (the balance ran out).
    ('m1', 'pay-4',  'sub-4', 'FAILED', 'STANDARD', 5, TIMESTAMPTZ '2026-11-18 10:00:00+00', 14.99, 'USD', 'tx-4'),
    -- Not reported: prepaid, but charged the day before the window.
    ('m1', 'pay-5',  'sub-5', 'PAID',   'STANDARD', 2, TIMESTAMPTZ '2026-11-16 10:00:00+00',  9.99, 'USD', 'tx-5');

INSERT INTO transactions (merchant_id, transaction_id, submit_time, status, amount, currency, card_bin, card_last4) VALUES
    ('m1', 'tx-1a', TIMESTAMPTZ '2026-11-17 10:00:00+00', 'TRANSMITTED',  9.99, 'USD', '423456', '0001'),
    ('m1', 'tx-1b', TIMESTAMPTZ '2026-11-19 10:00:00+00', 'TRANSMITTED',  9.99, 'USD', '423456', '0001'),
    ('m1', 'tx-2',  TIMESTAMPTZ '2026-11-18 10:00:00+00', 'TRANSMITTED',  9.99, 'USD', '423456', '0002'),
    ('m1', 'tx-3',  TIMESTAMPTZ '2026-11-18 11:00:00+00', 'TRANSMITTED',  9.99, 'USD', '411111', '0003'),
    ('m1', 'tx-4',  TIMESTAMPTZ '2026-11-18 10:00:00+00', 'DECLINED',    14.99, 'USD', '423456', '0004'),
    ('m1', 'tx-5',  TIMESTAMPTZ '2026-11-16 10:00:00+00', 'TRANSMITTED',  9.99, 'USD', '423456', '0005'),
    -- The other member's tx-3 (m1's id) is on a prepaid card: joined to
    -- m1's pay-3, if the check forgot merchant_id, it would report sub-3.
    ('m2', 'tx-3',  TIMESTAMPTZ '2026-11-18 12:00:00+00', 'TRANSMITTED', 30.00, 'USD', '423456', '0099');
