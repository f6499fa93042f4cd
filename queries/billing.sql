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
