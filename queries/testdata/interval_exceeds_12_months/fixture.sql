-- interval_exceeds_12_months: a subscription not CANCELLED or COMPLETED
-- whose billing period is longer than 12 M, 1 Y, 52 W or 365 D (a legacy
-- plan), or whose latest processed payment (PAID or FAILED) came more
-- than 12 months after the one before it, 12 months as the schedule counts
-- them (the day of the month, clamped to the month's end; from a month end
-- the schedule clamped, the start's day). A state: not windowed.
--
-- Each subscription carries the schedule the product projects
-- (subscription_schedules.within_12_months is the period's verdict;
-- TestCheckFixtures recomputes it with the subscriptions package).
SET VARIABLE window_start = TIMESTAMPTZ '2026-11-17 00:00:00+00'; -- business date 2026-11-20, lookback 3 days
SET VARIABLE window_end   = TIMESTAMPTZ '2026-11-21 00:00:00+00'; -- the projection's cut-off

INSERT INTO subscriptions (merchant_id, subscription_id, plan_id, status, start_date, billing_period_unit, billing_period_length, billing_amount, currency) VALUES
    ('m1', 'sub-legacy',    'plan-legacy',   'ACTIVE',    TIMESTAMPTZ '2025-06-01 00:00:00+00', 'M', 13,  50.00, 'USD'),
    ('m1', 'sub-gap',       'plan-half',     'ACTIVE',    TIMESTAMPTZ '2025-05-10 00:00:00+00', 'M', 6,   80.00, 'USD'),
    ('m1', 'sub-yearly',    'plan-year',     'ACTIVE',    TIMESTAMPTZ '2025-11-18 10:00:00+00', 'Y', 1,  120.00, 'USD'),
    ('m1', 'sub-365d',      'plan-365d',     'ACTIVE',    TIMESTAMPTZ '2025-11-19 00:00:00+00', 'D', 365, 99.00, 'USD'),
    ('m1', 'sub-old-gone',  'plan-biennial', 'CANCELLED', TIMESTAMPTZ '2024-01-15 00:00:00+00', 'M', 24, 200.00, 'USD'),
    ('m2', 'sub-yearly',    'plan-biennial', 'CANCELLED', TIMESTAMPTZ '2024-01-10 00:00:00+00', 'Y', 2,   60.00, 'EUR');

INSERT INTO subscription_schedules (merchant_id, subscription_id, period_unit, period_length, cycles_total, start_date, cut_off, cycles_due, last_due_date, next_due_date, projection_cut, retry_limit, retry_interval, retry_tolerance, within_12_months, currency) VALUES
    ('m1', 'sub-legacy',   'M', 13,  NULL, TIMESTAMPTZ '2025-06-01 00:00:00+00', TIMESTAMPTZ '2026-11-21 00:00:00+00', 2, TIMESTAMPTZ '2026-07-01 00:00:00+00', TIMESTAMPTZ '2027-08-01 00:00:00+00', false, 5, INTERVAL '48 hours',  INTERVAL '4 hours 48 minutes', false, 'USD'),
    ('m1', 'sub-gap',      'M', 6,   NULL, TIMESTAMPTZ '2025-05-10 00:00:00+00', TIMESTAMPTZ '2026-11-21 00:00:00+00', 4, TIMESTAMPTZ '2026-11-10 00:00:00+00', TIMESTAMPTZ '2027-05-10 00:00:00+00', false, 5, INTERVAL '48 hours',  INTERVAL '4 hours 48 minutes', true,  'USD'),
    ('m1', 'sub-yearly',   'Y', 1,   NULL, TIMESTAMPTZ '2025-11-18 10:00:00+00', TIMESTAMPTZ '2026-11-21 00:00:00+00', 2, TIMESTAMPTZ '2026-11-18 10:00:00+00', TIMESTAMPTZ '2027-11-18 10:00:00+00', false, 3, INTERVAL '360 hours', INTERVAL '36 hours',          true,  'USD'),
    ('m1', 'sub-365d',     'D', 365, NULL, TIMESTAMPTZ '2025-11-19 00:00:00+00', TIMESTAMPTZ '2026-11-21 00:00:00+00', 2, TIMESTAMPTZ '2026-11-19 00:00:00+00', TIMESTAMPTZ '2027-11-19 00:00:00+00', false, 1, INTERVAL '1 hour',    INTERVAL '6 minutes',          true,  'USD'),
    ('m1', 'sub-old-gone', 'M', 24,  NULL, TIMESTAMPTZ '2024-01-15 00:00:00+00', TIMESTAMPTZ '2026-11-21 00:00:00+00', 2, TIMESTAMPTZ '2026-01-15 00:00:00+00', TIMESTAMPTZ '2028-01-15 00:00:00+00', false, 5, INTERVAL '48 hours',  INTERVAL '4 hours 48 minutes', false, 'USD'),
    ('m2', 'sub-yearly',   'Y', 2,   NULL, TIMESTAMPTZ '2024-01-10 00:00:00+00', TIMESTAMPTZ '2026-11-21 00:00:00+00', 2, TIMESTAMPTZ '2026-01-10 00:00:00+00', TIMESTAMPTZ '2028-01-10 00:00:00+00', false, 3, INTERVAL '360 hours', INTERVAL '36 hours',          false, 'EUR');

INSERT INTO expected_cycles (merchant_id, subscription_id, cycle, due_date, billing_amount, currency) VALUES
    ('m1', 'sub-legacy',   1, TIMESTAMPTZ '2025-06-01 00:00:00+00',  50.00, 'USD'),
    ('m1', 'sub-legacy',   2, TIMESTAMPTZ '2026-07-01 00:00:00+00',  50.00, 'USD'),
    ('m1', 'sub-gap',      1, TIMESTAMPTZ '2025-05-10 00:00:00+00',  80.00, 'USD'),
    ('m1', 'sub-gap',      2, TIMESTAMPTZ '2025-11-10 00:00:00+00',  80.00, 'USD'),
    ('m1', 'sub-gap',      3, TIMESTAMPTZ '2026-05-10 00:00:00+00',  80.00, 'USD'),
    ('m1', 'sub-gap',      4, TIMESTAMPTZ '2026-11-10 00:00:00+00',  80.00, 'USD'),
    ('m1', 'sub-yearly',   1, TIMESTAMPTZ '2025-11-18 10:00:00+00', 120.00, 'USD'),
    ('m1', 'sub-yearly',   2, TIMESTAMPTZ '2026-11-18 10:00:00+00', 120.00, 'USD'),
    ('m1', 'sub-365d',     1, TIMESTAMPTZ '2025-11-19 00:00:00+00',  99.00, 'USD'),
    ('m1', 'sub-365d',     2, TIMESTAMPTZ '2026-11-19 00:00:00+00',  99.00, 'USD'),
    ('m1', 'sub-old-gone', 1, TIMESTAMPTZ '2024-01-15 00:00:00+00', 200.00, 'USD'),
    ('m1', 'sub-old-gone', 2, TIMESTAMPTZ '2026-01-15 00:00:00+00', 200.00, 'USD'),
    ('m2', 'sub-yearly',   1, TIMESTAMPTZ '2024-01-10 00:00:00+00',  60.00, 'EUR'),
    ('m2', 'sub-yearly',   2, TIMESTAMPTZ '2026-01-10 00:00:00+00',  60.00, 'EUR');

INSERT INTO subscription_payments (merchant_id, payment_id, subscription_id, status, payment_type, billing_cycle, payment_date, billing_amount, currency) VALUES
    -- Reported sub-legacy: a 13-month period (its payments 13 months apart
    -- too).
    ('m1', 'lg-1', 'sub-legacy', 'PAID',    'STANDARD', 1, TIMESTAMPTZ '2025-06-01 00:00:00+00',  50.00, 'USD'),
    ('m1', 'lg-2', 'sub-legacy', 'PAID',    'STANDARD', 2, TIMESTAMPTZ '2026-07-01 00:00:00+00',  50.00, 'USD'),
    -- Reported sub-gap: a 6-month period, but two cycles skipped: 18
    -- months between its latest two processed payments (SKIPPED ones are
    -- not transactions).
    ('m1', 'gp-1', 'sub-gap', 'PAID',       'STANDARD', 1, TIMESTAMPTZ '2025-05-10 00:00:00+00',  80.00, 'USD'),
    ('m1', 'gp-2', 'sub-gap', 'SKIPPED',    'STANDARD', 2, TIMESTAMPTZ '2025-11-10 00:00:00+00',  80.00, 'USD'),
    ('m1', 'gp-3', 'sub-gap', 'SKIPPED',    'STANDARD', 3, TIMESTAMPTZ '2026-05-10 00:00:00+00',  80.00, 'USD'),
    ('m1', 'gp-4', 'sub-gap', 'PAID',       'STANDARD', 4, TIMESTAMPTZ '2026-11-10 00:00:00+00',  80.00, 'USD'),
    -- Not reported sub-yearly: exactly 12 months between its payments.
    ('m1', 'yr-1', 'sub-yearly', 'PAID',    'STANDARD', 1, TIMESTAMPTZ '2025-11-18 10:00:00+00', 120.00, 'USD'),
    ('m1', 'yr-2', 'sub-yearly', 'PAID',    'STANDARD', 2, TIMESTAMPTZ '2026-11-18 10:00:00+00', 120.00, 'USD'),
    -- Not reported sub-365d: 365 days is the longest daily period allowed,
    -- and 19 Nov 2025 + 12 months is 19 Nov 2026.
    ('m1', 'dd-1', 'sub-365d', 'PAID',      'STANDARD', 1, TIMESTAMPTZ '2025-11-19 00:00:00+00',  99.00, 'USD'),
    ('m1', 'dd-2', 'sub-365d', 'FAILED',    'STANDARD', 2, TIMESTAMPTZ '2026-11-19 00:00:00+00',  99.00, 'USD'),
    -- (Not reported sub-old-gone: a 24-month legacy period, but CANCELLED.)
    --
    -- The other member's sub-yearly (m1's id): a 2-year legacy plan,
    -- CANCELLED, 24 months between its payments. Joined to m1's
    -- sub-yearly, if the check forgot merchant_id, its period or that gap
    -- would report m1's.
    ('m2', 'x-1', 'sub-yearly', 'PAID',     'STANDARD', 1, TIMESTAMPTZ '2024-01-10 00:00:00+00',  60.00, 'EUR'),
    ('m2', 'x-2', 'sub-yearly', 'PAID',     'STANDARD', 2, TIMESTAMPTZ '2026-01-10 00:00:00+00',  60.00, 'EUR');

