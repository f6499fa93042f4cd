-- missed_cycle: a cycle the schedule says fell due before the cut-off with
-- no payment of any status for it. Expected are all due cycles of a
-- subscription that is billing (ACTIVE, DELINQUENT, COMPLETED, PENDING),
-- and of a SUSPENDED or CANCELLED one the cycles up to the last it
-- processed (PAID, FAILED or SKIPPED). Whole history, not the window.
-- Entity: <subscription_id>:<cycle>; amount: the billing amount, plus the
-- setup fee on cycle 1.
--
-- The schedule is the product's projection (subscription_schedules,
-- expected_cycles), written here as ingest writes it and recomputed by
-- TestCheckFixtures with the subscriptions package: cycle n falls n-1
-- periods after the start, keeping the start's day of the month, or the
-- month's last day where the month is shorter (31st -> 30 Sep, 28 Feb,
-- 29 Feb in a leap year); a start on 29 February bills on 28 February in
-- common years; a cycle is due strictly before the cut-off.
SET VARIABLE window_start = TIMESTAMPTZ '2026-11-17 00:00:00+00'; -- business date 2026-11-20, lookback 3 days
SET VARIABLE window_end   = TIMESTAMPTZ '2026-11-21 00:00:00+00'; -- the projection's cut-off

INSERT INTO subscriptions (merchant_id, subscription_id, status, start_date, billing_period_unit, billing_period_length, cycles_total, billing_amount, setup_fee, currency, payments_pulled_at) VALUES
    ('m1', 'sub-monthend',  'ACTIVE',    TIMESTAMPTZ '2026-07-31 09:00:00+00', 'M', 1, NULL,  20.00, NULL,  'USD', TIMESTAMPTZ '2026-11-21 01:00:00+00'),
    ('m1', 'sub-leap',      'ACTIVE',    TIMESTAMPTZ '2024-02-29 12:00:00+00', 'Y', 1, NULL, 100.00, 10.00, 'USD', TIMESTAMPTZ '2026-11-21 01:00:00+00'),
    ('m1', 'sub-fixed',     'COMPLETED', TIMESTAMPTZ '2025-12-31 08:00:00+00', 'M', 1, 3,     15.00, 5.00,  'USD', TIMESTAMPTZ '2026-11-21 01:00:00+00'),
    ('m1', 'sub-jan31',     'COMPLETED', TIMESTAMPTZ '2024-01-31 08:00:00+00', 'M', 1, 2,     15.00, NULL,  'USD', TIMESTAMPTZ '2026-11-21 01:00:00+00'),
    ('m1', 'sub-suspended', 'SUSPENDED', TIMESTAMPTZ '2026-09-10 00:00:00+00', 'M', 1, NULL,  30.00, 5.00,  'USD', TIMESTAMPTZ '2026-11-21 01:00:00+00'),
    ('m1', 'sub-cancelled', 'CANCELLED', TIMESTAMPTZ '2026-10-20 00:00:00+00', 'M', 1, NULL,  30.00, NULL,  'USD', TIMESTAMPTZ '2026-11-21 01:00:00+00'),
    -- This run did not pull its payments (payments_pulled_at NULL).
    ('m1', 'sub-notpulled', 'ACTIVE',    TIMESTAMPTZ '2026-10-05 00:00:00+00', 'M', 1, NULL,  30.00, NULL,  'USD', NULL),
    ('m2', 'sub-monthend',  'ACTIVE',    TIMESTAMPTZ '2026-10-31 00:00:00+00', 'W', 1, NULL,   8.00, NULL,  'EUR', TIMESTAMPTZ '2026-11-21 01:00:00+00');

