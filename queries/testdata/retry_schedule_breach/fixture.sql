-- retry_schedule_breach: the retries of a failed cycle off the documented
-- schedule: more than the unit allows (daily 1, weekly 3, monthly 5), or
-- one more than a tenth of the interval away from an interval after the
-- attempt before it (daily 1 h ± 6 min, weekly 24 h ± 2 h 24 min, monthly
-- 48 h ± 4 h 48 min), the first retry measured from the cycle's failed
-- STANDARD payment. Reported while one of the cycle's retries is dated in
-- the window. Entity: <subscription_id>:<cycle>.
--
-- Each subscription carries the schedule the product projects
-- (subscription_schedules, expected_cycles; TestCheckFixtures recomputes
-- them). Payments of cycles before the retried one are left out: the
-- check reads only the retried cycle.
SET VARIABLE window_start = TIMESTAMPTZ '2026-11-17 00:00:00+00'; -- business date 2026-11-20, lookback 3 days
SET VARIABLE window_end   = TIMESTAMPTZ '2026-11-21 00:00:00+00'; -- the projection's cut-off

INSERT INTO subscriptions (merchant_id, subscription_id, status, start_date, billing_period_unit, billing_period_length, billing_amount, currency) VALUES
    ('m1', 'sub-ontime',  'ACTIVE',     TIMESTAMPTZ '2026-10-08 06:00:00+00', 'M', 1, 25.00, 'USD'),
    ('m1', 'sub-early',   'DELINQUENT', TIMESTAMPTZ '2026-10-16 06:00:00+00', 'M', 1, 15.00, 'USD'),
    ('m1', 'sub-toomany', 'SUSPENDED',  TIMESTAMPTZ '2026-11-02 00:00:00+00', 'W', 1,  5.00, 'USD'),
    ('m1', 'sub-before',  'ACTIVE',     TIMESTAMPTZ '2026-10-01 00:00:00+00', 'M', 1, 25.00, 'USD'),
    ('m1', 'sub-daily',   'SUSPENDED',  TIMESTAMPTZ '2026-11-19 00:00:00+00', 'D', 1,  1.00, 'USD'),
    ('m2', 'sub-ontime',  'DELINQUENT', TIMESTAMPTZ '2026-10-17 00:00:00+00', 'M', 1,  9.00, 'USD');

INSERT INTO subscription_schedules (merchant_id, subscription_id, period_unit, period_length, cycles_total, start_date, cut_off, cycles_due, last_due_date, next_due_date, projection_cut, retry_limit, retry_interval, retry_tolerance, within_12_months, currency) VALUES
    ('m1', 'sub-ontime',  'M', 1, NULL, TIMESTAMPTZ '2026-10-08 06:00:00+00', TIMESTAMPTZ '2026-11-21 00:00:00+00', 2, TIMESTAMPTZ '2026-11-08 06:00:00+00', TIMESTAMPTZ '2026-12-08 06:00:00+00', false, 5, INTERVAL '48 hours', INTERVAL '4 hours 48 minutes', true, 'USD'),
    ('m1', 'sub-early',   'M', 1, NULL, TIMESTAMPTZ '2026-10-16 06:00:00+00', TIMESTAMPTZ '2026-11-21 00:00:00+00', 2, TIMESTAMPTZ '2026-11-16 06:00:00+00', TIMESTAMPTZ '2026-12-16 06:00:00+00', false, 5, INTERVAL '48 hours', INTERVAL '4 hours 48 minutes', true, 'USD'),
    ('m1', 'sub-toomany', 'W', 1, NULL, TIMESTAMPTZ '2026-11-02 00:00:00+00', TIMESTAMPTZ '2026-11-21 00:00:00+00', 3, TIMESTAMPTZ '2026-11-16 00:00:00+00', TIMESTAMPTZ '2026-11-23 00:00:00+00', false, 3, INTERVAL '24 hours', INTERVAL '2 hours 24 minutes', true, 'USD'),
    ('m1', 'sub-before',  'M', 1, NULL, TIMESTAMPTZ '2026-10-01 00:00:00+00', TIMESTAMPTZ '2026-11-21 00:00:00+00', 2, TIMESTAMPTZ '2026-11-01 00:00:00+00', TIMESTAMPTZ '2026-12-01 00:00:00+00', false, 5, INTERVAL '48 hours', INTERVAL '4 hours 48 minutes', true, 'USD'),
    -- Its third day falls on the cut-off itself: not due yet.
    ('m1', 'sub-daily',   'D', 1, NULL, TIMESTAMPTZ '2026-11-19 00:00:00+00', TIMESTAMPTZ '2026-11-21 00:00:00+00', 2, TIMESTAMPTZ '2026-11-20 00:00:00+00', TIMESTAMPTZ '2026-11-21 00:00:00+00', false, 1, INTERVAL '1 hour',   INTERVAL '6 minutes',          true, 'USD'),
    ('m2', 'sub-ontime',  'M', 1, NULL, TIMESTAMPTZ '2026-10-17 00:00:00+00', TIMESTAMPTZ '2026-11-21 00:00:00+00', 2, TIMESTAMPTZ '2026-11-17 00:00:00+00', TIMESTAMPTZ '2026-12-17 00:00:00+00', false, 5, INTERVAL '48 hours', INTERVAL '4 hours 48 minutes', true, 'USD');