-- Month ends and leap days. 12 months after a payment is its day of the
-- month 12 months on, clamped to the month's end, as the schedule counts
-- (docs/billing.md); a payment on a month end the schedule clamped stands
-- for the start's day. Each subscription's cycles in between were skipped,
-- so that the two payments below are its latest two processed ones.
INSERT INTO subscriptions (merchant_id, subscription_id, plan_id, status, start_date, billing_period_unit, billing_period_length, cycles_total, billing_amount, currency) VALUES
    ('m1', 'sub-leapyear',  'plan-year',  'ACTIVE',    TIMESTAMPTZ '2020-02-29 00:00:00+00', 'Y', 1, NULL, 70.00, 'USD'),
    ('m1', 'sub-leap-leap', 'plan-year',  'ACTIVE',    TIMESTAMPTZ '2020-02-29 00:00:00+00', 'Y', 1, NULL, 71.00, 'USD'),
    ('m1', 'sub-leap-late', 'plan-year',  'ACTIVE',    TIMESTAMPTZ '2020-02-29 00:00:00+00', 'Y', 1, NULL, 72.00, 'USD'),
    ('m1', 'sub-feb28',     'plan-year',  'ACTIVE',    TIMESTAMPTZ '2021-02-28 00:00:00+00', 'Y', 1, NULL, 73.00, 'USD'),
    ('m1', 'sub-jan31',     'plan-month', 'SUSPENDED', TIMESTAMPTZ '2023-01-31 00:00:00+00', 'M', 1, 14,    9.00, 'USD'),
    -- The other member's sub-feb28 (m1's id), started on a 31st: if the
    -- check took the start's day without merchant_id, m1's 28 February 2023
    -- would stand for the 31st and its late payment would pass.
    ('m2', 'sub-feb28',     'plan-year',  'CANCELLED', TIMESTAMPTZ '2021-03-31 00:00:00+00', 'Y', 1, NULL, 73.00, 'EUR');
