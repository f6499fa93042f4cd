-- The schema a working database had before every table was defined in one
-- file (TestMigrationsOnAnOlderFile): Schema() at commit d43effb, i.e.
-- schema.sql, migrations.sql, payments.sql, billing.sql and comments.sql
-- of that commit, in that order. Do not edit.

-- The working database of reconcile. Every statement is idempotent, so opening
-- an existing file applies what is missing and changes nothing else.
-- Amounts are DECIMAL(18,2) next to their currency; times are TIMESTAMPTZ in UTC.
-- `raw` columns keep the platform's record exactly as received, for audit.
--
-- The bulk tables (plans, subscriptions, subscription_payments,
-- transactions, journal) declare their key in a comment, not as a PRIMARY
-- KEY: the loader keeps each key unique itself (it deletes the keys it is
-- about to insert, in the same transaction), and DuckDB's index maintenance
-- would halve the load rate. The tests check every key for duplicates.

SET TimeZone = 'UTC';

CREATE TABLE IF NOT EXISTS groups (
    group_id        VARCHAR PRIMARY KEY,
    organization_id VARCHAR NOT NULL,
    name            VARCHAR,
    description     VARCHAR,
    type            VARCHAR,
    created_time    TIMESTAMPTZ,
    updated_time    TIMESTAMPTZ,
    raw             JSON,
    run_id          VARCHAR NOT NULL,
    loaded_at       TIMESTAMPTZ NOT NULL
);

CREATE TABLE IF NOT EXISTS group_members (
    group_id    VARCHAR NOT NULL,
    merchant_id VARCHAR NOT NULL,
    run_id      VARCHAR NOT NULL,
    PRIMARY KEY (group_id, merchant_id)
);

-- key: merchant_id, plan_id
CREATE TABLE IF NOT EXISTS plans (
    merchant_id           VARCHAR NOT NULL,
    plan_id               VARCHAR NOT NULL,
    code                  VARCHAR,
    name                  VARCHAR,
    description           VARCHAR,
    status                VARCHAR,
    billing_period_length INTEGER,
    billing_period_unit   VARCHAR,
    cycles_total          INTEGER,
    billing_amount        DECIMAL(18,2),
    setup_fee             DECIMAL(18,2),
    currency              VARCHAR,
    raw                   JSON,
    run_id                VARCHAR NOT NULL,
    loaded_at             TIMESTAMPTZ NOT NULL
);

-- key: merchant_id, subscription_id
CREATE TABLE IF NOT EXISTS subscriptions (
    merchant_id            VARCHAR NOT NULL,
    subscription_id        VARCHAR NOT NULL,
    code                   VARCHAR,
    plan_id                VARCHAR,
    plan_code              VARCHAR,
    name                   VARCHAR,
    status                 VARCHAR,
    start_date             TIMESTAMPTZ,
    customer_id            VARCHAR,
    client_reference       VARCHAR,
    billing_amount         DECIMAL(18,2),
    setup_fee              DECIMAL(18,2),
    currency               VARCHAR,
    billing_period_length  INTEGER,
    billing_period_unit    VARCHAR,
    cycles_total           INTEGER,
    cycles_current         INTEGER,
    payments_total_count   INTEGER,
    billing_cycles_to_skip JSON,
    cycles_completed       JSON,
    payments_pulled_at     TIMESTAMPTZ,
    raw                    JSON,
    run_id                 VARCHAR NOT NULL,
    loaded_at              TIMESTAMPTZ NOT NULL
);

-- key: merchant_id, payment_id
CREATE TABLE IF NOT EXISTS subscription_payments (
    merchant_id           VARCHAR NOT NULL,
    payment_id            VARCHAR NOT NULL,
    subscription_id       VARCHAR NOT NULL,
    status                VARCHAR,
    payment_type          VARCHAR,
    billing_cycle         INTEGER,
    payment_number        INTEGER,
    payment_date          TIMESTAMPTZ,
    billing_start_date    TIMESTAMPTZ,
    billing_end_date      TIMESTAMPTZ,
    billing_amount        DECIMAL(18,2),
    setup_fee             DECIMAL(18,2),
    surcharge_amount      DECIMAL(18,2),
    surcharge_description VARCHAR,
    currency              VARCHAR,
    transaction_id        VARCHAR,
    modifiable            BOOLEAN,
    raw                   JSON,
    run_id                VARCHAR NOT NULL,
    loaded_at             TIMESTAMPTZ NOT NULL
);

-- key: merchant_id, transaction_id
CREATE TABLE IF NOT EXISTS transactions (
    merchant_id              VARCHAR NOT NULL,
    transaction_id           VARCHAR NOT NULL,
    submit_time              TIMESTAMPTZ,
    status                   VARCHAR,
    reason_code              VARCHAR,
    r_code                   VARCHAR,
    r_flag                   VARCHAR,
    application_names        VARCHAR,
    applications             JSON,
    amount                   DECIMAL(18,2),
    currency                 VARCHAR,
    card_bin                 VARCHAR,
    card_last4               VARCHAR,
    card_type                VARCHAR,
    customer_id              VARCHAR,
    instrument_identifier_id VARCHAR,
    payment_solution         VARCHAR,
    commerce_indicator       VARCHAR,
    business_application_id  VARCHAR,
    client_reference         VARCHAR,
    raw                      JSON,
    run_id                   VARCHAR NOT NULL,
    loaded_at                TIMESTAMPTZ NOT NULL
);

-- key: merchant_id, file, line
CREATE TABLE IF NOT EXISTS journal (
    merchant_id     VARCHAR NOT NULL,
    file            VARCHAR NOT NULL,
    line            INTEGER NOT NULL,
    time            TIMESTAMPTZ,
    method          VARCHAR,
    path            VARCHAR,
    status          INTEGER,
    call_kind       VARCHAR,
    transaction_id  VARCHAR,
    parent_id       VARCHAR,
    card_bin        VARCHAR,
    card_last4      VARCHAR,
    amount          DECIMAL(18,2),
    currency        VARCHAR,
    purchase_level  VARCHAR,
    line_item_count INTEGER,
    level3_status   VARCHAR,
    request         JSON,
    response        JSON,
    file_sha256     VARCHAR NOT NULL,
    imported_at     TIMESTAMPTZ NOT NULL
);

CREATE TABLE IF NOT EXISTS journal_files (
    sha256      VARCHAR PRIMARY KEY,
    file        VARCHAR NOT NULL,
    lines       INTEGER NOT NULL,
    loaded      INTEGER NOT NULL,
    rejected    INTEGER NOT NULL,
    imported_at TIMESTAMPTZ NOT NULL
);

CREATE TABLE IF NOT EXISTS journal_rejects (
    file        VARCHAR NOT NULL,
    line        INTEGER NOT NULL,
    reason      VARCHAR NOT NULL,
    text        VARCHAR,
    file_sha256 VARCHAR NOT NULL,
    imported_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (file, line)
);

CREATE TABLE IF NOT EXISTS bin_attributes (
    bin                     VARCHAR PRIMARY KEY,
    lookup_status           VARCHAR NOT NULL,
    resolved_by             VARCHAR,
    funding_source          VARCHAR,
    funding_source_sub_type VARCHAR,
    card_platform           VARCHAR,
    card_product            VARCHAR,
    health_card             BOOLEAN,
    brand                   VARCHAR,
    card_type               VARCHAR,
    issuer_name             VARCHAR,
    issuer_country          VARCHAR,
    raw                     JSON,
    looked_up_at            TIMESTAMPTZ NOT NULL
);

CREATE TABLE IF NOT EXISTS findings (
    run_id         VARCHAR NOT NULL,
    business_date  DATE NOT NULL,
    kind           VARCHAR NOT NULL,
    merchant_id    VARCHAR NOT NULL,
    entity_id      VARCHAR NOT NULL,
    group_id       VARCHAR,
    amount         DECIMAL(18,2),
    currency       VARCHAR,
    detail         JSON,
    first_seen_run VARCHAR NOT NULL,
    PRIMARY KEY (run_id, kind, merchant_id, entity_id)
);

CREATE TABLE IF NOT EXISTS runs (
    run_id          VARCHAR PRIMARY KEY,
    business_date   DATE NOT NULL,
    shard           VARCHAR,
    window_start    TIMESTAMPTZ NOT NULL,
    window_end      TIMESTAMPTZ NOT NULL,
    started_at      TIMESTAMPTZ NOT NULL,
    finished_at     TIMESTAMPTZ,
    status          VARCHAR NOT NULL,
    attempts        INTEGER NOT NULL,
    members_total   INTEGER,
    members_ok      INTEGER,
    members_failed  INTEGER,
    members_skipped INTEGER,
    requests        BIGINT,
    retries         BIGINT,
    findings        BIGINT,
    error           VARCHAR,
    version         VARCHAR
);

CREATE TABLE IF NOT EXISTS run_members (
    run_id        VARCHAR NOT NULL,
    merchant_id   VARCHAR NOT NULL,
    status        VARCHAR NOT NULL,
    error         VARCHAR,
    started_at    TIMESTAMPTZ,
    finished_at   TIMESTAMPTZ,
    plans         INTEGER,
    subscriptions INTEGER,
    payments      INTEGER,
    transactions  INTEGER,
    requests      BIGINT,
    retries       BIGINT,
    PRIMARY KEY (run_id, merchant_id)
);

