-- The tables of a working database made before the day-over-day findings
-- and the payments audit's journal columns: queries/schema.sql of commit
-- d43effb alone, without the migrations that followed it
-- (TestMigrationsOnAnOlderFile). Do not edit.

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