INSERT INTO subscription_schedules (merchant_id, subscription_id, period_unit, period_length, cycles_total, start_date, cut_off, cycles_due, last_due_date, next_due_date, projection_cut, retry_limit, retry_interval, retry_tolerance, within_12_months, currency) VALUES
    ('m1', 'sub-leapyear',  'Y', 1, NULL, TIMESTAMPTZ '2020-02-29 00:00:00+00', TIMESTAMPTZ '2026-11-21 00:00:00+00',  7, TIMESTAMPTZ '2026-02-28 00:00:00+00', TIMESTAMPTZ '2027-02-28 00:00:00+00', false, 3, INTERVAL '360 hours', INTERVAL '36 hours', true, 'USD'),
    ('m1', 'sub-leap-leap', 'Y', 1, NULL, TIMESTAMPTZ '2020-02-29 00:00:00+00', TIMESTAMPTZ '2026-11-21 00:00:00+00',  7, TIMESTAMPTZ '2026-02-28 00:00:00+00', TIMESTAMPTZ '2027-02-28 00:00:00+00', false, 3, INTERVAL '360 hours', INTERVAL '36 hours', true, 'USD'),
    ('m1', 'sub-leap-late', 'Y', 1, NULL, TIMESTAMPTZ '2020-02-29 00:00:00+00', TIMESTAMPTZ '2026-11-21 00:00:00+00',  7, TIMESTAMPTZ '2026-02-28 00:00:00+00', TIMESTAMPTZ '2027-02-28 00:00:00+00', false, 3, INTERVAL '360 hours', INTERVAL '36 hours', true, 'USD'),
    ('m1', 'sub-feb28',     'Y', 1, NULL, TIMESTAMPTZ '2021-02-28 00:00:00+00', TIMESTAMPTZ '2026-11-21 00:00:00+00',  6, TIMESTAMPTZ '2026-02-28 00:00:00+00', TIMESTAMPTZ '2027-02-28 00:00:00+00', false, 3, INTERVAL '360 hours', INTERVAL '36 hours', true, 'USD'),
    ('m1', 'sub-jan31',     'M', 1, 14,   TIMESTAMPTZ '2023-01-31 00:00:00+00', TIMESTAMPTZ '2026-11-21 00:00:00+00', 14, TIMESTAMPTZ '2024-02-29 00:00:00+00', NULL,                                  false, 5, INTERVAL '48 hours',  INTERVAL '4 hours 48 minutes', true, 'USD'),
    ('m2', 'sub-feb28',     'Y', 1, NULL, TIMESTAMPTZ '2021-03-31 00:00:00+00', TIMESTAMPTZ '2026-11-21 00:00:00+00',  6, TIMESTAMPTZ '2026-03-31 00:00:00+00', TIMESTAMPTZ '2027-03-31 00:00:00+00', false, 3, INTERVAL '360 hours', INTERVAL '36 hours', true, 'EUR');