INSERT INTO expected_cycles (merchant_id, subscription_id, cycle, due_date, billing_amount, currency) VALUES
    ('m1', 'sub-ontime',  1, TIMESTAMPTZ '2026-10-08 06:00:00+00', 25.00, 'USD'),
    ('m1', 'sub-ontime',  2, TIMESTAMPTZ '2026-11-08 06:00:00+00', 25.00, 'USD'),
    ('m1', 'sub-early',   1, TIMESTAMPTZ '2026-10-16 06:00:00+00', 15.00, 'USD'),
    ('m1', 'sub-early',   2, TIMESTAMPTZ '2026-11-16 06:00:00+00', 15.00, 'USD'),
    ('m1', 'sub-toomany', 1, TIMESTAMPTZ '2026-11-02 00:00:00+00',  5.00, 'USD'),
    ('m1', 'sub-toomany', 2, TIMESTAMPTZ '2026-11-09 00:00:00+00',  5.00, 'USD'),
    ('m1', 'sub-toomany', 3, TIMESTAMPTZ '2026-11-16 00:00:00+00',  5.00, 'USD'),
    ('m1', 'sub-before',  1, TIMESTAMPTZ '2026-10-01 00:00:00+00', 25.00, 'USD'),
    ('m1', 'sub-before',  2, TIMESTAMPTZ '2026-11-01 00:00:00+00', 25.00, 'USD'),
    ('m1', 'sub-daily',   1, TIMESTAMPTZ '2026-11-19 00:00:00+00',  1.00, 'USD'),
    ('m1', 'sub-daily',   2, TIMESTAMPTZ '2026-11-20 00:00:00+00',  1.00, 'USD'),
    ('m2', 'sub-ontime',  1, TIMESTAMPTZ '2026-10-17 00:00:00+00',  9.00, 'USD'),
    ('m2', 'sub-ontime',  2, TIMESTAMPTZ '2026-11-17 00:00:00+00',  9.00, 'USD');