-- Changes to the working database made after schema.sql's tables first
-- shipped. schema.sql creates a new file's tables; this file brings an
-- existing file to the same shape. Every statement is idempotent (IF NOT
-- EXISTS, OR REPLACE, or a backfill that matches no row once done), so it
-- runs after schema.sql on every open.

-- Day over day: each of a run's findings says whether it is new since the
-- previous run or still open, and findings of the previous run that are gone
-- are kept under the run as resolved. Rows written before the column existed
-- get new or open from their first_seen_run.
ALTER TABLE findings ADD COLUMN IF NOT EXISTS state VARCHAR;
UPDATE findings SET state = CASE WHEN first_seen_run = run_id THEN 'new' ELSE 'open' END
WHERE state IS NULL;

-- The run a run's findings were compared with, so reports need not work out
-- "previous" again (and could not, once later runs exist).
ALTER TABLE runs ADD COLUMN IF NOT EXISTS previous_run VARCHAR;

-- The finding kinds of the catalog (queries/findings/*.sql), refreshed by
-- every run, so that SQL users and BI tools can join a kind to its meaning.
CREATE TABLE IF NOT EXISTS finding_kinds (
    kind        VARCHAR PRIMARY KEY,
    position    INTEGER NOT NULL,
    description VARCHAR NOT NULL,
    action      VARCHAR NOT NULL
);

-- A run's findings without the resolved ones: what "the findings of run X"
-- meant before resolved rows existed.
CREATE OR REPLACE VIEW current_findings AS
SELECT * FROM findings WHERE state IN ('new', 'open');

-- The payments audit beyond recurring billing: what each journaled call
-- carried in every service area, the views the payment reports read, and
-- the interchange estimate. Applied after schema.sql and migrations.sql on
-- every open, so every statement is idempotent. docs/payments-audit.md
-- explains how the three sources (Transaction Search, the merchants'
-- journals, BIN attributes) join.

-- Facts level3audit.Inspect derives from each journaled call (see
-- ingest/journal_facts.go). Rows imported before a column existed are
-- inspected again from their stored request and response (inspect_version).
ALTER TABLE journal ADD COLUMN IF NOT EXISTS purchase_order_number VARCHAR;
ALTER TABLE journal ADD COLUMN IF NOT EXISTS level3_missing VARCHAR;
ALTER TABLE journal ADD COLUMN IF NOT EXISTS percent_rates VARCHAR;
ALTER TABLE journal ADD COLUMN IF NOT EXISTS response_status VARCHAR;
ALTER TABLE journal ADD COLUMN IF NOT EXISTS network_transaction_id VARCHAR;
ALTER TABLE journal ADD COLUMN IF NOT EXISTS approval_code VARCHAR;
ALTER TABLE journal ADD COLUMN IF NOT EXISTS commerce_indicator VARCHAR;
ALTER TABLE journal ADD COLUMN IF NOT EXISTS initiator_type VARCHAR;
ALTER TABLE journal ADD COLUMN IF NOT EXISTS credential_stored BOOLEAN;
ALTER TABLE journal ADD COLUMN IF NOT EXISTS stored_credential_used BOOLEAN;
ALTER TABLE journal ADD COLUMN IF NOT EXISTS mit_reason VARCHAR;
ALTER TABLE journal ADD COLUMN IF NOT EXISTS previous_transaction_id VARCHAR;
ALTER TABLE journal ADD COLUMN IF NOT EXISTS action_list VARCHAR;
ALTER TABLE journal ADD COLUMN IF NOT EXISTS product_subtype VARCHAR;
ALTER TABLE journal ADD COLUMN IF NOT EXISTS healthcare_amount DECIMAL(18,2);
ALTER TABLE journal ADD COLUMN IF NOT EXISTS healthcare_detail_amount DECIMAL(18,2);
ALTER TABLE journal ADD COLUMN IF NOT EXISTS healthcare_amount_count INTEGER;
ALTER TABLE journal ADD COLUMN IF NOT EXISTS payment_type VARCHAR;
ALTER TABLE journal ADD COLUMN IF NOT EXISTS session_token VARCHAR;
ALTER TABLE journal ADD COLUMN IF NOT EXISTS country VARCHAR;
ALTER TABLE journal ADD COLUMN IF NOT EXISTS installment_id VARCHAR;
ALTER TABLE journal ADD COLUMN IF NOT EXISTS plan_id VARCHAR;
ALTER TABLE journal ADD COLUMN IF NOT EXISTS ref_network_transaction_id VARCHAR;
ALTER TABLE journal ADD COLUMN IF NOT EXISTS ref_authorization_code VARCHAR;
ALTER TABLE journal ADD COLUMN IF NOT EXISTS refund_amount DECIMAL(18,2);
ALTER TABLE journal ADD COLUMN IF NOT EXISTS payment_solution VARCHAR;
ALTER TABLE journal ADD COLUMN IF NOT EXISTS wallet_data BOOLEAN;
ALTER TABLE journal ADD COLUMN IF NOT EXISTS terminal_id VARCHAR;
ALTER TABLE journal ADD COLUMN IF NOT EXISTS inspect_version INTEGER;

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
-- terminal, UTC day and currency, from the journals. approved excludes
-- the ones answered DECLINED or FAILED.
CREATE OR REPLACE VIEW terminal_activity AS
SELECT
    j.merchant_id,
    j.terminal_id,
    CAST(j.time AS DATE) AS day,
    j.currency,
    count(*) AS transactions,
    count(*) FILTER (WHERE coalesce(j.response_status, '') NOT IN ('DECLINED', 'FAILED')) AS approved,
    coalesce(sum(j.amount) FILTER (WHERE coalesce(j.response_status, '') NOT IN ('DECLINED', 'FAILED')), 0) AS approved_amount,
    min(j.time) AS first_time,
    max(j.time) AS last_time
FROM journal j
WHERE j.terminal_id IS NOT NULL
  AND j.call_kind IN ('authorization', 'sale')
  AND j.status BETWEEN 200 AND 299
GROUP BY ALL;

-- The interchange rate table the run's estimate used: per card network, the
-- difference between the standard commercial rate and the Level II or
-- Level III rate, as a fraction of the amount. Replaced by every run, from
-- --interchange-rates or the documented default (docs/payments-audit.md).
CREATE TABLE IF NOT EXISTS interchange_rates (
    network     VARCHAR PRIMARY KEY,
    level2_rate DECIMAL(9,6) NOT NULL,
    level3_rate DECIMAL(9,6) NOT NULL,
    source      VARCHAR NOT NULL,
    loaded_at   TIMESTAMPTZ NOT NULL
);

-- Per run and member, the estimated interchange at risk on commercial-card
-- calls that lost Level III (commercial_card_without_level3,
-- level3_not_transmitted, level3_incomplete) or Level II
-- (level2_missing_po).
CREATE TABLE IF NOT EXISTS interchange_at_risk (
    run_id       VARCHAR NOT NULL,
    merchant_id  VARCHAR NOT NULL,
    network      VARCHAR NOT NULL,
    currency     VARCHAR NOT NULL,
    calls        INTEGER NOT NULL,
    level3_calls INTEGER NOT NULL,
    level2_calls INTEGER NOT NULL,
    amount       DECIMAL(18,2) NOT NULL,
    level2_rate  DECIMAL(9,6) NOT NULL,
    level3_rate  DECIMAL(9,6) NOT NULL,
    at_risk      DECIMAL(18,2) NOT NULL,
    PRIMARY KEY (run_id, merchant_id, network, currency)
);

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
    SELECT * FROM journal
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

-- The recurring-billing reconciliation (docs/billing.md): the schedule the
-- product projects for each subscription (written with each member's load,
-- by ingest from the subscriptions package's rules), and what each run
-- reports of recurring billing beside its findings (written after the
-- checks, from queries/billing/*.sql). Applied after schema.sql and
-- migrations.sql on every open, so every statement is idempotent.

-- key: merchant_id, subscription_id. Current state, like subscriptions:
-- replaced for every subscription of a member each time the member loads.
CREATE TABLE IF NOT EXISTS subscription_schedules (
    merchant_id      VARCHAR NOT NULL,
    subscription_id  VARCHAR NOT NULL,
    period_unit      VARCHAR,
    period_length    INTEGER,
    cycles_total     INTEGER,
    start_date       TIMESTAMPTZ,
    cut_off          TIMESTAMPTZ NOT NULL,
    cycles_due       INTEGER,
    last_due_date    TIMESTAMPTZ,
    next_due_date    TIMESTAMPTZ,
    projection_cut   BOOLEAN,
    retry_limit      INTEGER NOT NULL,
    retry_interval   INTERVAL NOT NULL,
    retry_tolerance  INTERVAL NOT NULL,
    within_12_months BOOLEAN,
    monthly_amount   DECIMAL(18,2),
    currency         VARCHAR,
    problem          VARCHAR,
    run_id           VARCHAR NOT NULL,
    loaded_at        TIMESTAMPTZ NOT NULL
);

-- key: merchant_id, subscription_id, cycle. Every cycle the schedule says
-- fell due before the cut-off, whatever the subscription's status.
CREATE TABLE IF NOT EXISTS expected_cycles (
    merchant_id     VARCHAR NOT NULL,
    subscription_id VARCHAR NOT NULL,
    cycle           INTEGER NOT NULL,
    due_date        TIMESTAMPTZ NOT NULL,
    billing_amount  DECIMAL(18,2),
    setup_fee       DECIMAL(18,2),
    currency        VARCHAR,
    run_id          VARCHAR NOT NULL,
    loaded_at       TIMESTAMPTZ NOT NULL
);

-- One row per subscription and run where its status or customer token
-- changed (or that first saw it): the history the day-over-day figures
-- (churned, recovered) compare with.
CREATE TABLE IF NOT EXISTS subscription_status_log (
    merchant_id          VARCHAR NOT NULL,
    subscription_id      VARCHAR NOT NULL,
    run_id               VARCHAR NOT NULL,
    business_date        DATE NOT NULL,
    status               VARCHAR,
    customer_id          VARCHAR,
    previous_status      VARCHAR,
    previous_customer_id VARCHAR,
    previous_run         VARCHAR,
    PRIMARY KEY (merchant_id, subscription_id, run_id)
);

CREATE TABLE IF NOT EXISTS subscription_recoveries (
    run_id          VARCHAR NOT NULL,
    business_date   DATE NOT NULL,
    merchant_id     VARCHAR NOT NULL,
    subscription_id VARCHAR NOT NULL,
    previous_status VARCHAR NOT NULL,
    status          VARCHAR NOT NULL,
    previous_run    VARCHAR,
    how             VARCHAR NOT NULL,
    payment_id      VARCHAR,
    paid_at         TIMESTAMPTZ,
    amount          DECIMAL(18,2),
    currency        VARCHAR,
    PRIMARY KEY (run_id, merchant_id, subscription_id)
);

CREATE TABLE IF NOT EXISTS delinquency_ageing (
    run_id                   VARCHAR NOT NULL,
    business_date            DATE NOT NULL,
    merchant_id              VARCHAR NOT NULL,
    subscription_id          VARCHAR NOT NULL,
    status                   VARCHAR NOT NULL,
    failed_cycle             INTEGER,
    first_failed_at          TIMESTAMPTZ,
    days_since_first_failure INTEGER,
    age_bucket               VARCHAR NOT NULL,
    retries_done             INTEGER NOT NULL,
    retries_remaining        INTEGER NOT NULL,
    last_attempt_at          TIMESTAMPTZ,
    next_retry_at            TIMESTAMPTZ,
    amount_at_risk           DECIMAL(18,2),
    currency                 VARCHAR,
    PRIMARY KEY (run_id, merchant_id, subscription_id)
);

-- key: run_id, merchant_id, currency (currency may be NULL for
-- subscriptions that carry none).
CREATE TABLE IF NOT EXISTS subscription_metrics (
    run_id          VARCHAR NOT NULL,
    business_date   DATE NOT NULL,
    merchant_id     VARCHAR NOT NULL,
    currency        VARCHAR,
    subscriptions   INTEGER NOT NULL,
    active          INTEGER NOT NULL,
    delinquent      INTEGER NOT NULL,
    suspended       INTEGER NOT NULL,
    mrr             DECIMAL(18,2) NOT NULL,
    mrr_at_risk     DECIMAL(18,2) NOT NULL,
    churned_today   INTEGER NOT NULL,
    cancelled_today INTEGER NOT NULL,
    suspended_today INTEGER NOT NULL,
    recovered_today INTEGER NOT NULL,
    skipped_cycles  INTEGER NOT NULL,
    deferred_amount DECIMAL(18,2) NOT NULL
);

CREATE TABLE IF NOT EXISTS billing_match (
    run_id          VARCHAR NOT NULL,
    business_date   DATE NOT NULL,
    merchant_id     VARCHAR NOT NULL,
    payment_id      VARCHAR NOT NULL,
    leg             VARCHAR NOT NULL,
    class           VARCHAR NOT NULL,
    flagged         BOOLEAN NOT NULL,
    reasons         VARCHAR,
    subscription_id VARCHAR,
    transaction_id  VARCHAR,
    billing_cycle   INTEGER,
    payment_date    TIMESTAMPTZ,
    payment_status  VARCHAR,
    amount          DECIMAL(18,2),
    currency        VARCHAR,
    found_amount    DECIMAL(18,2),
    found_currency  VARCHAR,
    found_status    VARCHAR,
    PRIMARY KEY (run_id, merchant_id, payment_id, leg)
);

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

-- What every table, view and column of the working database holds, as DuckDB
-- comments: analysts read them with `reconcile sql --tables [TABLE]`, the
-- DuckDB CLI (`SELECT comment FROM duckdb_columns()`) or a BI tool's catalog,
-- and they travel with the published snapshot. Applied after schema.sql and
-- migrations.sql on every open, so a comment edited here reaches existing
-- files. A test fails when a column has none: add one with the column.

COMMENT ON TABLE groups IS 'The organization''s groups (group management), as last listed. One row per group.';
COMMENT ON COLUMN groups.group_id IS 'Group ID at the platform.';
COMMENT ON COLUMN groups.organization_id IS 'Organization the group belongs to.';
COMMENT ON COLUMN groups.name IS 'Group name.';
COMMENT ON COLUMN groups.description IS 'Group description.';
COMMENT ON COLUMN groups.type IS 'Group type, as the platform reports it.';
COMMENT ON COLUMN groups.created_time IS 'When the group was created (UTC).';
COMMENT ON COLUMN groups.updated_time IS 'When the group was last changed (UTC).';
COMMENT ON COLUMN groups.raw IS 'The platform''s group record as received.';
COMMENT ON COLUMN groups.run_id IS 'Run that last listed the group.';
COMMENT ON COLUMN groups.loaded_at IS 'When that run stored the row (UTC).';

COMMENT ON TABLE group_members IS 'Which merchant IDs (MIDs) belong to which group. A MID may be in several groups.';
COMMENT ON COLUMN group_members.group_id IS 'Group ID.';
COMMENT ON COLUMN group_members.merchant_id IS 'Member merchant ID (MID).';
COMMENT ON COLUMN group_members.run_id IS 'Run that last listed this membership; the groups a run listed carry its run_id.';

COMMENT ON TABLE plans IS 'Recurring billing plans of each member, current state.';
COMMENT ON COLUMN plans.merchant_id IS 'Merchant ID (MID) owning the plan.';
COMMENT ON COLUMN plans.plan_id IS 'Plan ID at the platform.';
COMMENT ON COLUMN plans.code IS 'Merchant''s plan code.';
COMMENT ON COLUMN plans.name IS 'Plan name.';
COMMENT ON COLUMN plans.description IS 'Plan description.';
COMMENT ON COLUMN plans.status IS 'Plan status (ACTIVE, DRAFT, ...).';
COMMENT ON COLUMN plans.billing_period_length IS 'Length of one billing period, in billing_period_unit.';
COMMENT ON COLUMN plans.billing_period_unit IS 'Unit of the billing period (D, W, M, Y).';
COMMENT ON COLUMN plans.cycles_total IS 'Number of billing cycles; NULL when the plan bills until cancelled.';
COMMENT ON COLUMN plans.billing_amount IS 'Amount billed each cycle, in currency.';
COMMENT ON COLUMN plans.setup_fee IS 'One-time setup fee, in currency.';
COMMENT ON COLUMN plans.currency IS 'ISO 4217 currency code of the amounts.';
COMMENT ON COLUMN plans.raw IS 'The platform''s plan record as received.';
COMMENT ON COLUMN plans.run_id IS 'Run that last loaded the row.';
COMMENT ON COLUMN plans.loaded_at IS 'When that run stored the row (UTC).';

COMMENT ON TABLE subscriptions IS 'Subscriptions of each member, current state, with their payment list''s totals.';
COMMENT ON COLUMN subscriptions.merchant_id IS 'Merchant ID (MID) owning the subscription.';
COMMENT ON COLUMN subscriptions.subscription_id IS 'Subscription ID at the platform.';
COMMENT ON COLUMN subscriptions.code IS 'Merchant''s subscription code.';
COMMENT ON COLUMN subscriptions.plan_id IS 'Plan the subscription follows (plans.plan_id).';
COMMENT ON COLUMN subscriptions.plan_code IS 'Merchant''s code of that plan.';
COMMENT ON COLUMN subscriptions.name IS 'Subscription name.';
COMMENT ON COLUMN subscriptions.status IS 'Current status: ACTIVE, DELINQUENT (a payment declined, being retried), SUSPENDED, CANCELLED, COMPLETED, ...';
COMMENT ON COLUMN subscriptions.start_date IS 'When billing starts (UTC).';
COMMENT ON COLUMN subscriptions.customer_id IS 'Customer (token) the subscription charges.';
COMMENT ON COLUMN subscriptions.client_reference IS 'Merchant''s reference code.';
COMMENT ON COLUMN subscriptions.billing_amount IS 'Amount billed each cycle, in currency.';
COMMENT ON COLUMN subscriptions.setup_fee IS 'One-time setup fee, in currency.';
COMMENT ON COLUMN subscriptions.currency IS 'ISO 4217 currency code of the amounts.';
COMMENT ON COLUMN subscriptions.billing_period_length IS 'Length of one billing period, in billing_period_unit.';
COMMENT ON COLUMN subscriptions.billing_period_unit IS 'Unit of the billing period (D, W, M, Y).';
COMMENT ON COLUMN subscriptions.cycles_total IS 'Number of billing cycles; NULL when billing until cancelled.';
COMMENT ON COLUMN subscriptions.cycles_current IS 'Billing cycle the subscription is in.';
COMMENT ON COLUMN subscriptions.payments_total_count IS 'Number of payments in the subscription''s payment list.';
COMMENT ON COLUMN subscriptions.billing_cycles_to_skip IS 'Cycles the merchant asked to skip (JSON array).';
COMMENT ON COLUMN subscriptions.cycles_completed IS 'Cycles completed so far (JSON), as the platform reports them.';
COMMENT ON COLUMN subscriptions.payments_pulled_at IS 'When the subscription''s payment list was last pulled (UTC); lists unchanged since are not pulled again.';
COMMENT ON COLUMN subscriptions.raw IS 'The platform''s subscription record as received.';
COMMENT ON COLUMN subscriptions.run_id IS 'Run that last loaded the row.';
COMMENT ON COLUMN subscriptions.loaded_at IS 'When that run stored the row (UTC).';

COMMENT ON TABLE subscription_payments IS 'Every payment of each subscription''s payment list: past, scheduled and skipped.';
COMMENT ON COLUMN subscription_payments.merchant_id IS 'Merchant ID (MID) owning the subscription.';
COMMENT ON COLUMN subscription_payments.payment_id IS 'Payment ID at the platform.';
COMMENT ON COLUMN subscription_payments.subscription_id IS 'Subscription the payment belongs to (subscriptions.subscription_id).';
COMMENT ON COLUMN subscription_payments.status IS 'Payment status: PAID, FAILED, SCHEDULED, SCHEDULED_SKIPPED, ...';
COMMENT ON COLUMN subscription_payments.payment_type IS 'Payment type, as the platform reports it (e.g. SETUP, RECURRING).';
COMMENT ON COLUMN subscription_payments.billing_cycle IS 'Billing cycle the payment is for.';
COMMENT ON COLUMN subscription_payments.payment_number IS 'Position of the payment in the list.';
COMMENT ON COLUMN subscription_payments.payment_date IS 'When the payment was or will be made (UTC).';
COMMENT ON COLUMN subscription_payments.billing_start_date IS 'Start of the billing period paid for (UTC).';
COMMENT ON COLUMN subscription_payments.billing_end_date IS 'End of the billing period paid for (UTC).';
COMMENT ON COLUMN subscription_payments.billing_amount IS 'Amount billed for the cycle, in currency.';
COMMENT ON COLUMN subscription_payments.setup_fee IS 'Setup fee charged with this payment, in currency.';
COMMENT ON COLUMN subscription_payments.surcharge_amount IS 'Surcharge added to this payment, in currency.';
COMMENT ON COLUMN subscription_payments.surcharge_description IS 'What the surcharge is for.';
COMMENT ON COLUMN subscription_payments.currency IS 'ISO 4217 currency code of the amounts.';
COMMENT ON COLUMN subscription_payments.transaction_id IS 'Platform transaction that collected the payment (transactions.transaction_id).';
COMMENT ON COLUMN subscription_payments.modifiable IS 'Whether the merchant can still change or skip the payment.';
COMMENT ON COLUMN subscription_payments.raw IS 'The platform''s payment record as received.';
COMMENT ON COLUMN subscription_payments.run_id IS 'Run that last loaded the row.';
COMMENT ON COLUMN subscription_payments.loaded_at IS 'When that run stored the row (UTC).';

COMMENT ON TABLE transactions IS 'Transaction Search results over each run''s window: the platform''s record of every payment transaction.';
COMMENT ON COLUMN transactions.merchant_id IS 'Merchant ID (MID) of the transaction.';
COMMENT ON COLUMN transactions.transaction_id IS 'Transaction ID at the platform (the id of its response).';
COMMENT ON COLUMN transactions.submit_time IS 'When the transaction was submitted (UTC); the window is on this time.';
COMMENT ON COLUMN transactions.status IS 'Transaction status (AUTHORIZED, PENDING, DECLINED, ...).';
COMMENT ON COLUMN transactions.reason_code IS 'Platform reason code of the outcome.';
COMMENT ON COLUMN transactions.r_code IS 'rCode of the transaction''s applications (1 = success).';
COMMENT ON COLUMN transactions.r_flag IS 'rFlag of the transaction''s applications.';
COMMENT ON COLUMN transactions.application_names IS 'Applications run, comma separated (ics_auth, ics_bill, ics_credit, ...).';
COMMENT ON COLUMN transactions.applications IS 'Applications with their rCodes and rFlags (JSON).';
COMMENT ON COLUMN transactions.amount IS 'Total amount, in currency.';
COMMENT ON COLUMN transactions.currency IS 'ISO 4217 currency code of the amount.';
COMMENT ON COLUMN transactions.card_bin IS 'First 6 to 8 digits of the card number (the BIN); joins bin_attributes.bin.';
COMMENT ON COLUMN transactions.card_last4 IS 'Last 4 digits of the card number.';
COMMENT ON COLUMN transactions.card_type IS 'Card type code as the platform reports it.';
COMMENT ON COLUMN transactions.customer_id IS 'Customer token used, if any.';
COMMENT ON COLUMN transactions.instrument_identifier_id IS 'Instrument identifier token of the card, if any.';
COMMENT ON COLUMN transactions.payment_solution IS 'Payment solution (wallet, ...), if any.';
COMMENT ON COLUMN transactions.commerce_indicator IS 'Commerce indicator (internet, recurring, ...).';
COMMENT ON COLUMN transactions.business_application_id IS 'Business application ID, if any.';
COMMENT ON COLUMN transactions.client_reference IS 'Merchant''s reference code.';
COMMENT ON COLUMN transactions.raw IS 'The platform''s search record as received.';
COMMENT ON COLUMN transactions.run_id IS 'Run that last loaded the row.';
COMMENT ON COLUMN transactions.loaded_at IS 'When that run stored the row (UTC).';

COMMENT ON TABLE journal IS 'The merchants'' own request/response journals: one row per call, card numbers truncated on import.';
COMMENT ON COLUMN journal.merchant_id IS 'Merchant ID (MID) that made the call.';
COMMENT ON COLUMN journal.file IS 'Journal file the line came from.';
COMMENT ON COLUMN journal.line IS 'Line number in that file.';
COMMENT ON COLUMN journal.time IS 'When the call was made (UTC).';
COMMENT ON COLUMN journal.method IS 'HTTP method.';
COMMENT ON COLUMN journal.path IS 'Request path.';
COMMENT ON COLUMN journal.status IS 'HTTP status of the response.';
COMMENT ON COLUMN journal.call_kind IS 'What the call was: authorization, capture, sale, credit, refund, reversal, ...';
COMMENT ON COLUMN journal.transaction_id IS 'ID of the platform''s response to the call (transactions.transaction_id).';
COMMENT ON COLUMN journal.parent_id IS 'For a follow-on call (capture, refund, ...): the ID of the transaction it refers to.';
COMMENT ON COLUMN journal.card_bin IS 'BIN of the card sent, if the call carried a card.';
COMMENT ON COLUMN journal.card_last4 IS 'Last 4 digits of the card sent, if any.';
COMMENT ON COLUMN journal.amount IS 'Total amount of the call, in currency.';
COMMENT ON COLUMN journal.currency IS 'ISO 4217 currency code of the amount.';
COMMENT ON COLUMN journal.purchase_level IS 'processingInformation.purchaseLevel sent (3 = Level III).';
COMMENT ON COLUMN journal.line_item_count IS 'Number of line items sent.';
COMMENT ON COLUMN journal.level3_status IS 'Level III transmission status the response reported, normalised to Y or N.';
COMMENT ON COLUMN journal.request IS 'Request body as sent (JSON), card numbers truncated.';
COMMENT ON COLUMN journal.response IS 'Response body as received (JSON), card numbers truncated.';
COMMENT ON COLUMN journal.file_sha256 IS 'SHA-256 of the journal file (journal_files.sha256).';
COMMENT ON COLUMN journal.imported_at IS 'When the line was imported (UTC).';

COMMENT ON TABLE journal_files IS 'Journal files imported; a file whose content (SHA-256) is already here is not imported again.';
COMMENT ON COLUMN journal_files.sha256 IS 'SHA-256 of the file''s content.';
COMMENT ON COLUMN journal_files.file IS 'Path of the file when imported.';
COMMENT ON COLUMN journal_files.lines IS 'Lines in the file.';
COMMENT ON COLUMN journal_files.loaded IS 'Lines loaded into journal.';
COMMENT ON COLUMN journal_files.rejected IS 'Lines rejected into journal_rejects.';
COMMENT ON COLUMN journal_files.imported_at IS 'When the file was imported (UTC).';

COMMENT ON TABLE journal_rejects IS 'Journal lines that could not be loaded, with the reason; their text has card numbers masked.';
COMMENT ON COLUMN journal_rejects.file IS 'Journal file.';
COMMENT ON COLUMN journal_rejects.line IS 'Line number in that file.';
COMMENT ON COLUMN journal_rejects.reason IS 'Why the line was rejected.';
COMMENT ON COLUMN journal_rejects.text IS 'The line''s text, card numbers masked.';
COMMENT ON COLUMN journal_rejects.file_sha256 IS 'SHA-256 of the journal file (journal_files.sha256).';
COMMENT ON COLUMN journal_rejects.imported_at IS 'When the line was read (UTC).';

COMMENT ON TABLE bin_attributes IS 'BIN lookup results, one row per BIN, cached for 30 days.';
COMMENT ON COLUMN bin_attributes.bin IS 'The BIN (first 6 to 8 digits of a card number).';
COMMENT ON COLUMN bin_attributes.lookup_status IS 'Lookup outcome: COMPLETED, MULTIPLE (several card types share the BIN) or NO MATCH.';
COMMENT ON COLUMN bin_attributes.resolved_by IS 'How a MULTIPLE answer was resolved (the token retried with), if it was.';
COMMENT ON COLUMN bin_attributes.funding_source IS 'Account funding source: CREDIT, DEBIT, PREPAID, CHARGE, ...';
COMMENT ON COLUMN bin_attributes.funding_source_sub_type IS 'Funding source sub-type (e.g. RELOADABLE for prepaid).';
COMMENT ON COLUMN bin_attributes.card_platform IS 'Card platform: CONSUMER or COMMERCIAL (commercial cards qualify for Level III).';
COMMENT ON COLUMN bin_attributes.card_product IS 'Card product name (e.g. Visa Purchasing).';
COMMENT ON COLUMN bin_attributes.health_card IS 'Whether the card is a health-care (HSA/FSA) card.';
COMMENT ON COLUMN bin_attributes.brand IS 'Card brand (VISA, MASTERCARD, ...).';
COMMENT ON COLUMN bin_attributes.card_type IS 'Card type code.';
COMMENT ON COLUMN bin_attributes.issuer_name IS 'Issuing bank.';
COMMENT ON COLUMN bin_attributes.issuer_country IS 'Issuer''s country (ISO 3166 alpha-2).';
COMMENT ON COLUMN bin_attributes.raw IS 'The lookup response as received.';
COMMENT ON COLUMN bin_attributes.looked_up_at IS 'When the BIN was looked up (UTC).';

COMMENT ON TABLE findings IS 'What the checks found, per run. state says new, open or resolved against the previous run; count a run''s findings with state IN (''new'', ''open'') or use the view current_findings.';
COMMENT ON COLUMN findings.run_id IS 'Run that reported the finding (runs.run_id).';
COMMENT ON COLUMN findings.business_date IS 'Business date of that run.';
COMMENT ON COLUMN findings.kind IS 'Kind of finding; see finding_kinds for what each means and what to do.';
COMMENT ON COLUMN findings.merchant_id IS 'Merchant ID (MID) the finding is about.';
COMMENT ON COLUMN findings.entity_id IS 'What the finding is about: a payment, subscription, transaction ID or BIN, depending on the kind.';
COMMENT ON COLUMN findings.group_id IS 'A group of the merchant (the lowest ID when it is in several); group_members has them all.';
COMMENT ON COLUMN findings.amount IS 'Amount at stake, in currency; NULL when the kind has none.';
COMMENT ON COLUMN findings.currency IS 'ISO 4217 currency code of the amount.';
COMMENT ON COLUMN findings.detail IS 'Facts behind the finding (JSON), per kind.';
COMMENT ON COLUMN findings.first_seen_run IS 'Earliest run that reported the same kind, merchant and entity.';
COMMENT ON COLUMN findings.state IS 'new: not reported by the previous run; open: reported by the previous run too; resolved: reported by the previous run, not by this one (the row repeats the previous run''s values; only for members this run reconciled).';

COMMENT ON TABLE runs IS 'The run log: one row per business date (re-running a date replaces it).';
COMMENT ON COLUMN runs.run_id IS 'Run ID: the business date (YYYY-MM-DD).';
COMMENT ON COLUMN runs.business_date IS 'Business date (UTC) the run reconciles.';
COMMENT ON COLUMN runs.shard IS 'Shard i/n of the members this run took.';
COMMENT ON COLUMN runs.window_start IS 'Start of the window read: business date minus lookback days, 00:00 UTC.';
COMMENT ON COLUMN runs.window_end IS 'End of the window (exclusive): the day after the business date, 00:00 UTC.';
COMMENT ON COLUMN runs.started_at IS 'When the last attempt started (UTC).';
COMMENT ON COLUMN runs.finished_at IS 'When it finished (UTC); NULL while running.';
COMMENT ON COLUMN runs.status IS 'running, ok, partial (some members failed or a problem was recorded) or failed.';
COMMENT ON COLUMN runs.attempts IS 'How many times the date was run.';
COMMENT ON COLUMN runs.members_total IS 'Members the run had to reconcile.';
COMMENT ON COLUMN runs.members_ok IS 'Members reconciled.';
COMMENT ON COLUMN runs.members_failed IS 'Members that failed (see run_members.error).';
COMMENT ON COLUMN runs.members_skipped IS 'Members an earlier attempt of the date had already completed.';
COMMENT ON COLUMN runs.requests IS 'HTTP requests sent, retries included.';
COMMENT ON COLUMN runs.retries IS 'Requests that were retries.';
COMMENT ON COLUMN runs.findings IS 'Findings reported (new and open; resolved not counted).';
COMMENT ON COLUMN runs.error IS 'Why the run failed, or its first problem.';
COMMENT ON COLUMN runs.version IS 'reconcile version that ran.';
COMMENT ON COLUMN runs.previous_run IS 'Run the findings were compared with for new/open/resolved: the latest earlier run of the same shard that finished ok or partial.';

COMMENT ON TABLE run_members IS 'Per run, each member''s outcome: status, error, rows pulled, requests.';
COMMENT ON COLUMN run_members.run_id IS 'Run (runs.run_id).';
COMMENT ON COLUMN run_members.merchant_id IS 'Member merchant ID (MID).';
COMMENT ON COLUMN run_members.status IS 'ok, failed or skipped.';
COMMENT ON COLUMN run_members.error IS 'Why the member failed.';
COMMENT ON COLUMN run_members.started_at IS 'When the member''s pull started (UTC).';
COMMENT ON COLUMN run_members.finished_at IS 'When it finished (UTC).';
COMMENT ON COLUMN run_members.plans IS 'Plans pulled.';
COMMENT ON COLUMN run_members.subscriptions IS 'Subscriptions pulled.';
COMMENT ON COLUMN run_members.payments IS 'Subscription payments pulled.';
COMMENT ON COLUMN run_members.transactions IS 'Transactions pulled.';
COMMENT ON COLUMN run_members.requests IS 'HTTP requests sent for the member, retries included.';
COMMENT ON COLUMN run_members.retries IS 'Requests that were retries.';

COMMENT ON TABLE finding_kinds IS 'The finding kinds the checks report, with what each means and what to do about it (from queries/findings/*.sql). Refreshed by every run.';
COMMENT ON COLUMN finding_kinds.kind IS 'Kind (findings.kind).';
COMMENT ON COLUMN finding_kinds.position IS 'Order in which reports list the kinds.';
COMMENT ON COLUMN finding_kinds.description IS 'What a finding of this kind means.';
COMMENT ON COLUMN finding_kinds.action IS 'What to do about it.';

COMMENT ON VIEW current_findings IS 'The findings each run reports (state new or open), without the resolved ones.';
COMMENT ON COLUMN current_findings.run_id IS 'Run that reported the finding.';
COMMENT ON COLUMN current_findings.business_date IS 'Business date of that run.';
COMMENT ON COLUMN current_findings.kind IS 'Kind of finding (finding_kinds.kind).';
COMMENT ON COLUMN current_findings.merchant_id IS 'Merchant ID (MID).';
COMMENT ON COLUMN current_findings.entity_id IS 'Payment, subscription, transaction ID or BIN, depending on the kind.';
COMMENT ON COLUMN current_findings.group_id IS 'A group of the merchant (the lowest ID).';
COMMENT ON COLUMN current_findings.amount IS 'Amount at stake, in currency.';
COMMENT ON COLUMN current_findings.currency IS 'ISO 4217 currency code of the amount.';
COMMENT ON COLUMN current_findings.detail IS 'Facts behind the finding (JSON).';
COMMENT ON COLUMN current_findings.first_seen_run IS 'Earliest run that reported it.';
COMMENT ON COLUMN current_findings.state IS 'new (not in the previous run) or open (in the previous run too).';

-- The payments audit (queries/payments.sql, docs/payments-audit.md).
COMMENT ON COLUMN journal.purchase_order_number IS 'orderInformation.invoiceDetails.purchaseOrderNumber sent (Level II; required on purchasing/procurement cards).';
COMMENT ON COLUMN journal.level3_missing IS 'For a call sent with purchaseLevel 3: the required Level III line-item fields left out (commodityCode, discountAmount, productCode, quantity, unitOfMeasure, unitPrice), e.g. lineItems[1].unitOfMeasure, or lineItems when none were sent; comma separated.';
COMMENT ON COLUMN journal.percent_rates IS 'Tax or discount rates written as a percent (a value above 1, e.g. lineItems[0].taxDetails[0].rate=8.25) where the spec writes a fraction (0.0825); comma separated.';
COMMENT ON COLUMN journal.response_status IS 'status of the platform''s response (AUTHORIZED, DECLINED, PENDING, FAILED, ACCEPTED, ...).';
COMMENT ON COLUMN journal.network_transaction_id IS 'processorInformation.networkTransactionId of the response.';
COMMENT ON COLUMN journal.approval_code IS 'processorInformation.approvalCode of the response.';
COMMENT ON COLUMN journal.commerce_indicator IS 'processingInformation.commerceIndicator sent (internet, MOTO, recurring, install, a payer authentication value).';
COMMENT ON COLUMN journal.initiator_type IS 'authorizationOptions.initiator.type sent: customer (a CIT) or merchant (an MIT), lower case.';
COMMENT ON COLUMN journal.credential_stored IS 'initiator.credentialStoredOnFile true: the CIT that stores the card for later MITs.';
COMMENT ON COLUMN journal.stored_credential_used IS 'initiator.storedCredentialUsed true: a transaction using stored credentials.';
COMMENT ON COLUMN journal.mit_reason IS 'merchantInitiatedTransaction.reason sent (4 no-show, 7 recurring or subscription, 10 unscheduled, ...).';
COMMENT ON COLUMN journal.previous_transaction_id IS 'merchantInitiatedTransaction.previousTransactionId sent: the original (or last) transaction of the stored credential.';
COMMENT ON COLUMN journal.action_list IS 'processingInformation.actionList sent, comma separated (TOKEN_CREATE, AP_SESSIONS, AP_AUTH, ...).';
COMMENT ON COLUMN journal.product_subtype IS 'paymentInformation.card.productSubtype sent (HC for a healthcare payment).';
COMMENT ON COLUMN journal.healthcare_amount IS 'Sum of the healthCareInformation.amountDetails of amountType healthcare (the total healthcare amount), in currency.';
COMMENT ON COLUMN journal.healthcare_detail_amount IS 'Sum of the other healthcare amount types (prescription, clinic, dental, vision), in currency.';
COMMENT ON COLUMN journal.healthcare_amount_count IS 'Number of healthCareInformation.amountDetails entries sent; NULL when none.';
COMMENT ON COLUMN journal.payment_type IS 'paymentInformation.paymentType.name sent (INVOICE for buy-now-pay-later).';
COMMENT ON COLUMN journal.session_token IS 'Buy-now-pay-later session token: the session''s processorInformation.token, or the preApprovalToken an authorization sent.';
COMMENT ON COLUMN journal.country IS 'orderInformation.billTo.country sent, else shipTo.country, upper case.';
COMMENT ON COLUMN journal.installment_id IS 'installmentInformation.id of the response: the installment plan acceptance.';
COMMENT ON COLUMN journal.plan_id IS 'installmentInformation.planId sent or answered.';
COMMENT ON COLUMN journal.ref_network_transaction_id IS 'authorizationOptions.networkTransactionId sent: the authorization an installment call refers to.';
COMMENT ON COLUMN journal.ref_authorization_code IS 'authorizationOptions.authorizationCode sent: the authorization an installment call refers to.';
COMMENT ON COLUMN journal.refund_amount IS 'processingInformation.refundOptions.refundAmount sent: a partial refund made through an installment plan cancel, in currency.';
COMMENT ON COLUMN journal.payment_solution IS 'processingInformation.paymentSolution sent (001 Apple Pay, 012 Google Pay, ...; view payment_solutions).';
COMMENT ON COLUMN journal.wallet_data IS 'Whether the call sent wallet payment data (paymentInformation.fluidData).';
COMMENT ON COLUMN journal.terminal_id IS 'pointOfSaleInformation.terminalId of the response (else the request): the contactless terminal.';
COMMENT ON COLUMN journal.inspect_version IS 'Version of the inspection that derived the columns above from request and response; older rows are inspected again on the next run.';

COMMENT ON VIEW journal_cards IS 'The card of each journaled call: the card number it sent, else Transaction Search''s record of its transaction, else the authorization a follow-on call refers to. Calls without a card are absent.';
COMMENT ON COLUMN journal_cards.merchant_id IS 'Merchant ID (MID) that made the call.';
COMMENT ON COLUMN journal_cards.file IS 'Journal file (journal.file).';
COMMENT ON COLUMN journal_cards.line IS 'Line number in that file (journal.line).';
COMMENT ON COLUMN journal_cards.transaction_id IS 'ID of the platform''s response to the call.';
COMMENT ON COLUMN journal_cards.card_bin IS 'BIN (first 6 digits) of the call''s card; joins bin_attributes.bin.';
COMMENT ON COLUMN journal_cards.card_last4 IS 'Last 4 digits of the call''s card.';

COMMENT ON VIEW funding_sources IS 'Transactions (Transaction Search) by the funding source, platform, product and health-card flag of their card''s BIN, per member, UTC day and currency. Filter on day for a run''s window.';
COMMENT ON COLUMN funding_sources.merchant_id IS 'Merchant ID (MID).';
COMMENT ON COLUMN funding_sources.day IS 'UTC day the transactions were submitted.';
COMMENT ON COLUMN funding_sources.has_card IS 'False for transactions without a card (buy-now-pay-later).';
COMMENT ON COLUMN funding_sources.funding_source IS 'Funding source of the BIN (CREDIT, DEBIT, PREPAID, CHARGE, ...); NULL when unknown or no card.';
COMMENT ON COLUMN funding_sources.card_platform IS 'Card platform of the BIN (CONSUMER, COMMERCIAL).';
COMMENT ON COLUMN funding_sources.card_product IS 'Card product of the BIN.';
COMMENT ON COLUMN funding_sources.health_card IS 'Whether the BIN is a health-care (HSA/FSA) card.';
COMMENT ON COLUMN funding_sources.currency IS 'ISO 4217 currency code of the amounts.';
COMMENT ON COLUMN funding_sources.transactions IS 'Transactions of any kind (authorizations, sales, captures, credits, declines).';
COMMENT ON COLUMN funding_sources.captured IS 'Approved sales and captures (applications ics_bill or ics_ap_capture, rCode 1): the money collected.';
COMMENT ON COLUMN funding_sources.captured_amount IS 'Amount of those, in currency.';

COMMENT ON VIEW payment_solutions IS 'The processingInformation.paymentSolution codes and the wallet or network token each names (platform facts).';
COMMENT ON COLUMN payment_solutions.code IS 'Payment solution code.';
COMMENT ON COLUMN payment_solutions.name IS 'Wallet or network token it names.';

COMMENT ON VIEW wallet_mix IS 'Transactions (Transaction Search) by device wallet or network token (paymentSolution), per member, UTC day and currency. Filter on day for a run''s window.';
COMMENT ON COLUMN wallet_mix.merchant_id IS 'Merchant ID (MID).';
COMMENT ON COLUMN wallet_mix.day IS 'UTC day the transactions were submitted.';
COMMENT ON COLUMN wallet_mix.payment_solution IS 'Payment solution code; NULL for a plain card or no card.';
COMMENT ON COLUMN wallet_mix.wallet IS 'What the code names (payment_solutions), or (no wallet).';
COMMENT ON COLUMN wallet_mix.currency IS 'ISO 4217 currency code of the amounts.';
COMMENT ON COLUMN wallet_mix.transactions IS 'Transactions of any kind.';
COMMENT ON COLUMN wallet_mix.captured IS 'Approved sales and captures: the money collected.';
COMMENT ON COLUMN wallet_mix.captured_amount IS 'Amount of those, in currency.';

COMMENT ON VIEW terminal_activity IS 'Contactless acceptance: journaled authorizations and sales that name a terminal (pointOfSaleInformation.terminalId), per member, terminal, UTC day and currency.';
COMMENT ON COLUMN terminal_activity.merchant_id IS 'Merchant ID (MID).';
COMMENT ON COLUMN terminal_activity.terminal_id IS 'Terminal ID.';
COMMENT ON COLUMN terminal_activity.day IS 'UTC day of the calls.';
COMMENT ON COLUMN terminal_activity.currency IS 'ISO 4217 currency code of the amounts.';
COMMENT ON COLUMN terminal_activity.transactions IS 'Authorizations and sales answered 2xx.';
COMMENT ON COLUMN terminal_activity.approved IS 'Those not answered DECLINED or FAILED.';
COMMENT ON COLUMN terminal_activity.approved_amount IS 'Amount of the approved ones, in currency.';
COMMENT ON COLUMN terminal_activity.first_time IS 'First call of the day on the terminal (UTC).';
COMMENT ON COLUMN terminal_activity.last_time IS 'Last call of the day on the terminal (UTC).';

COMMENT ON TABLE interchange_rates IS 'The interchange rate table of the last run: per card network, how much lower the Level II and Level III rates are than the standard commercial rate, as fractions. From --interchange-rates, else the documented default (an assumption, see docs/payments-audit.md).';
COMMENT ON COLUMN interchange_rates.network IS 'Card network as bin_attributes.brand names it (VISA, MASTERCARD, ...); * applies to networks not listed.';
COMMENT ON COLUMN interchange_rates.level2_rate IS 'Standard commercial rate minus the Level II rate, as a fraction of the amount (0.005 = 0.5 percentage points).';
COMMENT ON COLUMN interchange_rates.level3_rate IS 'Standard commercial rate minus the Level III rate, as a fraction of the amount.';
COMMENT ON COLUMN interchange_rates.source IS 'Where the rate came from: default, or the file given.';
COMMENT ON COLUMN interchange_rates.loaded_at IS 'When the run loaded it (UTC).';

COMMENT ON TABLE interchange_at_risk IS 'Per run, member, card network and currency: the estimated interchange at risk on commercial-card calls that lost Level III (commercial_card_without_level3, level3_not_transmitted, level3_incomplete) or Level II (level2_missing_po). An estimate from interchange_rates, not an invoice.';
COMMENT ON COLUMN interchange_at_risk.run_id IS 'Run (runs.run_id).';
COMMENT ON COLUMN interchange_at_risk.merchant_id IS 'Merchant ID (MID).';
COMMENT ON COLUMN interchange_at_risk.network IS 'Card network of the calls (* when the BIN names none).';
COMMENT ON COLUMN interchange_at_risk.currency IS 'ISO 4217 currency code of the amounts.';
COMMENT ON COLUMN interchange_at_risk.calls IS 'Calls at risk, each counted once whatever number of findings it has.';
COMMENT ON COLUMN interchange_at_risk.level3_calls IS 'Of those, calls that lost Level III.';
COMMENT ON COLUMN interchange_at_risk.level2_calls IS 'Of those, calls that kept Level III but lost Level II (no purchase order on a purchasing card).';
COMMENT ON COLUMN interchange_at_risk.amount IS 'Amount of the calls, in currency.';
COMMENT ON COLUMN interchange_at_risk.level2_rate IS 'Level II rate difference used (interchange_rates).';
COMMENT ON COLUMN interchange_at_risk.level3_rate IS 'Level III rate difference used (interchange_rates).';
COMMENT ON COLUMN interchange_at_risk.at_risk IS 'Estimated extra interchange: each call''s amount times its lost rate difference, rounded to the cent, summed; in currency.';

COMMENT ON VIEW installment_events IS 'Selected installment plans (journaled plan acceptances) and what happened to them: one row per capture, refund of a capture, reversal, cancel or partial refund through the plan (event NULL for a plan with none), each answered 2xx.';
COMMENT ON COLUMN installment_events.merchant_id IS 'Merchant ID (MID).';
COMMENT ON COLUMN installment_events.installment_id IS 'Plan acceptance id (installmentInformation.id).';
COMMENT ON COLUMN installment_events.plan_id IS 'Plan selected.';
COMMENT ON COLUMN installment_events.accepted_at IS 'When the plan was selected (UTC).';
COMMENT ON COLUMN installment_events.authorization_id IS 'The authorization the plan is linked to (by network transaction id, else approval code); NULL when the journals do not hold it.';
COMMENT ON COLUMN installment_events.amount IS 'The authorization''s amount, in currency.';
COMMENT ON COLUMN installment_events.currency IS 'ISO 4217 currency code of the amounts.';
COMMENT ON COLUMN installment_events.event IS 'capture, refund (of a capture), reversal (of the authorization), cancel (of the plan) or plan_refund (a partial refund through the plan''s cancel endpoint).';
COMMENT ON COLUMN installment_events.event_id IS 'Response id of the event''s call.';
COMMENT ON COLUMN installment_events.event_time IS 'When the event''s call was made (UTC).';
COMMENT ON COLUMN installment_events.event_amount IS 'Amount captured, refunded or reversed, in currency; NULL for a cancel.';

-- The recurring-billing reconciliation (queries/billing.sql, docs/billing.md).
COMMENT ON TABLE subscription_schedules IS 'Each subscription''s billing schedule as the product projects it (subscriptions package rules) up to the cut-off of the run that last loaded its member: period, cycles due, next due date, retry policy, 12-month check, monthly value.';
COMMENT ON COLUMN subscription_schedules.merchant_id IS 'Merchant ID (MID) owning the subscription.';
COMMENT ON COLUMN subscription_schedules.subscription_id IS 'Subscription (subscriptions.subscription_id).';
COMMENT ON COLUMN subscription_schedules.period_unit IS 'Billing period unit used (D, W, M, Y): the subscription''s, else its plan''s.';
COMMENT ON COLUMN subscription_schedules.period_length IS 'Billing period length, in period_unit.';
COMMENT ON COLUMN subscription_schedules.cycles_total IS 'Number of cycles; NULL when billing until cancelled.';
COMMENT ON COLUMN subscription_schedules.start_date IS 'Start date the cycles count from (UTC): cycle n falls due n-1 periods after it.';
COMMENT ON COLUMN subscription_schedules.cut_off IS 'Cut-off of the projection: the end of the run''s window (UTC).';
COMMENT ON COLUMN subscription_schedules.cycles_due IS 'Cycles that fell due before the cut-off (expected_cycles has each).';
COMMENT ON COLUMN subscription_schedules.last_due_date IS 'When the last of those fell due (UTC).';
COMMENT ON COLUMN subscription_schedules.next_due_date IS 'When the next cycle falls due (UTC); NULL when no cycle is left.';
COMMENT ON COLUMN subscription_schedules.projection_cut IS 'True when more cycles fell due than the projection lists (over 10,000).';
COMMENT ON COLUMN subscription_schedules.retry_limit IS 'Retries the documented schedule allows a failed payment: daily 1, weekly 3, monthly 5, yearly 3.';
COMMENT ON COLUMN subscription_schedules.retry_interval IS 'Time between retries by the documented schedule: daily 1 hour, weekly 1 day, monthly 2 days, yearly 15 days.';
COMMENT ON COLUMN subscription_schedules.retry_tolerance IS 'How far a retry may fall from the schedule and still be on it: a tenth of retry_interval.';
COMMENT ON COLUMN subscription_schedules.within_12_months IS 'Whether the period respects the 12-month limit between payments (at most 12 M, 1 Y, 52 W, 365 D); NULL when it could not be read.';
COMMENT ON COLUMN subscription_schedules.monthly_amount IS 'Billing amount normalised to a month, for MRR: D × 30.4375 / length, W × 52 / 12 / length, M / length, Y / (12 × length).';
COMMENT ON COLUMN subscription_schedules.currency IS 'ISO 4217 currency code of the amounts.';
COMMENT ON COLUMN subscription_schedules.problem IS 'Why no schedule could be projected (no start date, an unknown period), else NULL.';
COMMENT ON COLUMN subscription_schedules.run_id IS 'Run that last loaded the row.';
COMMENT ON COLUMN subscription_schedules.loaded_at IS 'When that run stored the row (UTC).';

COMMENT ON TABLE expected_cycles IS 'Every billing cycle a subscription''s schedule says fell due before the cut-off (subscription_schedules), with what it should bill; missed_cycle compares them with the payment lists.';
COMMENT ON COLUMN expected_cycles.merchant_id IS 'Merchant ID (MID) owning the subscription.';
COMMENT ON COLUMN expected_cycles.subscription_id IS 'Subscription (subscriptions.subscription_id).';
COMMENT ON COLUMN expected_cycles.cycle IS 'Billing cycle number (subscription_payments.billing_cycle).';
COMMENT ON COLUMN expected_cycles.due_date IS 'When the cycle fell due (UTC).';
COMMENT ON COLUMN expected_cycles.billing_amount IS 'Amount the cycle should bill, in currency: the subscription''s billing amount.';
COMMENT ON COLUMN expected_cycles.setup_fee IS 'Setup fee the cycle should add (cycle 1 only), in currency.';
COMMENT ON COLUMN expected_cycles.currency IS 'ISO 4217 currency code of the amounts.';
COMMENT ON COLUMN expected_cycles.run_id IS 'Run that last loaded the row.';
COMMENT ON COLUMN expected_cycles.loaded_at IS 'When that run stored the row (UTC).';

COMMENT ON TABLE subscription_status_log IS 'Subscription status history: one row per subscription and run where its status or customer token changed since an earlier run saw it (or that first saw it). Its status as of a run is its latest row at or before that run.';
COMMENT ON COLUMN subscription_status_log.merchant_id IS 'Merchant ID (MID) owning the subscription.';
COMMENT ON COLUMN subscription_status_log.subscription_id IS 'Subscription (subscriptions.subscription_id).';
COMMENT ON COLUMN subscription_status_log.run_id IS 'Run that saw the change (runs.run_id).';
COMMENT ON COLUMN subscription_status_log.business_date IS 'Business date of that run.';
COMMENT ON COLUMN subscription_status_log.status IS 'Status the run saw.';
COMMENT ON COLUMN subscription_status_log.customer_id IS 'Customer token the run saw.';
COMMENT ON COLUMN subscription_status_log.previous_status IS 'Status when an earlier run last saw it; NULL when none had.';
COMMENT ON COLUMN subscription_status_log.previous_customer_id IS 'Customer token when an earlier run last saw it.';
COMMENT ON COLUMN subscription_status_log.previous_run IS 'That earlier run.';

COMMENT ON TABLE subscription_recoveries IS 'Per run, the subscriptions DELINQUENT or SUSPENDED when an earlier run last saw them and ACTIVE (or COMPLETED) now, with how they recovered where the data tells.';
COMMENT ON COLUMN subscription_recoveries.run_id IS 'Run that saw the recovery.';
COMMENT ON COLUMN subscription_recoveries.business_date IS 'Business date of that run.';
COMMENT ON COLUMN subscription_recoveries.merchant_id IS 'Merchant ID (MID) owning the subscription.';
COMMENT ON COLUMN subscription_recoveries.subscription_id IS 'Subscription (subscriptions.subscription_id).';
COMMENT ON COLUMN subscription_recoveries.previous_status IS 'DELINQUENT or SUSPENDED: its status when an earlier run last saw it.';
COMMENT ON COLUMN subscription_recoveries.status IS 'ACTIVE, or COMPLETED when the retry paid its last cycle.';
COMMENT ON COLUMN subscription_recoveries.previous_run IS 'The earlier run.';
COMMENT ON COLUMN subscription_recoveries.how IS 'card_updated (the customer token changed since it went delinquent), retry_succeeded (its latest payment since the earlier run is a PAID retry), reactivated (it was SUSPENDED) or unknown.';
COMMENT ON COLUMN subscription_recoveries.payment_id IS 'Its latest PAID payment, when made since the earlier run''s cut-off.';
COMMENT ON COLUMN subscription_recoveries.paid_at IS 'When that payment was made (UTC).';
COMMENT ON COLUMN subscription_recoveries.amount IS 'What that payment collected (billing amount + setup fee + surcharge), in currency.';
COMMENT ON COLUMN subscription_recoveries.currency IS 'ISO 4217 currency code of the amount.';

COMMENT ON TABLE delinquency_ageing IS 'Per run, every DELINQUENT and SUSPENDED subscription of the reconciled members: how long since its payment first failed, retries done and remaining, amount at risk.';
COMMENT ON COLUMN delinquency_ageing.run_id IS 'Run (runs.run_id).';
COMMENT ON COLUMN delinquency_ageing.business_date IS 'Business date the ages count to.';
COMMENT ON COLUMN delinquency_ageing.merchant_id IS 'Merchant ID (MID) owning the subscription.';
COMMENT ON COLUMN delinquency_ageing.subscription_id IS 'Subscription (subscriptions.subscription_id).';
COMMENT ON COLUMN delinquency_ageing.status IS 'DELINQUENT or SUSPENDED.';
COMMENT ON COLUMN delinquency_ageing.failed_cycle IS 'The failing cycle: the latest with a FAILED payment and none PAID; NULL when no payment failed (suspended by the merchant).';
COMMENT ON COLUMN delinquency_ageing.first_failed_at IS 'When that cycle''s payment first failed (UTC).';
COMMENT ON COLUMN delinquency_ageing.days_since_first_failure IS 'Calendar days (UTC) from that first failure to the business date.';
COMMENT ON COLUMN delinquency_ageing.age_bucket IS '0-7, 8-14, 15-30, 31-60, 61-90 or over 90 days; no failed payment when none failed.';
COMMENT ON COLUMN delinquency_ageing.retries_done IS 'Retries of the failing cycle so far.';
COMMENT ON COLUMN delinquency_ageing.retries_remaining IS 'Retries the documented schedule still allows (DELINQUENT); 0 once SUSPENDED.';
COMMENT ON COLUMN delinquency_ageing.last_attempt_at IS 'When the cycle was last attempted (UTC).';
COMMENT ON COLUMN delinquency_ageing.next_retry_at IS 'When the next retry is due by the documented schedule: (retries done + 1) intervals after the first failure (UTC); NULL when none remains.';
COMMENT ON COLUMN delinquency_ageing.amount_at_risk IS 'The failed payment: billing amount + setup fee + surcharge, in currency; the billing amount when no payment failed.';
COMMENT ON COLUMN delinquency_ageing.currency IS 'ISO 4217 currency code of the amount.';

COMMENT ON TABLE subscription_metrics IS 'Per run, member and currency: subscriptions by status, MRR, churned and recovered today, and what skipped cycles defer. Key: run_id, merchant_id, currency.';
COMMENT ON COLUMN subscription_metrics.run_id IS 'Run (runs.run_id).';
COMMENT ON COLUMN subscription_metrics.business_date IS 'Business date of that run.';
COMMENT ON COLUMN subscription_metrics.merchant_id IS 'Merchant ID (MID).';
COMMENT ON COLUMN subscription_metrics.currency IS 'ISO 4217 currency code of the subscriptions counted and of the amounts.';
COMMENT ON COLUMN subscription_metrics.subscriptions IS 'Subscriptions in this currency, any status.';
COMMENT ON COLUMN subscription_metrics.active IS 'Subscriptions ACTIVE.';
COMMENT ON COLUMN subscription_metrics.delinquent IS 'Subscriptions DELINQUENT (a payment declined, being retried).';
COMMENT ON COLUMN subscription_metrics.suspended IS 'Subscriptions SUSPENDED.';
COMMENT ON COLUMN subscription_metrics.mrr IS 'Monthly recurring revenue: the monthly value (subscription_schedules.monthly_amount) of the ACTIVE and DELINQUENT subscriptions.';
COMMENT ON COLUMN subscription_metrics.mrr_at_risk IS 'The DELINQUENT part of mrr.';
COMMENT ON COLUMN subscription_metrics.churned_today IS 'Subscriptions that went from PENDING, ACTIVE or DELINQUENT to CANCELLED or SUSPENDED since an earlier run saw them.';
COMMENT ON COLUMN subscription_metrics.cancelled_today IS 'Of those, CANCELLED.';
COMMENT ON COLUMN subscription_metrics.suspended_today IS 'Of those, SUSPENDED.';
COMMENT ON COLUMN subscription_metrics.recovered_today IS 'Subscriptions recovered (subscription_recoveries of the run).';
COMMENT ON COLUMN subscription_metrics.skipped_cycles IS 'Cycles skipped, still to come (SCHEDULED_SKIPPED) or past (SKIPPED).';
COMMENT ON COLUMN subscription_metrics.deferred_amount IS 'Billing amount of those cycles, not collected.';

COMMENT ON TABLE billing_match IS 'Per run, the exceptions of the three-way match of subscription payments (PAID or FAILED, dated in the window) with their transaction (leg transaction) and the merchant''s journal of payment notifications (leg journal): missing, late (absent but may still arrive; not flagged) or mismatch.';
COMMENT ON COLUMN billing_match.run_id IS 'Run (runs.run_id).';
COMMENT ON COLUMN billing_match.business_date IS 'Business date of that run.';
COMMENT ON COLUMN billing_match.merchant_id IS 'Merchant ID (MID).';
COMMENT ON COLUMN billing_match.payment_id IS 'Subscription payment (subscription_payments.payment_id).';
COMMENT ON COLUMN billing_match.leg IS 'transaction (Transaction Search) or journal (the merchant''s notification journal).';
COMMENT ON COLUMN billing_match.class IS 'missing (absent; the payment is on the window''s first day, this run is the last to look), late (absent; later in the window) or mismatch (present, differing).';
COMMENT ON COLUMN billing_match.flagged IS 'True for missing and mismatch, which need action; late is reported only.';
COMMENT ON COLUMN billing_match.reasons IS 'For a mismatch: amount, currency and/or status.';
COMMENT ON COLUMN billing_match.subscription_id IS 'Subscription of the payment.';
COMMENT ON COLUMN billing_match.transaction_id IS 'Transaction the payment names.';
COMMENT ON COLUMN billing_match.billing_cycle IS 'Billing cycle of the payment.';
COMMENT ON COLUMN billing_match.payment_date IS 'Date of the payment (UTC).';
COMMENT ON COLUMN billing_match.payment_status IS 'PAID or FAILED.';
COMMENT ON COLUMN billing_match.amount IS 'What the leg should show: billing amount + setup fee + surcharge (transaction), billing amount + setup fee (journal), in currency.';
COMMENT ON COLUMN billing_match.currency IS 'The payment''s currency.';
COMMENT ON COLUMN billing_match.found_amount IS 'What the leg shows (transaction amount; notification billingAmount + setupFee).';
COMMENT ON COLUMN billing_match.found_currency IS 'Currency the leg shows.';
COMMENT ON COLUMN billing_match.found_status IS 'Outcome the leg shows: the transaction''s status, or the notification''s event.';

COMMENT ON VIEW skipped_deferrals IS 'Per subscription, the cycles skipped and the billing amount they defer: still to come (SCHEDULED_SKIPPED) and past (SKIPPED).';
COMMENT ON COLUMN skipped_deferrals.merchant_id IS 'Merchant ID (MID) owning the subscription.';
COMMENT ON COLUMN skipped_deferrals.subscription_id IS 'Subscription.';
COMMENT ON COLUMN skipped_deferrals.currency IS 'ISO 4217 currency code of the amounts.';
COMMENT ON COLUMN skipped_deferrals.skipped_cycles IS 'Cycles still to come that the merchant skipped (SCHEDULED_SKIPPED).';
COMMENT ON COLUMN skipped_deferrals.skipped_amount IS 'Their billing amount, not to be collected.';
COMMENT ON COLUMN skipped_deferrals.past_skipped_cycles IS 'Cycles whose date passed skipped (SKIPPED).';
COMMENT ON COLUMN skipped_deferrals.past_skipped_amount IS 'Their billing amount, not collected.';
COMMENT ON COLUMN skipped_deferrals.deferred_amount IS 'skipped_amount + past_skipped_amount.';
COMMENT ON COLUMN skipped_deferrals.cycles IS 'The skipped cycle numbers, comma separated.';