INSERT INTO expected_cycles (merchant_id, subscription_id, cycle, due_date, billing_amount, currency) VALUES
    ('m1', 'sub-leapyear',  1, TIMESTAMPTZ '2020-02-29 00:00:00+00', 70.00, 'USD'),
    ('m1', 'sub-leapyear',  2, TIMESTAMPTZ '2021-02-28 00:00:00+00', 70.00, 'USD'),
    ('m1', 'sub-leapyear',  3, TIMESTAMPTZ '2022-02-28 00:00:00+00', 70.00, 'USD'),
    ('m1', 'sub-leapyear',  4, TIMESTAMPTZ '2023-02-28 00:00:00+00', 70.00, 'USD'),
    ('m1', 'sub-leapyear',  5, TIMESTAMPTZ '2024-02-29 00:00:00+00', 70.00, 'USD'),
    ('m1', 'sub-leapyear',  6, TIMESTAMPTZ '2025-02-28 00:00:00+00', 70.00, 'USD'),
    ('m1', 'sub-leapyear',  7, TIMESTAMPTZ '2026-02-28 00:00:00+00', 70.00, 'USD'),
    ('m1', 'sub-leap-leap',  1, TIMESTAMPTZ '2020-02-29 00:00:00+00', 71.00, 'USD'),
    ('m1', 'sub-leap-leap',  2, TIMESTAMPTZ '2021-02-28 00:00:00+00', 71.00, 'USD'),
    ('m1', 'sub-leap-leap',  3, TIMESTAMPTZ '2022-02-28 00:00:00+00', 71.00, 'USD'),
    ('m1', 'sub-leap-leap',  4, TIMESTAMPTZ '2023-02-28 00:00:00+00', 71.00, 'USD'),
    ('m1', 'sub-leap-leap',  5, TIMESTAMPTZ '2024-02-29 00:00:00+00', 71.00, 'USD'),
    ('m1', 'sub-leap-leap',  6, TIMESTAMPTZ '2025-02-28 00:00:00+00', 71.00, 'USD'),
    ('m1', 'sub-leap-leap',  7, TIMESTAMPTZ '2026-02-28 00:00:00+00', 71.00, 'USD'),
    ('m1', 'sub-leap-late',  1, TIMESTAMPTZ '2020-02-29 00:00:00+00', 72.00, 'USD'),
    ('m1', 'sub-leap-late',  2, TIMESTAMPTZ '2021-02-28 00:00:00+00', 72.00, 'USD'),
    ('m1', 'sub-leap-late',  3, TIMESTAMPTZ '2022-02-28 00:00:00+00', 72.00, 'USD'),
    ('m1', 'sub-leap-late',  4, TIMESTAMPTZ '2023-02-28 00:00:00+00', 72.00, 'USD'),
    ('m1', 'sub-leap-late',  5, TIMESTAMPTZ '2024-02-29 00:00:00+00', 72.00, 'USD'),
    ('m1', 'sub-leap-late',  6, TIMESTAMPTZ '2025-02-28 00:00:00+00', 72.00, 'USD'),
    ('m1', 'sub-leap-late',  7, TIMESTAMPTZ '2026-02-28 00:00:00+00', 72.00, 'USD'),
    ('m1', 'sub-feb28',  1, TIMESTAMPTZ '2021-02-28 00:00:00+00', 73.00, 'USD'),
    ('m1', 'sub-feb28',  2, TIMESTAMPTZ '2022-02-28 00:00:00+00', 73.00, 'USD'),
    ('m1', 'sub-feb28',  3, TIMESTAMPTZ '2023-02-28 00:00:00+00', 73.00, 'USD'),
    ('m1', 'sub-feb28',  4, TIMESTAMPTZ '2024-02-28 00:00:00+00', 73.00, 'USD'),
    ('m1', 'sub-feb28',  5, TIMESTAMPTZ '2025-02-28 00:00:00+00', 73.00, 'USD'),
    ('m1', 'sub-feb28',  6, TIMESTAMPTZ '2026-02-28 00:00:00+00', 73.00, 'USD'),
    ('m1', 'sub-jan31',  1, TIMESTAMPTZ '2023-01-31 00:00:00+00',  9.00, 'USD'),
    ('m1', 'sub-jan31',  2, TIMESTAMPTZ '2023-02-28 00:00:00+00',  9.00, 'USD'),
    ('m1', 'sub-jan31',  3, TIMESTAMPTZ '2023-03-31 00:00:00+00',  9.00, 'USD'),
    ('m1', 'sub-jan31',  4, TIMESTAMPTZ '2023-04-30 00:00:00+00',  9.00, 'USD'),
    ('m1', 'sub-jan31',  5, TIMESTAMPTZ '2023-05-31 00:00:00+00',  9.00, 'USD'),
    ('m1', 'sub-jan31',  6, TIMESTAMPTZ '2023-06-30 00:00:00+00',  9.00, 'USD'),
    ('m1', 'sub-jan31',  7, TIMESTAMPTZ '2023-07-31 00:00:00+00',  9.00, 'USD'),
    ('m1', 'sub-jan31',  8, TIMESTAMPTZ '2023-08-31 00:00:00+00',  9.00, 'USD'),
    ('m1', 'sub-jan31',  9, TIMESTAMPTZ '2023-09-30 00:00:00+00',  9.00, 'USD'),
    ('m1', 'sub-jan31', 10, TIMESTAMPTZ '2023-10-31 00:00:00+00',  9.00, 'USD'),
    ('m1', 'sub-jan31', 11, TIMESTAMPTZ '2023-11-30 00:00:00+00',  9.00, 'USD'),
    ('m1', 'sub-jan31', 12, TIMESTAMPTZ '2023-12-31 00:00:00+00',  9.00, 'USD'),
    ('m1', 'sub-jan31', 13, TIMESTAMPTZ '2024-01-31 00:00:00+00',  9.00, 'USD'),
    ('m1', 'sub-jan31', 14, TIMESTAMPTZ '2024-02-29 00:00:00+00',  9.00, 'USD'),
    ('m2', 'sub-feb28',  1, TIMESTAMPTZ '2021-03-31 00:00:00+00', 73.00, 'EUR'),
    ('m2', 'sub-feb28',  2, TIMESTAMPTZ '2022-03-31 00:00:00+00', 73.00, 'EUR'),
    ('m2', 'sub-feb28',  3, TIMESTAMPTZ '2023-03-31 00:00:00+00', 73.00, 'EUR'),
    ('m2', 'sub-feb28',  4, TIMESTAMPTZ '2024-03-31 00:00:00+00', 73.00, 'EUR'),
    ('m2', 'sub-feb28',  5, TIMESTAMPTZ '2025-03-31 00:00:00+00', 73.00, 'EUR'),
    ('m2', 'sub-feb28',  6, TIMESTAMPTZ '2026-03-31 00:00:00+00', 73.00, 'EUR');
