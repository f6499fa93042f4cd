-- subscription_suspended: a subscription whose current status is
-- SUSPENDED (retries exhausted, a do-not-retry decline, or the merchant
-- suspended it). A state, not an event: the window does not matter.
SET VARIABLE window_start = TIMESTAMPTZ '2026-11-17 00:00:00+00'; -- business date 2026-11-20, lookback 3 days
SET VARIABLE window_end   = TIMESTAMPTZ '2026-11-21 00:00:00+00';

INSERT INTO subscriptions (merchant_id, subscription_id, code, plan_id, customer_id, status, start_date, billing_amount, currency) VALUES
    -- Reported: SUSPENDED, however long ago.
    ('m1', 'sub-susp',   'AWC-3', 'plan-gold', 'cust-3', 'SUSPENDED',  TIMESTAMPTZ '2025-02-05 09:00:00+00', 19.99, 'USD'),
    -- Not reported: the neighbouring statuses (DELINQUENT is still being
    -- retried; CANCELLED is over).
    ('m1', 'sub-late',   'AWC-1', 'plan-gold', 'cust-1', 'DELINQUENT', TIMESTAMPTZ '2025-03-10 09:00:00+00', 19.99, 'USD'),
    ('m1', 'sub-gone',   'AWC-5', 'plan-gold', 'cust-5', 'CANCELLED',  TIMESTAMPTZ '2025-04-10 09:00:00+00', 19.99, 'USD'),
    ('m1', 'sub-active', 'AWC-2', 'plan-gold', 'cust-2', 'ACTIVE',     TIMESTAMPTZ '2026-01-05 09:00:00+00', 19.99, 'USD'),
    -- The other member: its SUSPENDED subscription is reported under it;
    -- its ACTIVE one with m1's suspended id is not.
    ('m2', 'sub-eur',    'ZX-9',  'plan-eu',   'cust-9', 'SUSPENDED',  TIMESTAMPTZ '2026-06-30 00:00:00+00', 7.50,  'EUR'),
    ('m2', 'sub-susp',   'ZX-1',  'plan-eu',   'cust-8', 'ACTIVE',     TIMESTAMPTZ '2026-06-30 00:00:00+00', 7.50,  'EUR');
