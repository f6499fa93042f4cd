-- retries_exhausted: a failed cycle whose retries, as many as the unit
-- allows (daily 1, weekly 3, monthly 5, yearly 3), all failed, none PAID;
-- reported while the last retry is dated in the window. Entity:
-- <subscription_id>:<cycle>; amount: the failed payment (billing amount +
-- setup fee + surcharge).
--
-- Each subscription carries the schedule the product projects
-- (subscription_schedules, expected_cycles; TestCheckFixtures recomputes
-- them). Payments of cycles before the failed one are left out: the check
-- reads only the failed cycle.
SET VARIABLE window_start = TIMESTAMPTZ '2026-11-17 00:00:00+00'; -- business date 2026-11-20, lookback 3 days
SET VARIABLE window_end   = TIMESTAMPTZ '2026-11-21 00:00:00+00'; -- the projection's cut-off

INSERT INTO subscriptions (merchant_id, subscription_id, status, start_date, billing_period_unit, billing_period_length, billing_amount, currency) VALUES
    ('m1', 'sub-exhausted', 'SUSPENDED',  TIMESTAMPTZ '2026-10-08 06:00:00+00', 'M', 1, 25.00, 'USD'),
    ('m1', 'sub-short',     'DELINQUENT', TIMESTAMPTZ '2026-11-02 00:00:00+00', 'W', 1,  5.00, 'USD'),
    ('m1', 'sub-rescued',   'ACTIVE',     TIMESTAMPTZ '2026-11-19 00:00:00+00', 'D', 1,  1.00, 'USD'),
    ('m1', 'sub-earlier',   'SUSPENDED',  TIMESTAMPTZ '2026-11-02 12:00:00+00', 'W', 1,  5.00, 'USD'),
    ('m2', 'sub-short',     'SUSPENDED',  TIMESTAMPTZ '2026-11-02 00:00:00+00', 'D', 7,  5.00, 'USD');

INSERT INTO subscription_schedules (merchant_id, subscription_id, period_unit, period_length, cycles_total, start_date, cut_off, cycles_due, last_due_date, next_due_date, projection_cut, retry_limit, retry_interval, retry_tolerance, within_12_months, currency) VALUES
    ('m1', 'sub-exhausted', 'M', 1, NULL, TIMESTAMPTZ '2026-10-08 06:00:00+00', TIMESTAMPTZ '2026-11-21 00:00:00+00', 2, TIMESTAMPTZ '2026-11-08 06:00:00+00', TIMESTAMPTZ '2026-12-08 06:00:00+00', false, 5, INTERVAL '48 hours', INTERVAL '4 hours 48 minutes', true, 'USD'),
    ('m1', 'sub-short',     'W', 1, NULL, TIMESTAMPTZ '2026-11-02 00:00:00+00', TIMESTAMPTZ '2026-11-21 00:00:00+00', 3, TIMESTAMPTZ '2026-11-16 00:00:00+00', TIMESTAMPTZ '2026-11-23 00:00:00+00', false, 3, INTERVAL '24 hours', INTERVAL '2 hours 24 minutes', true, 'USD'),
    ('m1', 'sub-rescued',   'D', 1, NULL, TIMESTAMPTZ '2026-11-19 00:00:00+00', TIMESTAMPTZ '2026-11-21 00:00:00+00', 2, TIMESTAMPTZ '2026-11-20 00:00:00+00', TIMESTAMPTZ '2026-11-21 00:00:00+00', false, 1, INTERVAL '1 hour',   INTERVAL '6 minutes',          true, 'USD'),
    ('m1', 'sub-earlier',   'W', 1, NULL, TIMESTAMPTZ '2026-11-02 12:00:00+00', TIMESTAMPTZ '2026-11-21 00:00:00+00', 3, TIMESTAMPTZ '2026-11-16 12:00:00+00', TIMESTAMPTZ '2026-11-23 12:00:00+00', false, 3, INTERVAL '24 hours', INTERVAL '2 hours 24 minutes', true, 'USD'),
    -- Every 7 days, but a D unit: one retry.
    ('m2', 'sub-short',     'D', 7, NULL, TIMESTAMPTZ '2026-11-02 00:00:00+00', TIMESTAMPTZ '2026-11-21 00:00:00+00', 3, TIMESTAMPTZ '2026-11-16 00:00:00+00', TIMESTAMPTZ '2026-11-23 00:00:00+00', false, 1, INTERVAL '1 hour',   INTERVAL '6 minutes',          true, 'USD');

INSERT INTO expected_cycles (merchant_id, subscription_id, cycle, due_date, billing_amount, currency) VALUES
    ('m1', 'sub-exhausted', 1, TIMESTAMPTZ '2026-10-08 06:00:00+00', 25.00, 'USD'),
    ('m1', 'sub-exhausted', 2, TIMESTAMPTZ '2026-11-08 06:00:00+00', 25.00, 'USD'),
    ('m1', 'sub-short',     1, TIMESTAMPTZ '2026-11-02 00:00:00+00',  5.00, 'USD'),
    ('m1', 'sub-short',     2, TIMESTAMPTZ '2026-11-09 00:00:00+00',  5.00, 'USD'),
    ('m1', 'sub-short',     3, TIMESTAMPTZ '2026-11-16 00:00:00+00',  5.00, 'USD'),
    ('m1', 'sub-rescued',   1, TIMESTAMPTZ '2026-11-19 00:00:00+00',  1.00, 'USD'),
    ('m1', 'sub-rescued',   2, TIMESTAMPTZ '2026-11-20 00:00:00+00',  1.00, 'USD'),
    ('m1', 'sub-earlier',   1, TIMESTAMPTZ '2026-11-02 12:00:00+00',  5.00, 'USD'),
    ('m1', 'sub-earlier',   2, TIMESTAMPTZ '2026-11-09 12:00:00+00',  5.00, 'USD'),
    ('m1', 'sub-earlier',   3, TIMESTAMPTZ '2026-11-16 12:00:00+00',  5.00, 'USD'),
    ('m2', 'sub-short',     1, TIMESTAMPTZ '2026-11-02 00:00:00+00',  5.00, 'USD'),
    ('m2', 'sub-short',     2, TIMESTAMPTZ '2026-11-09 00:00:00+00',  5.00, 'USD'),
    ('m2', 'sub-short',     3, TIMESTAMPTZ '2026-11-16 00:00:00+00',  5.00, 'USD');

