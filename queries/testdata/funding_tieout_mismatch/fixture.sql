-- funding_tieout_mismatch: a funding day in the window whose funded total
-- differs from purchases - refunds - fees - chargebacks.
SET VARIABLE window_start = TIMESTAMPTZ '2026-11-17 00:00:00+00'; -- business date 2026-11-20, lookback 3 days
SET VARIABLE window_end   = TIMESTAMPTZ '2026-11-21 00:00:00+00';

INSERT INTO run_members (run_id, merchant_id, status) VALUES ('2026-11-20', 'm1', 'ok'), ('2026-11-20', 'm2', 'ok');

INSERT INTO fundings (scope_type, scope_id, group_name, merchant_id, funding_day, currency, purchases, refunds, fees, chargebacks, funded) VALUES
    -- Reported: 1.00 short (100 - 10 - 3 - 5 = 82, funded 81).
    ('group', 'g1', 'Region 1', 'm1', TIMESTAMPTZ '2026-11-18 00:00:00+00', 'USD', 100.00, 10.00, 3.00, 5.00, 81.00),
    -- Not reported: the same day in EUR ties out.
    ('group', 'g1', 'Region 1', 'm1', TIMESTAMPTZ '2026-11-18 00:00:00+00', 'EUR', 50.00, 0.00, 1.50, 0.00, 48.50),
    -- Reported: funded more than expected, no chargebacks listed (NULL is none).
    ('member', 'm2', NULL, 'm2', TIMESTAMPTZ '2026-11-20 00:00:00+00', 'JPY', 1000, 0, 30, NULL, 980),
    -- Not reported: a mismatch the day before the window.
    ('group', 'g1', 'Region 1', 'm1', TIMESTAMPTZ '2026-11-16 00:00:00+00', 'USD', 100.00, 0.00, 3.00, 0.00, 90.00),
    -- Not reported: a negative day (refunds over purchases) that ties out.
    ('group', 'g1', 'Region 1', 'm1', TIMESTAMPTZ '2026-11-19 00:00:00+00', 'USD', 5.00, 20.00, 0.20, 0.00, -15.20),
    -- Not reported: no funded total at all.
    ('group', 'g1', 'Region 1', 'm1', TIMESTAMPTZ '2026-11-20 00:00:00+00', 'USD', 5.00, 0.00, 0.20, 0.00, NULL),
    -- Not reported: filed under a member not in the run.
    ('group', 'g2', 'Region 2', 'm9', TIMESTAMPTZ '2026-11-18 00:00:00+00', 'USD', 100.00, 0.00, 0.00, 0.00, 1.00);
