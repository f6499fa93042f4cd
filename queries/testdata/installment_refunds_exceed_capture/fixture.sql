-- installment_refunds_exceed_capture: a selected installment plan whose
-- refunds (of its authorization's captures, plus partial refunds through
-- the plan: installment_cancel with a refundAmount) add up to more than
-- its captures, all answered 2xx before the cut-off; reported when the
-- latest refund is in the window. Amount: the excess. The plan's events
-- come from the view installment_events, each call once (by response id)
-- however often the journals hold it.
SET VARIABLE window_start = TIMESTAMPTZ '2026-11-17 00:00:00+00'; -- business date 2026-11-20, lookback 3 days
SET VARIABLE window_end   = TIMESTAMPTZ '2026-11-21 00:00:00+00'; -- the cut-off

INSERT INTO journal (merchant_id, file, line, time, path, status, call_kind, transaction_id, parent_id, amount, currency, response_status, network_transaction_id, installment_id, plan_id, ref_network_transaction_id, refund_amount) VALUES
    -- Reported inst-a: captured 100.00, refunded 60.00 on the capture and
    -- 50.00 through the plan: 10.00 too much.
    ('m1', 'journal-m1.ndjson',  1, TIMESTAMPTZ '2026-11-10 10:00:00+00', '/pts/v2/payments',                 201, 'authorization',          'auth-a', NULL,     100.00, 'USD', 'AUTHORIZED', 'ntid-a', NULL,     NULL,      NULL,     NULL),
    ('m1', 'journal-m1.ndjson',  2, TIMESTAMPTZ '2026-11-10 10:05:00+00', '/fin/v1/plan-acceptance',          201, 'installment_acceptance', 'acc-a',  NULL,     NULL,   NULL,  'ACCEPTED',   NULL,     'inst-a', 'plan-6m', 'ntid-a', NULL),
    ('m1', 'journal-m1.ndjson',  3, TIMESTAMPTZ '2026-11-11 10:00:00+00', '/pts/v2/payments/auth-a/captures', 201, 'capture',                'cap-a',  'auth-a', 100.00, 'USD', 'PENDING',    NULL,     NULL,     NULL,      NULL,     NULL),
    ('m1', 'journal-m1.ndjson',  4, TIMESTAMPTZ '2026-11-18 10:00:00+00', '/pts/v2/captures/cap-a/refunds',   201, 'refund',                 'ref-a',  'cap-a',   60.00, 'USD', 'PENDING',    NULL,     NULL,     NULL,      NULL,     NULL),
    ('m1', 'journal-m1.ndjson',  5, TIMESTAMPTZ '2026-11-19 10:00:00+00', '/fin/v1/plan-acceptance/cancel',   201, 'installment_cancel',     'can-a',  NULL,     NULL,   NULL,  'ACCEPTED',   NULL,     'inst-a', 'plan-6m', 'ntid-a',  50.00),
    -- Not reported inst-b: 60.00 + 40.00 refunded of 100.00 captured:
    -- equal is allowed.
    ('m1', 'journal-m1.ndjson',  6, TIMESTAMPTZ '2026-11-10 11:00:00+00', '/pts/v2/payments',                 201, 'authorization',          'auth-b', NULL,     100.00, 'USD', 'AUTHORIZED', 'ntid-b', NULL,     NULL,      NULL,     NULL),
    ('m1', 'journal-m1.ndjson',  7, TIMESTAMPTZ '2026-11-10 11:05:00+00', '/fin/v1/plan-acceptance',          201, 'installment_acceptance', 'acc-b',  NULL,     NULL,   NULL,  'ACCEPTED',   NULL,     'inst-b', 'plan-3m', 'ntid-b', NULL),
    ('m1', 'journal-m1.ndjson',  8, TIMESTAMPTZ '2026-11-11 11:00:00+00', '/pts/v2/payments/auth-b/captures', 201, 'capture',                'cap-b',  'auth-b', 100.00, 'USD', 'PENDING',    NULL,     NULL,     NULL,      NULL,     NULL),
    ('m1', 'journal-m1.ndjson',  9, TIMESTAMPTZ '2026-11-18 11:00:00+00', '/pts/v2/captures/cap-b/refunds',   201, 'refund',                 'ref-b',  'cap-b',   60.00, 'USD', 'PENDING',    NULL,     NULL,     NULL,      NULL,     NULL),
    ('m1', 'journal-m1.ndjson', 10, TIMESTAMPTZ '2026-11-19 11:00:00+00', '/fin/v1/plan-acceptance/cancel',   201, 'installment_cancel',     'can-b',  NULL,     NULL,   NULL,  'ACCEPTED',   NULL,     'inst-b', 'plan-3m', 'ntid-b',  40.00),
    -- Not reported inst-c: 10.00 too much, but its latest refund came
    -- before the window (an earlier run reported it).
    ('m1', 'journal-m1.ndjson', 11, TIMESTAMPTZ '2026-11-01 10:00:00+00', '/pts/v2/payments',                 201, 'authorization',          'auth-c', NULL,     100.00, 'USD', 'AUTHORIZED', 'ntid-c', NULL,     NULL,      NULL,     NULL),
    ('m1', 'journal-m1.ndjson', 12, TIMESTAMPTZ '2026-11-01 10:05:00+00', '/fin/v1/plan-acceptance',          201, 'installment_acceptance', 'acc-c',  NULL,     NULL,   NULL,  'ACCEPTED',   NULL,     'inst-c', 'plan-3m', 'ntid-c', NULL),
    ('m1', 'journal-m1.ndjson', 13, TIMESTAMPTZ '2026-11-02 10:00:00+00', '/pts/v2/payments/auth-c/captures', 201, 'capture',                'cap-c',  'auth-c', 100.00, 'USD', 'PENDING',    NULL,     NULL,     NULL,      NULL,     NULL),
    ('m1', 'journal-m1.ndjson', 14, TIMESTAMPTZ '2026-11-10 10:00:00+00', '/pts/v2/captures/cap-c/refunds',   201, 'refund',                 'ref-c',  'cap-c',   60.00, 'USD', 'PENDING',    NULL,     NULL,     NULL,      NULL,     NULL),
    ('m1', 'journal-m1.ndjson', 15, TIMESTAMPTZ '2026-11-12 10:00:00+00', '/fin/v1/plan-acceptance/cancel',   201, 'installment_cancel',     'can-c',  NULL,     NULL,   NULL,  'ACCEPTED',   NULL,     'inst-c', 'plan-3m', 'ntid-c',  50.00),
    -- Not reported inst-d: one refund of 60.00 against 100.00 captured,
    -- journaled twice (the same call, response id ref-d, again in a
    -- replayed file): a call counts once, by its response id.
    ('m1', 'journal-m1.ndjson', 16, TIMESTAMPTZ '2026-11-10 12:00:00+00', '/pts/v2/payments',                 201, 'authorization',          'auth-d', NULL,     100.00, 'USD', 'AUTHORIZED', 'ntid-d', NULL,     NULL,      NULL,     NULL),
    ('m1', 'journal-m1.ndjson', 17, TIMESTAMPTZ '2026-11-10 12:05:00+00', '/fin/v1/plan-acceptance',          201, 'installment_acceptance', 'acc-d',  NULL,     NULL,   NULL,  'ACCEPTED',   NULL,     'inst-d', 'plan-3m', 'ntid-d', NULL),
    ('m1', 'journal-m1.ndjson', 18, TIMESTAMPTZ '2026-11-11 12:00:00+00', '/pts/v2/payments/auth-d/captures', 201, 'capture',                'cap-d',  'auth-d', 100.00, 'USD', 'PENDING',    NULL,     NULL,     NULL,      NULL,     NULL),
    ('m1', 'journal-m1.ndjson', 19, TIMESTAMPTZ '2026-11-18 12:00:00+00', '/pts/v2/captures/cap-d/refunds',   201, 'refund',                 'ref-d',  'cap-d',   60.00, 'USD', 'PENDING',    NULL,     NULL,     NULL,      NULL,     NULL),
    ('m1', 'replay-m1.ndjson',   4, TIMESTAMPTZ '2026-11-18 12:00:00+00', '/pts/v2/captures/cap-d/refunds',   201, 'refund',                 'ref-d',  'cap-d',   60.00, 'USD', 'PENDING',    NULL,     NULL,     NULL,      NULL,     NULL),
    -- Reported inst-e: captured 100.00 (journaled twice, cap-e, counted
    -- once), refunded twice 30.00 on the capture (two calls, ref-e1 and
    -- ref-e2, the same amount at the same time: two refunds) and 60.00
    -- through the plan: 20.00 too much. Counting cap-e twice would make
    -- the captures 200.00 and hide it.
    ('m1', 'journal-m1.ndjson', 20, TIMESTAMPTZ '2026-11-10 13:00:00+00', '/pts/v2/payments',                 201, 'authorization',          'auth-e', NULL,     100.00, 'USD', 'AUTHORIZED', 'ntid-e', NULL,     NULL,      NULL,     NULL),
    ('m1', 'journal-m1.ndjson', 21, TIMESTAMPTZ '2026-11-10 13:05:00+00', '/fin/v1/plan-acceptance',          201, 'installment_acceptance', 'acc-e',  NULL,     NULL,   NULL,  'ACCEPTED',   NULL,     'inst-e', 'plan-3m', 'ntid-e', NULL),
    ('m1', 'journal-m1.ndjson', 22, TIMESTAMPTZ '2026-11-11 13:00:00+00', '/pts/v2/payments/auth-e/captures', 201, 'capture',                'cap-e',  'auth-e', 100.00, 'USD', 'PENDING',    NULL,     NULL,     NULL,      NULL,     NULL),
    ('m1', 'replay-m1.ndjson',   8, TIMESTAMPTZ '2026-11-11 13:00:00+00', '/pts/v2/payments/auth-e/captures', 201, 'capture',                'cap-e',  'auth-e', 100.00, 'USD', 'PENDING',    NULL,     NULL,     NULL,      NULL,     NULL),
    ('m1', 'journal-m1.ndjson', 23, TIMESTAMPTZ '2026-11-18 13:00:00+00', '/pts/v2/captures/cap-e/refunds',   201, 'refund',                 'ref-e1', 'cap-e',   30.00, 'USD', 'PENDING',    NULL,     NULL,     NULL,      NULL,     NULL),
    ('m1', 'journal-m1.ndjson', 24, TIMESTAMPTZ '2026-11-18 13:00:00+00', '/pts/v2/captures/cap-e/refunds',   201, 'refund',                 'ref-e2', 'cap-e',   30.00, 'USD', 'PENDING',    NULL,     NULL,     NULL,      NULL,     NULL),
    ('m1', 'journal-m1.ndjson', 25, TIMESTAMPTZ '2026-11-19 13:00:00+00', '/fin/v1/plan-acceptance/cancel',   201, 'installment_cancel',     'can-e',  NULL,     NULL,   NULL,  'ACCEPTED',   NULL,     'inst-e', 'plan-3m', 'ntid-e',  60.00),
    -- The other member refunded 10.00 through an inst-b of its own: added
    -- to m1's inst-b, if the check forgot merchant_id, it would exceed.
    ('m2', 'journal-m2.ndjson',  1, TIMESTAMPTZ '2026-11-19 12:00:00+00', '/fin/v1/plan-acceptance/cancel',   201, 'installment_cancel',     'can-9',  NULL,     NULL,   NULL,  'ACCEPTED',   NULL,     'inst-b', 'plan-3m', 'ntid-9',  10.00),
    -- The other member's refund with m1's response id ref-a, journaled
    -- earlier: if a call were told apart without merchant_id, it would
    -- stand for m1's ref-a and inst-a would lose that refund.
    ('m2', 'journal-m2.ndjson',  2, TIMESTAMPTZ '2026-11-17 12:00:00+00', '/pts/v2/captures/cap-9/refunds',   201, 'refund',                 'ref-a',  'cap-9',   60.00, 'USD', 'PENDING',    NULL,     NULL,     NULL,      NULL,     NULL);
