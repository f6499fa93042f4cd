-- skipped_cycle: a payment the merchant skipped ahead of time
-- (SCHEDULED_SKIPPED): its billing amount is deferred. Not windowed: a
-- skip is reported until its date passes and the platform marks it
-- SKIPPED.
SET VARIABLE window_start = TIMESTAMPTZ '2026-11-17 00:00:00+00'; -- business date 2026-11-20, lookback 3 days
SET VARIABLE window_end   = TIMESTAMPTZ '2026-11-21 00:00:00+00';

INSERT INTO subscription_payments (merchant_id, payment_id, subscription_id, status, payment_type, billing_cycle, payment_date, billing_amount, currency) VALUES
    -- Reported: cycles 5 and 6 of sub-1 skipped ahead, dated after the window.
    ('m1', 'pay-5', 'sub-1', 'SCHEDULED_SKIPPED', 'STANDARD', 5, TIMESTAMPTZ '2026-12-10 08:00:00+00', 12.00, 'USD'),
    ('m1', 'pay-6', 'sub-1', 'SCHEDULED_SKIPPED', 'STANDARD', 6, TIMESTAMPTZ '2027-01-10 08:00:00+00', 12.00, 'USD'),
    -- Not reported: a skip whose date passed (SKIPPED), and the next
    -- cycle that will bill (SCHEDULED).
    ('m1', 'pay-3', 'sub-1', 'SKIPPED',           'STANDARD', 3, TIMESTAMPTZ '2026-10-10 08:00:00+00', 12.00, 'USD'),
    ('m1', 'pay-4', 'sub-1', 'SCHEDULED',         'STANDARD', 4, TIMESTAMPTZ '2026-11-10 08:00:00+00', 12.00, 'USD'),
    -- The other member: its payment with m1's id pay-5 is SKIPPED, so
    -- not reported; its own skip is reported under it.
    ('m2', 'pay-5', 'sub-9', 'SKIPPED',           'STANDARD', 2, TIMESTAMPTZ '2026-10-01 00:00:00+00', 40.00, 'EUR'),
    ('m2', 'pay-7', 'sub-9', 'SCHEDULED_SKIPPED', 'STANDARD', 4, TIMESTAMPTZ '2026-12-01 00:00:00+00', 40.00, 'EUR');