INSERT INTO subscription_payments (merchant_id, payment_id, subscription_id, status, payment_type, billing_cycle, payment_date, billing_amount, currency) VALUES
    -- Not reported sub-leapyear: started on 29 February 2020, billed on 28
    -- February 2023 and 29 February 2024: 12 months apart by the start's
    -- day (28 February 2023 + INTERVAL 12 MONTH would be 28 February 2024,
    -- a day short, and report every such subscription in leap years).
    ('m1', 'ly-4', 'sub-leapyear',  'PAID',    'STANDARD', 4, TIMESTAMPTZ '2023-02-28 00:00:00+00', 70.00, 'USD'),
    ('m1', 'ly-5', 'sub-leapyear',  'PAID',    'STANDARD', 5, TIMESTAMPTZ '2024-02-29 00:00:00+00', 70.00, 'USD'),
    ('m1', 'ly-6', 'sub-leapyear',  'SKIPPED', 'STANDARD', 6, TIMESTAMPTZ '2025-02-28 00:00:00+00', 70.00, 'USD'),
    ('m1', 'ly-7', 'sub-leapyear',  'SKIPPED', 'STANDARD', 7, TIMESTAMPTZ '2026-02-28 00:00:00+00', 70.00, 'USD'),
    -- Not reported sub-leap-leap: the same start, billed on 29 February
    -- 2024 (a leap year) and 28 February 2025: February 2025 has no 29th.
    ('m1', 'll-5', 'sub-leap-leap', 'PAID',    'STANDARD', 5, TIMESTAMPTZ '2024-02-29 00:00:00+00', 71.00, 'USD'),
    ('m1', 'll-6', 'sub-leap-leap', 'PAID',    'STANDARD', 6, TIMESTAMPTZ '2025-02-28 00:00:00+00', 71.00, 'USD'),
    ('m1', 'll-7', 'sub-leap-leap', 'SKIPPED', 'STANDARD', 7, TIMESTAMPTZ '2026-02-28 00:00:00+00', 71.00, 'USD'),
    -- Reported sub-leap-late: the same start, billed on 28 February 2023,
    -- then a day after its anniversary, on 1 March 2024.
    ('m1', 'lt-4', 'sub-leap-late', 'PAID',    'STANDARD', 4, TIMESTAMPTZ '2023-02-28 00:00:00+00', 72.00, 'USD'),
    ('m1', 'lt-5', 'sub-leap-late', 'PAID',    'STANDARD', 5, TIMESTAMPTZ '2024-03-01 00:00:00+00', 72.00, 'USD'),
    -- Reported sub-feb28: started on 28 February, billed on 28 February
    -- 2023, then a day late, on 29 February 2024: the start's day is the
    -- 28th, so 28 February 2023 is no clamped month end, and 12 months
    -- after it is 28 February 2024.
    ('m1', 'fb-3', 'sub-feb28',     'PAID',    'STANDARD', 3, TIMESTAMPTZ '2023-02-28 00:00:00+00', 73.00, 'USD'),
    ('m1', 'fb-4', 'sub-feb28',     'PAID',    'STANDARD', 4, TIMESTAMPTZ '2024-02-29 00:00:00+00', 73.00, 'USD'),
    -- Not reported sub-jan31: monthly from 31 January 2023, 14 cycles;
    -- cycle 2 paid on 28 February 2023, cycles 3 to 13 skipped, cycle 14
    -- failed on 29 February 2024 (then suspended by the merchant): 12
    -- months after 28 February 2023 by the start's day, the 31st, clamped
    -- to February 2024's end.
    ('m1', 'jn-1', 'sub-jan31',     'PAID',    'STANDARD',  1, TIMESTAMPTZ '2023-01-31 00:00:00+00', 9.00, 'USD'),
    ('m1', 'jn-2', 'sub-jan31',     'PAID',    'STANDARD',  2, TIMESTAMPTZ '2023-02-28 00:00:00+00', 9.00, 'USD'),
    ('m1', 'jn-14', 'sub-jan31',    'FAILED',  'STANDARD', 14, TIMESTAMPTZ '2024-02-29 00:00:00+00', 9.00, 'USD');
