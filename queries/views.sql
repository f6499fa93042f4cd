-- The views of reconcile's working database, over the tables of
-- schema.sql in their current shape (after migrations.sql). Each is
-- CREATE OR REPLACE, so every open brings an older file's views up to date.
-- docs/payments-audit.md explains how the payments audit's three sources
-- (Transaction Search, the merchants' journals, BIN attributes) join.

-- business_card_platform: whether a BIN's card platform
-- (paymentAccountInformation.features.cardPlatform, SDK model
-- TmsBinLookupPaymentAccountInformationFeatures: BUSINESS, CONSUMER,
-- CORPORATE, COMMERCIAL, GOVERNMENT) is a business card, one that
-- qualifies for Level II/III interchange: all but CONSUMER. An unknown
-- or missing platform is not one (NULL reads as false in a filter).
CREATE OR REPLACE MACRO business_card_platform(platform) AS
    upper(trim(platform)) IN ('BUSINESS', 'CORPORATE', 'COMMERCIAL', 'GOVERNMENT');

-- payment_status_outcome: what the status of an authorization's or a
-- sale's answer means, in one place for every view and check that counts
-- approvals (SDK model PtsV2PaymentsPost201Response, status: AUTHORIZED,
-- PARTIAL_AUTHORIZED, AUTHORIZED_PENDING_REVIEW, AUTHORIZED_RISK_DECLINED,
-- PENDING_AUTHENTICATION, PENDING_REVIEW, DECLINED, INVALID_REQUEST;
-- FAILED is a buy-now-pay-later answer's). 'approved': the issuer
-- authorized it and nothing holds it (a partial authorization approves
-- what it authorized). 'pending': no decision yet (payer authentication
-- or a review outstanding, even where the issuer authorized).
-- 'declined': the issuer, the risk tool (AUTHORIZED_RISK_DECLINED: the
-- issuer's authorization is not kept) or the platform refused it.
-- 'unknown': any other status, or none: never counted as approved.
CREATE OR REPLACE MACRO payment_status_outcome(status) AS
    CASE upper(trim(status))
        WHEN 'AUTHORIZED' THEN 'approved'
        WHEN 'PARTIAL_AUTHORIZED' THEN 'approved'
        WHEN 'AUTHORIZED_PENDING_REVIEW' THEN 'pending'
        WHEN 'PENDING_REVIEW' THEN 'pending'
        WHEN 'PENDING_AUTHENTICATION' THEN 'pending'
        WHEN 'PENDING' THEN 'pending'
        WHEN 'DECLINED' THEN 'declined'
        WHEN 'AUTHORIZED_RISK_DECLINED' THEN 'declined'
        WHEN 'INVALID_REQUEST' THEN 'declined'
        WHEN 'FAILED' THEN 'declined'
        ELSE 'unknown'
    END;

-- amount_text(amount, currency) writes an amount as decimal text with its
-- currency's decimals (ISO 4217 exponent: JPY none, USD two, KWD three; a
-- code it does not know two), for the texts of reports and
-- acknowledgements: amounts are DECIMAL(18,3), whose own text would show
-- USD 12.34 as "12.340". Only zeros are dropped, never another digit, so
-- no amount is rounded. (platform.CurrencyExponent holds the same list.)
CREATE OR REPLACE MACRO amount_text(a, cur) AS (
    CASE
        WHEN upper(cur) IN ('BHD', 'IQD', 'JOD', 'KWD', 'LYD', 'OMR', 'TND', 'CLF', 'UYW')
            THEN CAST(CAST(a AS DECIMAL(38,3)) AS VARCHAR)
        WHEN upper(cur) IN ('BIF', 'CLP', 'DJF', 'GNF', 'ISK', 'JPY', 'KMF', 'KRW', 'PYG', 'RWF', 'UGX', 'UYI',
                            'VND', 'VUV', 'XAF', 'XOF', 'XPF')
            THEN regexp_replace(CAST(CAST(a AS DECIMAL(38,3)) AS VARCHAR), '\.?0*$', '')
        ELSE regexp_replace(CAST(CAST(a AS DECIMAL(38,3)) AS VARCHAR), '(\.[0-9][0-9])0$', '\1')
    END
);

-- business_days_between(a, b) counts the business days (Monday to Friday,
-- UTC) after a's day up to and including b's day: a capture of Tuesday is
-- 3 business days old on Friday (capture_not_settled, --settlement-days).
-- Bank holidays are not known and count as business days.
CREATE OR REPLACE MACRO business_days_between(a, b) AS (
    len(list_filter(generate_series(CAST(a AS DATE) + 1, CAST(b AS DATE), INTERVAL 1 DAY),
                    d -> dayofweek(d) NOT IN (0, 6)))
);

-- Every run's findings without the resolved ones: what "the findings of
-- run X" meant before resolved rows existed, for every run the file
-- holds. Acknowledged findings are findings the run reports too. It is the
-- history: a finding open for five nights is five rows here, so a count
-- over it without a run_id filter counts the finding five times.
CREATE OR REPLACE VIEW findings_history AS
SELECT * FROM findings WHERE state IN ('new', 'open', 'acknowledged');

-- The findings as they stand now, each once: per member, the findings
-- (new, open or acknowledged) of the latest run that reconciled it (the
-- latest business date, then run ID, among the runs that finished ok or
-- partial in which the member was ok). A member that failed last night
-- keeps the findings of the night before (nothing newer was checked); a
-- run still going or one that failed as a whole is not yet anyone's
-- latest. This is what "the findings" means to someone who opens the
-- file, so `SELECT count(*) FROM current_findings` is the number the
-- latest workbook shows; one run's rows, or the history, are in
-- findings_history.
CREATE OR REPLACE VIEW current_findings AS
WITH latest AS (
    SELECT m.merchant_id, arg_max(r.run_id, (r.business_date, r.run_id)) AS run_id
    FROM run_members m
    JOIN runs r ON r.run_id = m.run_id
    WHERE m.status = 'ok' AND r.status IN ('ok', 'partial')
    GROUP BY m.merchant_id
)
SELECT f.* FROM findings f
JOIN latest l ON l.merchant_id = f.merchant_id AND l.run_id = f.run_id
WHERE f.state IN ('new', 'open', 'acknowledged');

-- The card each journaled call was made with: the card number it sent,
-- else the platform's record of its transaction (Transaction Search), else
-- the authorization a follow-on call refers to (its record, else its
-- journal line). BIN and last four always come from the same source.
-- Calls made with no card (buy-now-pay-later, installment plan calls) are
-- absent.
CREATE OR REPLACE VIEW journal_cards AS
WITH journal_card AS (
    SELECT merchant_id, transaction_id, any_value(card_bin) AS card_bin, any_value(card_last4) AS card_last4
    FROM journal
    WHERE card_bin IS NOT NULL AND transaction_id IS NOT NULL
    GROUP BY ALL
),
resolved AS (
    SELECT
        j.merchant_id, j.file, j.line, j.transaction_id,
        CASE WHEN j.card_bin IS NOT NULL THEN j.card_bin
             WHEN t.card_bin IS NOT NULL THEN t.card_bin
             WHEN pt.card_bin IS NOT NULL THEN pt.card_bin
             ELSE pj.card_bin END AS card_bin,
        CASE WHEN j.card_bin IS NOT NULL THEN j.card_last4
             WHEN t.card_bin IS NOT NULL THEN t.card_last4
             WHEN pt.card_bin IS NOT NULL THEN pt.card_last4
             ELSE pj.card_last4 END AS card_last4
    FROM journal j
    LEFT JOIN transactions t ON t.merchant_id = j.merchant_id AND t.transaction_id = j.transaction_id
    LEFT JOIN transactions pt ON pt.merchant_id = j.merchant_id AND pt.transaction_id = j.parent_id
    LEFT JOIN journal_card pj ON pj.merchant_id = j.merchant_id AND pj.transaction_id = j.parent_id
)
SELECT * FROM resolved WHERE card_bin IS NOT NULL;

-- Transactions by the funding source, platform, product and health-card
-- flag of their card's BIN, per member, UTC day and currency. captured
-- counts approved sales and captures (applications ics_bill or
-- ics_ap_capture with rCode 1), the money collected; transactions counts
-- every transaction (authorizations, declines and credits included).
CREATE OR REPLACE VIEW funding_sources AS
SELECT
    t.merchant_id,
    CAST(t.submit_time AS DATE) AS day,
    t.card_bin IS NOT NULL AS has_card,
    b.funding_source,
    b.card_platform,
    b.card_product,
    b.health_card,
    t.currency,
    count(*) AS transactions,
    count(*) FILTER (WHERE t.r_code = '1' AND regexp_matches(coalesce(t.application_names, ''), '(^|,)(ics_bill|ics_ap_capture)(,|$)')) AS captured,
    coalesce(sum(t.amount) FILTER (WHERE t.r_code = '1' AND regexp_matches(coalesce(t.application_names, ''), '(^|,)(ics_bill|ics_ap_capture)(,|$)')), 0) AS captured_amount
FROM transactions t
LEFT JOIN bin_attributes b ON b.bin = t.card_bin
GROUP BY ALL;

-- The payment-solution codes of docs/platform.md (Device wallets).
CREATE OR REPLACE VIEW payment_solutions AS
SELECT * FROM (VALUES
    ('001', 'Apple Pay'), ('004', 'In-app (platform-decrypted)'), ('005', 'Masterpass'), ('006', 'Android Pay'),
    ('007', 'Chase Pay'), ('008', 'Samsung Pay'), ('012', 'Google Pay'),
    ('014', 'Mastercard card-on-file network token'), ('015', 'Visa card-on-file network token'), ('027', 'Click to Pay')
) AS s(code, name);

-- Transactions by device wallet or network token (processingInformation.
-- paymentSolution of Transaction Search), per member, UTC day and currency;
-- payment_solution NULL is a plain card or a payment without one.
CREATE OR REPLACE VIEW wallet_mix AS
SELECT
    t.merchant_id,
    CAST(t.submit_time AS DATE) AS day,
    t.payment_solution,
    CASE WHEN t.payment_solution IS NULL THEN '(no wallet)' ELSE coalesce(ps.name, 'code ' || t.payment_solution) END AS wallet,
    t.currency,
    count(*) AS transactions,
    count(*) FILTER (WHERE t.r_code = '1' AND regexp_matches(coalesce(t.application_names, ''), '(^|,)(ics_bill|ics_ap_capture)(,|$)')) AS captured,
    coalesce(sum(t.amount) FILTER (WHERE t.r_code = '1' AND regexp_matches(coalesce(t.application_names, ''), '(^|,)(ics_bill|ics_ap_capture)(,|$)')), 0) AS captured_amount
FROM transactions t
LEFT JOIN payment_solutions ps ON ps.code = t.payment_solution
GROUP BY ALL;

-- Contactless acceptance: the merchants' authorizations and sales that
-- name a terminal (pointOfSaleInformation.terminalId), per member,
-- terminal, UTC day and currency, from the journals, counted by what
-- their status means (payment_status_outcome): approved, declined,
-- pending, and unknown (a status the platform's SDK does not list, or
-- none), which is never counted as approved.
CREATE OR REPLACE VIEW terminal_activity AS
SELECT
    j.merchant_id,
    j.terminal_id,
    CAST(j.time AS DATE) AS day,
    j.currency,
    count(*) AS transactions,
    count(*) FILTER (WHERE payment_status_outcome(j.response_status) = 'approved') AS approved,
    coalesce(sum(j.amount) FILTER (WHERE payment_status_outcome(j.response_status) = 'approved'), 0) AS approved_amount,
    min(j.time) AS first_time,
    max(j.time) AS last_time,
    count(*) FILTER (WHERE payment_status_outcome(j.response_status) = 'declined') AS declined,
    count(*) FILTER (WHERE payment_status_outcome(j.response_status) = 'pending') AS pending,
    count(*) FILTER (WHERE payment_status_outcome(j.response_status) = 'unknown') AS unknown
FROM journal j
WHERE j.terminal_id IS NOT NULL
  AND j.call_kind IN ('authorization', 'sale')
  AND j.status BETWEEN 200 AND 299
GROUP BY ALL;

-- Installment plans and what happened to them, from the merchants'
-- journals: one row per event of a selected plan (a plan acceptance answered
-- 2xx). The plan's authorization is the journaled authorization, before the
-- selection, whose network transaction id (else approval code) the
-- selection sent; its captures, the refunds of those captures and its
-- reversal follow from the paths; cancels and partial refunds made through
-- the plan (POST /fin/v1/plan-acceptance/cancel, with or without a
-- refundAmount) name the plan's installmentInformation.id. Every event
-- answered 2xx, and each call once: a journal may hold the same call twice
-- (a replayed file, a call logged twice), and a capture or a refund counted
-- twice would double its amount. A call is its response id (the earliest
-- line kept, as the checks keep one row per response id); lines without
-- one cannot be told apart and each stays an event.
CREATE OR REPLACE VIEW installment_events AS
WITH calls AS (
    SELECT merchant_id, file, line, time, call_kind, transaction_id, parent_id, installment_id, amount, refund_amount
    FROM journal
    WHERE call_kind IN ('capture', 'refund', 'reversal', 'installment_cancel') AND status BETWEEN 200 AND 299
    QUALIFY row_number() OVER (
        PARTITION BY merchant_id, call_kind, transaction_id,
                     CASE WHEN transaction_id IS NULL THEN file END, CASE WHEN transaction_id IS NULL THEN line END
        ORDER BY time, file, line) = 1
),
accepted AS (
    SELECT s.merchant_id, s.installment_id, s.plan_id, s.time AS accepted_at,
           s.ref_network_transaction_id, s.ref_authorization_code
    FROM journal s
    WHERE s.call_kind = 'installment_acceptance' AND s.status BETWEEN 200 AND 299 AND s.installment_id IS NOT NULL
    QUALIFY row_number() OVER (PARTITION BY s.merchant_id, s.installment_id ORDER BY s.time, s.file, s.line) = 1
),
plans AS (
    SELECT p.*, a.transaction_id AS authorization_id, a.amount, a.currency
    FROM accepted p
    LEFT JOIN journal a
      ON a.merchant_id = p.merchant_id AND a.call_kind = 'authorization' AND a.status BETWEEN 200 AND 299
     AND a.transaction_id IS NOT NULL AND a.time <= p.accepted_at
     AND (a.network_transaction_id = p.ref_network_transaction_id
          OR (p.ref_network_transaction_id IS NULL AND a.approval_code = p.ref_authorization_code))
    QUALIFY row_number() OVER (PARTITION BY p.merchant_id, p.installment_id ORDER BY a.time DESC NULLS LAST, a.transaction_id) = 1
),
captures AS (
    SELECT p.merchant_id, p.installment_id, c.transaction_id, c.time, c.amount
    FROM plans p
    JOIN calls c ON c.merchant_id = p.merchant_id AND c.parent_id = p.authorization_id
    WHERE c.call_kind = 'capture' AND c.transaction_id IS NOT NULL
),
events AS (
    SELECT merchant_id, installment_id, 'capture' AS event, transaction_id AS event_id, time AS event_time, amount AS event_amount
    FROM captures
    UNION ALL
    SELECT c.merchant_id, c.installment_id, 'refund', r.transaction_id, r.time, r.amount
    FROM captures c
    JOIN calls r ON r.merchant_id = c.merchant_id AND r.parent_id = c.transaction_id
    WHERE r.call_kind = 'refund'
    UNION ALL
    SELECT p.merchant_id, p.installment_id, 'reversal', v.transaction_id, v.time, v.amount
    FROM plans p
    JOIN calls v ON v.merchant_id = p.merchant_id AND v.parent_id = p.authorization_id
    WHERE v.call_kind = 'reversal'
    UNION ALL
    SELECT p.merchant_id, p.installment_id, CASE WHEN k.refund_amount IS NULL THEN 'cancel' ELSE 'plan_refund' END,
           k.transaction_id, k.time, k.refund_amount
    FROM plans p
    JOIN calls k ON k.merchant_id = p.merchant_id AND k.installment_id = p.installment_id
    WHERE k.call_kind = 'installment_cancel'
)
SELECT p.merchant_id, p.installment_id, p.plan_id, p.accepted_at, p.authorization_id, p.amount, p.currency,
       e.event, e.event_id, e.event_time, e.event_amount
FROM plans p
LEFT JOIN events e ON e.merchant_id = p.merchant_id AND e.installment_id = p.installment_id;

-- What skipping cycles defers, per subscription: the cycles still to come
-- that the merchant skipped (SCHEDULED_SKIPPED) and those whose date passed
-- skipped (SKIPPED). Per member: subscription_metrics.deferred_amount.
CREATE OR REPLACE VIEW skipped_deferrals AS
SELECT
    p.merchant_id,
    p.subscription_id,
    p.currency,
    count(*) FILTER (WHERE p.status = 'SCHEDULED_SKIPPED') AS skipped_cycles,
    coalesce(sum(p.billing_amount) FILTER (WHERE p.status = 'SCHEDULED_SKIPPED'), 0) AS skipped_amount,
    count(*) FILTER (WHERE p.status = 'SKIPPED') AS past_skipped_cycles,
    coalesce(sum(p.billing_amount) FILTER (WHERE p.status = 'SKIPPED'), 0) AS past_skipped_amount,
    coalesce(sum(p.billing_amount), 0) AS deferred_amount,
    string_agg(CAST(p.billing_cycle AS VARCHAR), ', ' ORDER BY p.billing_cycle) AS cycles
FROM subscription_payments p
WHERE p.status IN ('SCHEDULED_SKIPPED', 'SKIPPED')
GROUP BY p.merchant_id, p.subscription_id, p.currency;

-- Each acknowledgement in force as the JSON its audit rows keep (before
-- and after a change): owner, until, reason, ticket, the amount (decimal
-- text) and currency acknowledged, and its source.
CREATE OR REPLACE VIEW acknowledgement_values AS
SELECT kind, merchant_id, entity_id,
       json_object('owner', owner, 'until', until, 'reason', reason, 'ticket', ticket,
                   'amount', amount_text(amount, currency), 'currency', currency, 'source', source) AS value
FROM acknowledgements;

-- Every attempt to charge a card, for the card-network retry checks
-- (retry_after_do_not_retry, reattempts_over_network_limit;
-- docs/payments-audit.md): the merchants' authorizations and sales as
-- journaled (answered 2xx and not FAILED or INVALID_REQUEST: a call the platform refused or
-- could not process never reached the issuer; each call once, by its
-- response id) and the subscription payments the platform processed on
-- the merchant's behalf (PAID or FAILED). Each is on its card, the same
-- card being the same BIN and last four at the same merchant: a call's as
-- in journal_cards, a payment's its transaction's in Transaction Search (a
-- payment whose transaction the database does not hold has no known card
-- and is absent). The network is the card's BIN brand, else its card type
-- code (the call's, else its transaction's). An attempt is declined when
-- the answer was DECLINED (a payment FAILED), approved when its status
-- means approved (payment_status_outcome; a payment PAID): a pending or
-- unknown answer, or one the risk tool declined after the issuer
-- authorized it, is neither, and do-not-retry when the
-- issuer said never to try the card again: on a Visa card merchant advice
-- code 1 or a category 1 response code (04, 07, 12, 14, 15, 41, 43, 46,
-- 57, R0, R1, R3); on any other card merchant advice code 03 (do not try
-- again) or 21 (payment cancelled), as code or codeRaw; on any card the
-- platform's reason code 205 (stolen or lost card) or 231 (invalid account
-- number) in Transaction Search.
CREATE OR REPLACE VIEW card_attempts AS
WITH journaled AS (
    SELECT
        j.merchant_id, j.transaction_id, j.time, c.card_bin, c.card_last4,
        coalesce(j.card_type, t.card_type) AS card_type,
        CASE WHEN j.initiator_type = 'merchant' THEN 'merchant' ELSE 'customer' END AS initiator,
        coalesce(j.response_status, '') = 'DECLINED' AS declined,
        payment_status_outcome(j.response_status) = 'approved' AS approved,
        j.processor_response_code, j.merchant_advice_code, j.merchant_advice_code_raw, t.reason_code,
        j.amount, j.currency, 'journal' AS source, j.call_kind, j.file, j.line,
        CAST(NULL AS VARCHAR) AS subscription_id, CAST(NULL AS VARCHAR) AS payment_id
    FROM journal j
    JOIN journal_cards c ON c.merchant_id = j.merchant_id AND c.file = j.file AND c.line = j.line
    LEFT JOIN transactions t ON t.merchant_id = j.merchant_id AND t.transaction_id = j.transaction_id
    WHERE j.call_kind IN ('authorization', 'sale')
      AND j.status BETWEEN 200 AND 299
      AND j.transaction_id IS NOT NULL
      AND j.time IS NOT NULL
      AND c.card_last4 IS NOT NULL
      AND coalesce(j.response_status, '') NOT IN ('FAILED', 'INVALID_REQUEST')
),
billed AS (
    SELECT
        p.merchant_id, p.transaction_id, t.submit_time AS time, t.card_bin, t.card_last4, t.card_type,
        'merchant' AS initiator, p.status = 'FAILED' AS declined, p.status = 'PAID' AS approved,
        CAST(NULL AS VARCHAR) AS processor_response_code, CAST(NULL AS VARCHAR) AS merchant_advice_code,
        CAST(NULL AS VARCHAR) AS merchant_advice_code_raw, t.reason_code,
        t.amount, t.currency, 'billing' AS source, 'subscription_payment' AS call_kind,
        CAST(NULL AS VARCHAR) AS file, CAST(NULL AS INTEGER) AS line, p.subscription_id, p.payment_id
    FROM subscription_payments p
    JOIN transactions t ON t.merchant_id = p.merchant_id AND t.transaction_id = p.transaction_id
    WHERE p.status IN ('PAID', 'FAILED')
      AND t.submit_time IS NOT NULL AND t.card_bin IS NOT NULL AND t.card_last4 IS NOT NULL
),
attempts AS (
    SELECT * FROM (SELECT * FROM journaled UNION ALL SELECT * FROM billed)
    QUALIFY row_number() OVER (PARTITION BY merchant_id, transaction_id ORDER BY source = 'journal' DESC, time, file, line) = 1
),
networked AS (
    SELECT a.*,
           coalesce(upper(trim(b.brand)), CASE a.card_type
               WHEN '001' THEN 'VISA' WHEN '033' THEN 'VISA'
               WHEN '002' THEN 'MASTERCARD' WHEN '024' THEN 'MAESTRO' WHEN '042' THEN 'MAESTRO'
               WHEN '003' THEN 'AMERICAN EXPRESS' WHEN '004' THEN 'DISCOVER'
               WHEN '005' THEN 'DINERS CLUB' WHEN '007' THEN 'JCB' WHEN '062' THEN 'CHINA UNIONPAY' END) AS network
    FROM attempts a
    LEFT JOIN bin_attributes b ON b.bin = a.card_bin
)
SELECT *,
       declined AND (
           (network = 'VISA' AND (merchant_advice_code IN ('1', '01')
               OR processor_response_code IN ('04', '07', '12', '14', '15', '41', '43', '46', '57', 'R0', 'R1', 'R3')))
           OR (network IS DISTINCT FROM 'VISA' AND (merchant_advice_code IN ('3', '03', '21') OR merchant_advice_code_raw IN ('3', '03', '21')))
           OR coalesce(reason_code, '') IN ('205', '231')
       ) AS do_not_retry
FROM networked;