INSERT INTO subscription_schedules (merchant_id, subscription_id, period_unit, period_length, cycles_total, start_date, cut_off, cycles_due, last_due_date, next_due_date, projection_cut, retry_limit, retry_interval, retry_tolerance, within_12_months, currency) VALUES
    ('m1', 'sub-monthend',  'M', 1, NULL, TIMESTAMPTZ '2026-07-31 09:00:00+00', TIMESTAMPTZ '2026-11-21 00:00:00+00', 4, TIMESTAMPTZ '2026-10-31 09:00:00+00', TIMESTAMPTZ '2026-11-30 09:00:00+00', false, 5, INTERVAL '48 hours',  INTERVAL '4 hours 48 minutes', true, 'USD'),
    ('m1', 'sub-leap',      'Y', 1, NULL, TIMESTAMPTZ '2024-02-29 12:00:00+00', TIMESTAMPTZ '2026-11-21 00:00:00+00', 3, TIMESTAMPTZ '2026-02-28 12:00:00+00', TIMESTAMPTZ '2027-02-28 12:00:00+00', false, 3, INTERVAL '360 hours', INTERVAL '36 hours',          true, 'USD'),
    -- A fixed number of cycles, all due: no next one.
    ('m1', 'sub-fixed',     'M', 1, 3,    TIMESTAMPTZ '2025-12-31 08:00:00+00', TIMESTAMPTZ '2026-11-21 00:00:00+00', 3, TIMESTAMPTZ '2026-02-28 08:00:00+00', NULL,                                  false, 5, INTERVAL '48 hours',  INTERVAL '4 hours 48 minutes', true, 'USD'),
    ('m1', 'sub-jan31',     'M', 1, 2,    TIMESTAMPTZ '2024-01-31 08:00:00+00', TIMESTAMPTZ '2026-11-21 00:00:00+00', 2, TIMESTAMPTZ '2024-02-29 08:00:00+00', NULL,                                  false, 5, INTERVAL '48 hours',  INTERVAL '4 hours 48 minutes', true, 'USD'),
    ('m1', 'sub-suspended', 'M', 1, NULL, TIMESTAMPTZ '2026-09-10 00:00:00+00', TIMESTAMPTZ '2026-11-21 00:00:00+00', 3, TIMESTAMPTZ '2026-11-10 00:00:00+00', TIMESTAMPTZ '2026-12-10 00:00:00+00', false, 5, INTERVAL '48 hours',  INTERVAL '4 hours 48 minutes', true, 'USD'),
    ('m1', 'sub-cancelled', 'M', 1, NULL, TIMESTAMPTZ '2026-10-20 00:00:00+00', TIMESTAMPTZ '2026-11-21 00:00:00+00', 2, TIMESTAMPTZ '2026-11-20 00:00:00+00', TIMESTAMPTZ '2026-12-20 00:00:00+00', false, 5, INTERVAL '48 hours',  INTERVAL '4 hours 48 minutes', true, 'USD'),
    ('m1', 'sub-notpulled', 'M', 1, NULL, TIMESTAMPTZ '2026-10-05 00:00:00+00', TIMESTAMPTZ '2026-11-21 00:00:00+00', 2, TIMESTAMPTZ '2026-11-05 00:00:00+00', TIMESTAMPTZ '2026-12-05 00:00:00+00', false, 5, INTERVAL '48 hours',  INTERVAL '4 hours 48 minutes', true, 'USD'),
    -- Its fourth week falls on the cut-off itself: not due yet.
    ('m2', 'sub-monthend',  'W', 1, NULL, TIMESTAMPTZ '2026-10-31 00:00:00+00', TIMESTAMPTZ '2026-11-21 00:00:00+00', 3, TIMESTAMPTZ '2026-11-14 00:00:00+00', TIMESTAMPTZ '2026-11-21 00:00:00+00', false, 3, INTERVAL '24 hours',  INTERVAL '2 hours 24 minutes', true, 'EUR');

INSERT INTO expected_cycles (merchant_id, subscription_id, cycle, due_date, billing_amount, setup_fee, currency) VALUES
    ('m1', 'sub-monthend',  1, TIMESTAMPTZ '2026-07-31 09:00:00+00',  20.00, NULL,  'USD'),
    ('m1', 'sub-monthend',  2, TIMESTAMPTZ '2026-08-31 09:00:00+00',  20.00, NULL,  'USD'),
    ('m1', 'sub-monthend',  3, TIMESTAMPTZ '2026-09-30 09:00:00+00',  20.00, NULL,  'USD'), -- 31st -> 30th
    ('m1', 'sub-monthend',  4, TIMESTAMPTZ '2026-10-31 09:00:00+00',  20.00, NULL,  'USD'), -- back to the 31st
    ('m1', 'sub-leap',      1, TIMESTAMPTZ '2024-02-29 12:00:00+00', 100.00, 10.00, 'USD'),
    ('m1', 'sub-leap',      2, TIMESTAMPTZ '2025-02-28 12:00:00+00', 100.00, NULL,  'USD'), -- common year: 28 Feb
    ('m1', 'sub-leap',      3, TIMESTAMPTZ '2026-02-28 12:00:00+00', 100.00, NULL,  'USD'),
    ('m1', 'sub-fixed',     1, TIMESTAMPTZ '2025-12-31 08:00:00+00',  15.00, 5.00,  'USD'),
    ('m1', 'sub-fixed',     2, TIMESTAMPTZ '2026-01-31 08:00:00+00',  15.00, NULL,  'USD'),
    ('m1', 'sub-fixed',     3, TIMESTAMPTZ '2026-02-28 08:00:00+00',  15.00, NULL,  'USD'), -- 31st -> 28 Feb
    ('m1', 'sub-jan31',     1, TIMESTAMPTZ '2024-01-31 08:00:00+00',  15.00, NULL,  'USD'),
    ('m1', 'sub-jan31',     2, TIMESTAMPTZ '2024-02-29 08:00:00+00',  15.00, NULL,  'USD'), -- leap year: 29 Feb
    ('m1', 'sub-suspended', 1, TIMESTAMPTZ '2026-09-10 00:00:00+00',  30.00, 5.00,  'USD'),
    ('m1', 'sub-suspended', 2, TIMESTAMPTZ '2026-10-10 00:00:00+00',  30.00, NULL,  'USD'),
    ('m1', 'sub-suspended', 3, TIMESTAMPTZ '2026-11-10 00:00:00+00',  30.00, NULL,  'USD'),
    ('m1', 'sub-cancelled', 1, TIMESTAMPTZ '2026-10-20 00:00:00+00',  30.00, NULL,  'USD'),
    ('m1', 'sub-cancelled', 2, TIMESTAMPTZ '2026-11-20 00:00:00+00',  30.00, NULL,  'USD'),
    ('m1', 'sub-notpulled', 1, TIMESTAMPTZ '2026-10-05 00:00:00+00',  30.00, NULL,  'USD'),
    ('m1', 'sub-notpulled', 2, TIMESTAMPTZ '2026-11-05 00:00:00+00',  30.00, NULL,  'USD'),
    ('m2', 'sub-monthend',  1, TIMESTAMPTZ '2026-10-31 00:00:00+00',   8.00, NULL,  'EUR'),
    ('m2', 'sub-monthend',  2, TIMESTAMPTZ '2026-11-07 00:00:00+00',   8.00, NULL,  'EUR'),
    ('m2', 'sub-monthend',  3, TIMESTAMPTZ '2026-11-14 00:00:00+00',   8.00, NULL,  'EUR');