INSERT INTO subscription_payments (merchant_id, payment_id, subscription_id, status, payment_type, billing_cycle, payment_number, payment_date, billing_amount, surcharge_amount, currency) VALUES
    -- Not reported, sub-ontime:2: five retries (monthly allows 5), each 48
    -- hours after the attempt before; the last 4 h 48 min late, exactly
    -- the tolerance, and paid.
    ('m1', 'on-0', 'sub-ontime', 'FAILED', 'STANDARD', 2, 2, TIMESTAMPTZ '2026-11-08 06:00:00+00', 25.00, NULL, 'USD'),
    ('m1', 'on-1', 'sub-ontime', 'FAILED', 'RETRY',    2, 3, TIMESTAMPTZ '2026-11-10 06:00:00+00', 25.00, NULL, 'USD'),
    ('m1', 'on-2', 'sub-ontime', 'FAILED', 'RETRY',    2, 4, TIMESTAMPTZ '2026-11-12 06:00:00+00', 25.00, NULL, 'USD'),
    ('m1', 'on-3', 'sub-ontime', 'FAILED', 'RETRY',    2, 5, TIMESTAMPTZ '2026-11-14 06:00:00+00', 25.00, NULL, 'USD'),
    ('m1', 'on-4', 'sub-ontime', 'FAILED', 'RETRY',    2, 6, TIMESTAMPTZ '2026-11-16 06:00:00+00', 25.00, NULL, 'USD'),
    ('m1', 'on-5', 'sub-ontime', 'PAID',   'RETRY',    2, 7, TIMESTAMPTZ '2026-11-18 10:48:00+00', 25.00, NULL, 'USD'),
    -- Reported sub-early:2: retried after 24 hours instead of 48. Amount:
    -- the failed payment with its surcharge.
    ('m1', 'ea-0', 'sub-early', 'FAILED', 'STANDARD', 2, 2, TIMESTAMPTZ '2026-11-16 06:00:00+00', 15.00, 0.45, 'USD'),
    ('m1', 'ea-1', 'sub-early', 'FAILED', 'RETRY',    2, 3, TIMESTAMPTZ '2026-11-17 06:00:00+00', 15.00, 0.45, 'USD'),
    -- Reported sub-toomany:3: four retries, each on time; weekly allows 3.
    ('m1', 'tm-0', 'sub-toomany', 'FAILED', 'STANDARD', 3, 3, TIMESTAMPTZ '2026-11-16 00:00:00+00', 5.00, NULL, 'USD'),
    ('m1', 'tm-1', 'sub-toomany', 'FAILED', 'RETRY',    3, 4, TIMESTAMPTZ '2026-11-17 00:00:00+00', 5.00, NULL, 'USD'),
    ('m1', 'tm-2', 'sub-toomany', 'FAILED', 'RETRY',    3, 5, TIMESTAMPTZ '2026-11-18 00:00:00+00', 5.00, NULL, 'USD'),
    ('m1', 'tm-3', 'sub-toomany', 'FAILED', 'RETRY',    3, 6, TIMESTAMPTZ '2026-11-19 00:00:00+00', 5.00, NULL, 'USD'),
    ('m1', 'tm-4', 'sub-toomany', 'FAILED', 'RETRY',    3, 7, TIMESTAMPTZ '2026-11-20 00:00:00+00', 5.00, NULL, 'USD'),
    -- Not reported, sub-before:2: a retry a day early, but every retry is
    -- dated before the window (an earlier run reported it).
    ('m1', 'be-0', 'sub-before', 'FAILED', 'STANDARD', 2, 2, TIMESTAMPTZ '2026-11-01 00:00:00+00', 25.00, NULL, 'USD'),
    ('m1', 'be-1', 'sub-before', 'FAILED', 'RETRY',    2, 3, TIMESTAMPTZ '2026-11-02 00:00:00+00', 25.00, NULL, 'USD'),
    ('m1', 'be-2', 'sub-before', 'PAID',   'RETRY',    2, 4, TIMESTAMPTZ '2026-11-04 00:00:00+00', 25.00, NULL, 'USD'),
    -- Reported sub-daily:2: the one daily retry came 1 h 7 min after the
    -- failure, a minute past the 6-minute tolerance.
    ('m1', 'da-0', 'sub-daily', 'FAILED', 'STANDARD', 2, 2, TIMESTAMPTZ '2026-11-20 00:00:00+00', 1.00, NULL, 'USD'),
    ('m1', 'da-1', 'sub-daily', 'FAILED', 'RETRY',    2, 3, TIMESTAMPTZ '2026-11-20 01:07:00+00', 1.00, NULL, 'USD'),
    -- Not reported, the other member's sub-ontime:2 (m1's ids): retried 48
    -- hours after its failure, on time. Its retry would put m1's
    -- sub-ontime:2 off schedule (13 h after m1's last retry) if the check
    -- forgot merchant_id.
    ('m2', 'x-0', 'sub-ontime', 'FAILED', 'STANDARD', 2, 2, TIMESTAMPTZ '2026-11-17 00:00:00+00', 9.00, NULL, 'USD'),
    ('m2', 'x-1', 'sub-ontime', 'FAILED', 'RETRY',    2, 3, TIMESTAMPTZ '2026-11-19 00:00:00+00', 9.00, NULL, 'USD');