INSERT INTO subscription_payments (merchant_id, payment_id, subscription_id, status, payment_type, billing_cycle, payment_number, payment_date, billing_amount, surcharge_amount, currency) VALUES
    -- Reported sub-exhausted:2: failed, then all five monthly retries
    -- failed, the last in the window. Amount 25.00 + 0.75 surcharge.
    ('m1', 'ex-0', 'sub-exhausted', 'FAILED', 'STANDARD', 2, 2, TIMESTAMPTZ '2026-11-08 06:00:00+00', 25.00, 0.75, 'USD'),
    ('m1', 'ex-1', 'sub-exhausted', 'FAILED', 'RETRY',    2, 3, TIMESTAMPTZ '2026-11-10 06:00:00+00', 25.00, 0.75, 'USD'),
    ('m1', 'ex-2', 'sub-exhausted', 'FAILED', 'RETRY',    2, 4, TIMESTAMPTZ '2026-11-12 06:00:00+00', 25.00, 0.75, 'USD'),
    ('m1', 'ex-3', 'sub-exhausted', 'FAILED', 'RETRY',    2, 5, TIMESTAMPTZ '2026-11-14 06:00:00+00', 25.00, 0.75, 'USD'),
    ('m1', 'ex-4', 'sub-exhausted', 'FAILED', 'RETRY',    2, 6, TIMESTAMPTZ '2026-11-16 06:00:00+00', 25.00, 0.75, 'USD'),
    ('m1', 'ex-5', 'sub-exhausted', 'FAILED', 'RETRY',    2, 7, TIMESTAMPTZ '2026-11-18 06:00:00+00', 25.00, 0.75, 'USD'),
    -- Not reported, sub-short:3: two weekly retries of three so far.
    ('m1', 'sh-0', 'sub-short', 'FAILED', 'STANDARD', 3, 3, TIMESTAMPTZ '2026-11-16 00:00:00+00', 5.00, NULL, 'USD'),
    ('m1', 'sh-1', 'sub-short', 'FAILED', 'RETRY',    3, 4, TIMESTAMPTZ '2026-11-17 00:00:00+00', 5.00, NULL, 'USD'),
    ('m1', 'sh-2', 'sub-short', 'FAILED', 'RETRY',    3, 5, TIMESTAMPTZ '2026-11-18 00:00:00+00', 5.00, NULL, 'USD'),
    -- Not reported, sub-rescued:2: its one daily retry was the last
    -- allowed, and it PAID.
    ('m1', 're-0', 'sub-rescued', 'FAILED', 'STANDARD', 2, 2, TIMESTAMPTZ '2026-11-20 00:00:00+00', 1.00, NULL, 'USD'),
    ('m1', 're-1', 'sub-rescued', 'PAID',   'RETRY',    2, 3, TIMESTAMPTZ '2026-11-20 01:00:00+00', 1.00, NULL, 'USD'),
    -- Not reported, sub-earlier:1: exhausted, but the last retry is before
    -- the window (an earlier run reported it; subscription_suspended
    -- reports the state).
    ('m1', 'ea-0', 'sub-earlier', 'FAILED', 'STANDARD', 1, 1, TIMESTAMPTZ '2026-11-02 12:00:00+00', 5.00, NULL, 'USD'),
    ('m1', 'ea-1', 'sub-earlier', 'FAILED', 'RETRY',    1, 2, TIMESTAMPTZ '2026-11-03 12:00:00+00', 5.00, NULL, 'USD'),
    ('m1', 'ea-2', 'sub-earlier', 'FAILED', 'RETRY',    1, 3, TIMESTAMPTZ '2026-11-04 12:00:00+00', 5.00, NULL, 'USD'),
    ('m1', 'ea-3', 'sub-earlier', 'FAILED', 'RETRY',    1, 4, TIMESTAMPTZ '2026-11-05 12:00:00+00', 5.00, NULL, 'USD'),
    -- Not reported, the other member's sub-short:3 (m1's ids): its one
    -- retry exhausted it, but before the window. If the check forgot
    -- merchant_id, that retry counted with m1's two (three: weekly's
    -- limit), or its schedule's limit of 1 applied to m1's cycle, would
    -- report m1's sub-short:3.
    ('m2', 'x-0', 'sub-short', 'FAILED', 'STANDARD', 3, 3, TIMESTAMPTZ '2026-11-16 00:00:00+00', 5.00, NULL, 'USD'),
    ('m2', 'x-1', 'sub-short', 'FAILED', 'RETRY',    3, 4, TIMESTAMPTZ '2026-11-16 01:00:00+00', 5.00, NULL, 'USD');
