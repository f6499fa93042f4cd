-- chargeback_share_exceeded: a member whose chargebacks recorded in the
-- window (credits, sign +, not counted) are at least the share
-- (chargeback_share, 0.009 when unset; 0.25 here) of its captures in the
-- window (rCode 1 with ics_bill or ics_ap_capture). Retrievals are not
-- chargebacks.
SET VARIABLE window_start = TIMESTAMPTZ '2026-11-17 00:00:00+00';
SET VARIABLE window_end   = TIMESTAMPTZ '2026-11-21 00:00:00+00';
SET VARIABLE chargeback_share = 0.25;

-- m1: four captures in the window (a sale, a capture, a BNPL capture);
-- not counted: a declined sale, an authorization, a capture before the
-- window.
INSERT INTO transactions (merchant_id, transaction_id, submit_time, r_code, application_names, amount, currency) VALUES
    ('m1', 't1', TIMESTAMPTZ '2026-11-17 00:00:00+00', '1', 'ics_auth,ics_bill', 10.00, 'USD'),
    ('m1', 't2', TIMESTAMPTZ '2026-11-18 00:00:00+00', '1', 'ics_bill',          10.00, 'USD'),
    ('m1', 't3', TIMESTAMPTZ '2026-11-19 00:00:00+00', '1', 'ics_ap_capture',    10.00, 'USD'),
    ('m1', 't4', TIMESTAMPTZ '2026-11-20 00:00:00+00', '1', 'ics_bill',          10.00, 'USD'),
    ('m1', 't5', TIMESTAMPTZ '2026-11-20 01:00:00+00', '0', 'ics_auth,ics_bill', 10.00, 'USD'),
    ('m1', 't6', TIMESTAMPTZ '2026-11-20 02:00:00+00', '1', 'ics_auth',          10.00, 'USD'),
    ('m1', 't7', TIMESTAMPTZ '2026-11-16 23:59:59+00', '1', 'ics_bill',          10.00, 'USD'),
-- m2: four captures too.
    ('m2', 'u1', TIMESTAMPTZ '2026-11-18 00:00:00+00', '1', 'ics_bill', 10.00, 'USD'),
    ('m2', 'u2', TIMESTAMPTZ '2026-11-18 00:00:00+00', '1', 'ics_bill', 10.00, 'USD'),
    ('m2', 'u3', TIMESTAMPTZ '2026-11-18 00:00:00+00', '1', 'ics_bill', 10.00, 'USD'),
    ('m2', 'u4', TIMESTAMPTZ '2026-11-18 00:00:00+00', '1', 'ics_bill', 10.00, 'USD');

INSERT INTO chargebacks (merchant_id, request_id, time, reason_code, amount, currency, sign) VALUES
    -- Reported m1: one chargeback of four captures, exactly the share;
    -- its credit (+) and the one at the window's end do not count.
    ('m1', 't1', TIMESTAMPTZ '2026-11-20 10:00:00+00', '10.4', 10.00, 'USD', '-'),
    ('m1', 't2', TIMESTAMPTZ '2026-11-20 11:00:00+00', '10.4', 10.00, 'USD', '+'),
    ('m1', 't4', TIMESTAMPTZ '2026-11-21 00:00:00+00', '10.4', 10.00, 'USD', '-'),
    -- Reported m3: a chargeback and no captures in the window; in two
    -- currencies, so no amount.
    ('m3', 'v1', TIMESTAMPTZ '2026-11-18 10:00:00+00', '13.1', 10.00, 'USD', '-'),
    ('m3', 'v2', TIMESTAMPTZ '2026-11-18 11:00:00+00', '13.2', 20.00, 'EUR', NULL);

-- Not reported m2: its only dispute in the window is a retrieval, and
-- its chargeback is before the window (the share just under).
INSERT INTO retrievals (merchant_id, request_id, time, reason_code, amount, currency) VALUES
    ('m2', 'u1', TIMESTAMPTZ '2026-11-18 10:00:00+00', 'RR', 10.00, 'USD');
INSERT INTO chargebacks (merchant_id, request_id, time, reason_code, amount, currency, sign) VALUES
    ('m2', 'u2', TIMESTAMPTZ '2026-11-16 23:59:59+00', '10.4', 10.00, 'USD', '-');