INSERT INTO subscription_payments (merchant_id, payment_id, subscription_id, status, payment_type, billing_cycle, payment_date, billing_amount, setup_fee, currency) VALUES
    -- Reported sub-monthend:3 (due 30 September): cycles 1, 2 and 4 have
    -- a payment (a FAILED one counts), 3 has none.
    ('m1', 'me-1', 'sub-monthend', 'PAID',   'STANDARD', 1, TIMESTAMPTZ '2026-07-31 09:00:00+00', 20.00, NULL, 'USD'),
    ('m1', 'me-2', 'sub-monthend', 'PAID',   'STANDARD', 2, TIMESTAMPTZ '2026-08-31 09:00:00+00', 20.00, NULL, 'USD'),
    ('m1', 'me-4', 'sub-monthend', 'FAILED', 'STANDARD', 4, TIMESTAMPTZ '2026-10-31 09:00:00+00', 20.00, NULL, 'USD'),
    -- Reported sub-leap:2 (due 28 February 2025), long before the window.
    ('m1', 'le-1', 'sub-leap', 'PAID', 'STANDARD', 1, TIMESTAMPTZ '2024-02-29 12:00:00+00', 100.00, 10.00, 'USD'),
    ('m1', 'le-3', 'sub-leap', 'PAID', 'STANDARD', 3, TIMESTAMPTZ '2026-02-28 12:00:00+00', 100.00, NULL,  'USD'),
    -- Reported sub-fixed:3 (due 28 February): COMPLETED subscriptions are
    -- expected to have billed every cycle; none expected after the third.
    ('m1', 'fx-1', 'sub-fixed', 'PAID', 'STANDARD', 1, TIMESTAMPTZ '2025-12-31 08:00:00+00', 15.00, 5.00, 'USD'),
    ('m1', 'fx-2', 'sub-fixed', 'PAID', 'STANDARD', 2, TIMESTAMPTZ '2026-01-31 08:00:00+00', 15.00, NULL, 'USD'),
    -- Not reported, sub-jan31: both its cycles (31 January, 29 February
    -- 2024) paid.
    ('m1', 'ja-1', 'sub-jan31', 'PAID', 'STANDARD', 1, TIMESTAMPTZ '2024-01-31 08:00:00+00', 15.00, NULL, 'USD'),
    ('m1', 'ja-2', 'sub-jan31', 'PAID', 'STANDARD', 2, TIMESTAMPTZ '2024-02-29 08:00:00+00', 15.00, NULL, 'USD'),
    -- Reported sub-suspended:1 (30.00 + 5.00 setup fee), before its last
    -- processed cycle 2; not its cycle 3, after it: the platform stopped
    -- billing it.
    ('m1', 'su-2', 'sub-suspended', 'FAILED', 'STANDARD', 2, TIMESTAMPTZ '2026-10-10 00:00:00+00', 30.00, NULL, 'USD'),
    -- (sub-cancelled processed no cycle, so none is expected; sub-notpulled
    -- has no payment list this run, so nothing is judged.)
    --
    -- The other member's sub-monthend (m1's id), every due week paid. Its
    -- cycle 3 would hide m1's missing cycle 3 if the check forgot
    -- merchant_id.
    ('m2', 'x-1', 'sub-monthend', 'PAID', 'STANDARD', 1, TIMESTAMPTZ '2026-10-31 00:00:00+00', 8.00, NULL, 'EUR'),
    ('m2', 'x-2', 'sub-monthend', 'PAID', 'STANDARD', 2, TIMESTAMPTZ '2026-11-07 00:00:00+00', 8.00, NULL, 'EUR'),
    ('m2', 'x-3', 'sub-monthend', 'PAID', 'STANDARD', 3, TIMESTAMPTZ '2026-11-14 00:00:00+00', 8.00, NULL, 'EUR');
