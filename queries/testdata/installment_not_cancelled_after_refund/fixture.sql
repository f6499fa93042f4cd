-- installment_not_cancelled_after_refund: a selected installment plan
-- whose authorization was reversed, or one of whose captures was refunded,
-- after the selection, with no cancel of the plan (installment_cancel
-- without a refundAmount, answered 2xx) after the selection, before the
-- cut-off. Not windowed: reported every run until cancelled. The plan's
-- events come from the view installment_events: the authorization is the
-- one whose network transaction id (else approval code) the selection
-- sent.
SET VARIABLE window_start = TIMESTAMPTZ '2026-11-17 00:00:00+00'; -- business date 2026-11-20, lookback 3 days
SET VARIABLE window_end   = TIMESTAMPTZ '2026-11-21 00:00:00+00'; -- the cut-off

INSERT INTO journal (merchant_id, file, line, time, path, status, call_kind, transaction_id, parent_id, amount, currency, response_status, network_transaction_id, approval_code, installment_id, plan_id, ref_network_transaction_id, ref_authorization_code, refund_amount) VALUES
    -- Reported inst-a: authorized, selected, captured, then the capture
    -- was refunded; the partial refund through the plan afterwards (a
    -- cancel with a refundAmount) does not cancel it.
    ('m1', 'journal-m1.ndjson',  1, TIMESTAMPTZ '2026-11-10 10:00:00+00', '/pts/v2/payments',                   201, 'authorization',          'auth-a', NULL,     600.00, 'USD', 'AUTHORIZED', 'ntid-a', 'A11111', NULL,     NULL,      NULL,     NULL,     NULL),
    ('m1', 'journal-m1.ndjson',  2, TIMESTAMPTZ '2026-11-10 10:05:00+00', '/fin/v1/plan-acceptance',            201, 'installment_acceptance', 'acc-a',  NULL,     NULL,   NULL,  'ACCEPTED',   NULL,     NULL,     'inst-a', 'plan-6m', 'ntid-a', NULL,     NULL),
    ('m1', 'journal-m1.ndjson',  3, TIMESTAMPTZ '2026-11-11 10:00:00+00', '/pts/v2/payments/auth-a/captures',   201, 'capture',                'cap-a',  'auth-a', 600.00, 'USD', 'PENDING',    NULL,     NULL,     NULL,     NULL,      NULL,     NULL,     NULL),
    ('m1', 'journal-m1.ndjson',  4, TIMESTAMPTZ '2026-11-18 10:00:00+00', '/pts/v2/captures/cap-a/refunds',     201, 'refund',                 'ref-a',  'cap-a',  600.00, 'USD', 'PENDING',    NULL,     NULL,     NULL,     NULL,      NULL,     NULL,     NULL),
    ('m1', 'journal-m1.ndjson',  5, TIMESTAMPTZ '2026-11-19 10:00:00+00', '/fin/v1/plan-acceptance/cancel',     201, 'installment_cancel',     'can-a',  NULL,     NULL,   NULL,  'ACCEPTED',   NULL,     NULL,     'inst-a', 'plan-6m', 'ntid-a', NULL,     50.00),
    -- Not reported inst-b: reversed, then the plan cancelled.
    ('m1', 'journal-m1.ndjson',  6, TIMESTAMPTZ '2026-11-12 10:00:00+00', '/pts/v2/payments',                   201, 'authorization',          'auth-b', NULL,     300.00, 'USD', 'AUTHORIZED', 'ntid-b', 'B22222', NULL,     NULL,      NULL,     NULL,     NULL),
    ('m1', 'journal-m1.ndjson',  7, TIMESTAMPTZ '2026-11-12 10:05:00+00', '/fin/v1/plan-acceptance',            201, 'installment_acceptance', 'acc-b',  NULL,     NULL,   NULL,  'ACCEPTED',   NULL,     NULL,     'inst-b', 'plan-3m', 'ntid-b', NULL,     NULL),
    ('m1', 'journal-m1.ndjson',  8, TIMESTAMPTZ '2026-11-12 12:00:00+00', '/pts/v2/payments/auth-b/reversals',  201, 'reversal',               'rev-b',  'auth-b', 300.00, 'USD', 'REVERSED',   NULL,     NULL,     NULL,     NULL,      NULL,     NULL,     NULL),
    ('m1', 'journal-m1.ndjson',  9, TIMESTAMPTZ '2026-11-12 12:05:00+00', '/fin/v1/plan-acceptance/cancel',     201, 'installment_cancel',     'can-b',  NULL,     NULL,   NULL,  'ACCEPTED',   NULL,     NULL,     'inst-b', 'plan-3m', 'ntid-b', NULL,     NULL),
    -- Reported inst-c: selected by approval code (no network transaction
    -- id), reversed before the window and never cancelled: still reported.
    ('m1', 'journal-m1.ndjson', 10, TIMESTAMPTZ '2026-11-05 10:00:00+00', '/pts/v2/payments',                   201, 'authorization',          'auth-c', NULL,     450.00, 'USD', 'AUTHORIZED', NULL,     'C33333', NULL,     NULL,      NULL,     NULL,     NULL),
    ('m1', 'journal-m1.ndjson', 11, TIMESTAMPTZ '2026-11-05 10:05:00+00', '/fin/v1/plan-acceptance',            201, 'installment_acceptance', 'acc-c',  NULL,     NULL,   NULL,  'ACCEPTED',   NULL,     NULL,     'inst-c', 'plan-3m', NULL,     'C33333', NULL),
    ('m1', 'journal-m1.ndjson', 12, TIMESTAMPTZ '2026-11-06 10:00:00+00', '/pts/v2/payments/auth-c/reversals',  201, 'reversal',               'rev-c',  'auth-c', 450.00, 'USD', 'REVERSED',   NULL,     NULL,     NULL,     NULL,      NULL,     NULL,     NULL),
    -- The other member cancelled an inst-a: that does not cancel m1's.
    ('m2', 'journal-m2.ndjson',  1, TIMESTAMPTZ '2026-11-19 11:00:00+00', '/fin/v1/plan-acceptance/cancel',     201, 'installment_cancel',     'can-9',  NULL,     NULL,   NULL,  'ACCEPTED',   NULL,     NULL,     'inst-a', 'plan-6m', 'ntid-9', NULL,     NULL);
