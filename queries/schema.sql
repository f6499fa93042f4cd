-- The tables of reconcile's working database, each in full: a new file is
-- made by this file alone, and an older file is brought to the same shape
-- by migrations.sql (run after it); the views follow in views.sql and the
-- comment on every table and column in comments.sql. Every statement is
-- idempotent, so opening an existing file applies what is missing and
-- changes nothing else.
-- Amounts are DECIMAL(18,3) next to their currency (three decimals: the
-- minor unit of KWD, BHD, JOD, OMR, TND; JPY has none, USD two); times are TIMESTAMPTZ in UTC.
-- `raw` columns keep the platform's record as received (card data masked), for audit.
--
-- The bulk tables (plans, subscriptions, subscription_payments,
-- transactions, journal) declare their key in a comment, not as a PRIMARY
-- KEY: the loader keeps each key unique itself (it deletes the keys it is
-- about to insert, in the same transaction), and DuckDB's index maintenance
-- would halve the load rate. The tests check every key for duplicates.

SET TimeZone = 'UTC';

-- The digest of the schema last applied to this file (store.Open): a file
-- already at this version's schema, its tables and views all there, is not
-- given it again on every open.
CREATE TABLE IF NOT EXISTS schema_digest (
    digest  VARCHAR NOT NULL,
    objects INTEGER
);

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
    billing_amount        DECIMAL(18,3),
    setup_fee             DECIMAL(18,3),
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
    billing_amount         DECIMAL(18,3),
    setup_fee              DECIMAL(18,3),
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
    billing_amount        DECIMAL(18,3),
    setup_fee             DECIMAL(18,3),
    surcharge_amount      DECIMAL(18,3),
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
    amount                   DECIMAL(18,3),
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

-- key: merchant_id, file, line. The merchants' calls as journaled (card
-- data masked), then the facts calls.Inspect derives from each (see
-- ingest/journal_facts.go), the same order as an older file's columns
-- after migrations.sql. Rows imported by an older inspection are inspected
-- again from their stored request and response (inspect_version).
CREATE TABLE IF NOT EXISTS journal (
    merchant_id                VARCHAR NOT NULL,
    file                       VARCHAR NOT NULL,
    line                       INTEGER NOT NULL,
    time                       TIMESTAMPTZ,
    method                     VARCHAR,
    path                       VARCHAR,
    status                     INTEGER,
    call_kind                  VARCHAR,
    transaction_id             VARCHAR,
    parent_id                  VARCHAR,
    card_bin                   VARCHAR,
    card_last4                 VARCHAR,
    amount                     DECIMAL(18,3),
    currency                   VARCHAR,
    purchase_level             VARCHAR,
    line_item_count            INTEGER,
    level3_status              VARCHAR,
    request                    JSON,
    response                   JSON,
    file_sha256                VARCHAR NOT NULL,
    imported_at                TIMESTAMPTZ NOT NULL,
    purchase_order_number      VARCHAR,
    level3_missing             VARCHAR,
    percent_rates              VARCHAR,
    response_status            VARCHAR,
    network_transaction_id     VARCHAR,
    approval_code              VARCHAR,
    commerce_indicator         VARCHAR,
    initiator_type             VARCHAR,
    credential_stored          BOOLEAN,
    stored_credential_used     BOOLEAN,
    mit_reason                 VARCHAR,
    previous_transaction_id    VARCHAR,
    action_list                VARCHAR,
    product_subtype            VARCHAR,
    healthcare_amount          DECIMAL(18,3),
    healthcare_detail_amount   DECIMAL(18,3),
    healthcare_amount_count    INTEGER,
    payment_type               VARCHAR,
    session_token              VARCHAR,
    country                    VARCHAR,
    installment_id             VARCHAR,
    plan_id                    VARCHAR,
    ref_network_transaction_id VARCHAR,
    ref_authorization_code     VARCHAR,
    refund_amount              DECIMAL(18,3),
    payment_solution           VARCHAR,
    wallet_data                BOOLEAN,
    terminal_id                VARCHAR,
    inspect_version            INTEGER,
    card_type                  VARCHAR,
    processor_response_code    VARCHAR,
    merchant_advice_code       VARCHAR,
    merchant_advice_code_raw   VARCHAR,
    client_reference           VARCHAR
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
    amount         DECIMAL(18,3),
    currency       VARCHAR,
    detail         JSON,
    first_seen_run VARCHAR NOT NULL,
    state          VARCHAR,
    ack_owner      VARCHAR,
    ack_reason     VARCHAR,
    ack_until      DATE,
    ack_ticket     VARCHAR,
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
    version         VARCHAR,
    previous_run    VARCHAR
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
    products_not_enabled VARCHAR,
    not_enabled_message  VARCHAR,
    PRIMARY KEY (run_id, merchant_id)
);

-- Records of a member not loaded because an amount has more decimals than
-- its currency has (ISO 4217: "12.5" JPY, "12.3456" KWD): never rounded,
-- kept here with the reason while the rest of the member loads.
CREATE TABLE IF NOT EXISTS kept_aside (
    run_id      VARCHAR NOT NULL,
    merchant_id VARCHAR NOT NULL,
    record      VARCHAR NOT NULL,
    record_id   VARCHAR NOT NULL,
    field       VARCHAR,
    value       VARCHAR,
    currency    VARCHAR,
    reason      VARCHAR,
    raw         JSON,
    loaded_at   TIMESTAMPTZ,
    PRIMARY KEY (run_id, merchant_id, record, record_id)
);

-- The finding kinds of the catalog (queries/findings/*.sql), refreshed by
-- every run, so that SQL users and BI tools can join a kind to its meaning.
CREATE TABLE IF NOT EXISTS finding_kinds (
    kind        VARCHAR PRIMARY KEY,
    position    INTEGER NOT NULL,
    description VARCHAR NOT NULL,
    action      VARCHAR NOT NULL
);

-- The payments audit beyond recurring billing (docs/payments-audit.md).

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
    amount       DECIMAL(18,3) NOT NULL,
    level2_rate  DECIMAL(9,6) NOT NULL,
    level3_rate  DECIMAL(9,6) NOT NULL,
    at_risk      DECIMAL(18,3) NOT NULL,
    PRIMARY KEY (run_id, merchant_id, network, currency)
);

-- The card networks' limits on reattempts of a declined card that the
-- run's reattempts_over_network_limit applied: per network, at most
-- `reattempts` reattempts of the same card at the same merchant within a
-- rolling window_length, customer- and merchant-initiated ones counted
-- apart or together. Replaced by every run, from --retry-limits or the
-- documented default (docs/payments-audit.md). Key: network,
-- window_length (DuckDB indexes no INTERVAL; the loader refuses a network
-- and window given twice).
CREATE TABLE IF NOT EXISTS retry_limits (
    network       VARCHAR NOT NULL,
    reattempts    INTEGER NOT NULL,
    window_length INTERVAL NOT NULL,
    cit_mit_apart BOOLEAN NOT NULL,
    source        VARCHAR NOT NULL,
    loaded_at     TIMESTAMPTZ NOT NULL
);

-- The recurring-billing reconciliation (docs/billing.md): the schedule the
-- product projects for each subscription (written with each member's load,
-- by ingest from the subscriptions package's rules), and what each run
-- reports of recurring billing beside its findings (written after the
-- checks, by package checks from queries/billing/*.sql).

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
    monthly_amount   DECIMAL(18,3),
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
    billing_amount  DECIMAL(18,3),
    setup_fee       DECIMAL(18,3),
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
    amount          DECIMAL(18,3),
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
    amount_at_risk           DECIMAL(18,3),
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
    mrr             DECIMAL(18,3) NOT NULL,
    mrr_at_risk     DECIMAL(18,3) NOT NULL,
    churned_today   INTEGER NOT NULL,
    cancelled_today INTEGER NOT NULL,
    suspended_today INTEGER NOT NULL,
    recovered_today INTEGER NOT NULL,
    skipped_cycles  INTEGER NOT NULL,
    deferred_amount DECIMAL(18,3) NOT NULL
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
    amount          DECIMAL(18,3),
    currency        VARCHAR,
    found_amount    DECIMAL(18,3),
    found_currency  VARCHAR,
    found_status    VARCHAR,
    PRIMARY KEY (run_id, merchant_id, payment_id, leg)
);

-- What the recurring billing service's payment notifications (the
-- merchants' billing journals) call each merchant: the one place the
-- platform gives a merchant's name. Per run and member, written with the
-- recurring-billing reports (queries/billing/merchant_names.sql).
CREATE TABLE IF NOT EXISTS merchant_names (
    run_id        VARCHAR NOT NULL,
    business_date DATE NOT NULL,
    merchant_id   VARCHAR NOT NULL,
    name          VARCHAR NOT NULL,
    seen_at       TIMESTAMPTZ,
    PRIMARY KEY (run_id, merchant_id)
);

-- Acknowledgements (docs/workbook.md, "Acknowledging findings"): a finding
-- someone knows about and handles, until a date. The table holds those in
-- force, one per finding (kind, merchant, entity); one that ends (revoked,
-- expired, or reopened because the finding's amount changed) is deleted,
-- and every change is kept in acknowledgement_audit. Written by `reconcile
-- ack`, by a run's --acknowledgements file and by the checks (package
-- checks, queries/acknowledgements.sql).
CREATE TABLE IF NOT EXISTS acknowledgements (
    kind            VARCHAR NOT NULL,
    merchant_id     VARCHAR NOT NULL,
    entity_id       VARCHAR NOT NULL,
    reason          VARCHAR NOT NULL,
    owner           VARCHAR NOT NULL,
    until           DATE NOT NULL,
    ticket          VARCHAR,
    amount_recorded BOOLEAN NOT NULL,
    amount          DECIMAL(18,3),
    currency        VARCHAR,
    source          VARCHAR NOT NULL,
    created_at      TIMESTAMPTZ NOT NULL,
    created_by      VARCHAR NOT NULL,
    updated_at      TIMESTAMPTZ NOT NULL,
    updated_by      VARCHAR NOT NULL,
    PRIMARY KEY (kind, merchant_id, entity_id)
);

-- Every change to an acknowledgement, oldest first by seq: who made it,
-- when, what, and the acknowledgement before and after (JSON, NULL where
-- there was none). seq is numbered by the statements that insert (one
-- writer at a time), not by a DEFAULT nextval(): DuckDB 1.4 fails to
-- replay a write-ahead log holding a comment on a table whose column has
-- such a default.
CREATE TABLE IF NOT EXISTS acknowledgement_audit (
    seq         BIGINT NOT NULL,
    changed_at  TIMESTAMPTZ NOT NULL,
    changed_by  VARCHAR NOT NULL,
    action      VARCHAR NOT NULL,
    source      VARCHAR NOT NULL,
    run_id      VARCHAR,
    kind        VARCHAR NOT NULL,
    merchant_id VARCHAR NOT NULL,
    entity_id   VARCHAR NOT NULL,
    before      JSON,
    after       JSON,
    PRIMARY KEY (seq)
);

-- Changes made once to the data of a file an older version wrote, each
-- by its name when done (ingest.MaskOlderRecords).
CREATE TABLE IF NOT EXISTS upgrades (
    name    VARCHAR PRIMARY KEY,
    done_at TIMESTAMPTZ NOT NULL
);

-- The Reporting API's interchange clearing levels, chargebacks and
-- retrievals (ingest/disputes.go), one row per record of a member's
-- report; a run replaces the member's rows whose time falls in its window
-- and keeps older ones.
-- key: merchant_id, request_id
CREATE TABLE IF NOT EXISTS interchange_clearing (
    merchant_id           VARCHAR NOT NULL,
    request_id            VARCHAR NOT NULL,
    transaction_time      TIMESTAMPTZ,
    settlement_time       TIMESTAMPTZ,
    transaction_type      VARCHAR,
    amount                DECIMAL(18,3),
    currency              VARCHAR,
    sent_level            VARCHAR,
    cleared_level         VARCHAR,
    billback_reason_code  VARCHAR,
    billback_reason       VARCHAR,
    downgrade_reason_code VARCHAR,
    fee_expected          DECIMAL(18,3),
    fee_charged           DECIMAL(18,3),
    billback_amount       DECIMAL(18,3),
    fee_currency          VARCHAR,
    raw                   JSON,
    run_id                VARCHAR NOT NULL,
    loaded_at             TIMESTAMPTZ NOT NULL
);

-- key: merchant_id, request_id, time
CREATE TABLE IF NOT EXISTS chargebacks (
    merchant_id              VARCHAR NOT NULL,
    request_id               VARCHAR NOT NULL,
    time                     TIMESTAMPTZ NOT NULL,
    reason_code              VARCHAR,
    amount                   DECIMAL(18,3),
    currency                 VARCHAR,
    sign                     VARCHAR,
    response_due             TIMESTAMPTZ,
    original_settlement_time TIMESTAMPTZ,
    nature_of_dispute        VARCHAR,
    action                   VARCHAR,
    action_description       VARCHAR,
    card_type                VARCHAR,
    merchant_reference       VARCHAR,
    pre_dispute              VARCHAR,
    raw                      JSON,
    run_id                   VARCHAR NOT NULL,
    loaded_at                TIMESTAMPTZ NOT NULL
);

-- key: merchant_id, request_id, time
CREATE TABLE IF NOT EXISTS retrievals (
    merchant_id              VARCHAR NOT NULL,
    request_id               VARCHAR NOT NULL,
    time                     TIMESTAMPTZ NOT NULL,
    reason_code              VARCHAR,
    amount                   DECIMAL(18,3),
    currency                 VARCHAR,
    sign                     VARCHAR,
    response_due             TIMESTAMPTZ,
    original_settlement_time TIMESTAMPTZ,
    nature_of_dispute        VARCHAR,
    action                   VARCHAR,
    action_description       VARCHAR,
    card_type                VARCHAR,
    merchant_reference       VARCHAR,
    raw                      JSON,
    run_id                   VARCHAR NOT NULL,
    loaded_at                TIMESTAMPTZ NOT NULL
);

-- key: merchant_id, request_id. Settlement and funding (docs/platform.md,
-- Reporting): the purchase and refund details of each member's requests,
-- read from the reporting span before the window to its end; a request not
-- settled yet has its status (Pending) and no batch, fee or funding.
CREATE TABLE IF NOT EXISTS settlements (
    merchant_id              VARCHAR NOT NULL,
    request_id               VARCHAR NOT NULL,
    group_name               VARCHAR,
    transaction_type         VARCHAR,
    request_time             TIMESTAMPTZ,
    settlement_status        VARCHAR,
    settlement_time          TIMESTAMPTZ,
    batch_id                 VARCHAR,
    batch_time               TIMESTAMPTZ,
    amount                   DECIMAL(18,3),
    currency                 VARCHAR,
    card_type                VARCHAR,
    payment_type             VARCHAR,
    interchange_description  VARCHAR,
    interchange_percentage   DECIMAL(18,3),
    interchange_amount       DECIMAL(18,3),
    interchange_per_item_fee DECIMAL(18,3),
    discount_amount          DECIMAL(18,3),
    dues_assessments         DECIMAL(18,3),
    total_fee                DECIMAL(18,3),
    fee_currency             VARCHAR,
    funding_amount           DECIMAL(18,3),
    funding_currency         VARCHAR,
    authorization_request_id VARCHAR,
    merchant_reference       VARCHAR,
    raw                      JSON,
    run_id                   VARCHAR NOT NULL,
    loaded_at                TIMESTAMPTZ NOT NULL
);

-- key: scope_id, funding_day, currency. What was funded per day and
-- currency to a group (net-fundings with groupName) or to a member pulled
-- on its own, with the components the tie-out compares.
CREATE TABLE IF NOT EXISTS fundings (
    scope_type   VARCHAR NOT NULL,
    scope_id     VARCHAR NOT NULL,
    group_name   VARCHAR,
    merchant_id  VARCHAR NOT NULL,
    funding_day  TIMESTAMPTZ NOT NULL,
    currency     VARCHAR NOT NULL,
    purchases    DECIMAL(18,3),
    refunds      DECIMAL(18,3),
    fees         DECIMAL(18,3),
    chargebacks  DECIMAL(18,3),
    funded       DECIMAL(18,3),
    raw          JSON,
    run_id       VARCHAR NOT NULL,
    loaded_at    TIMESTAMPTZ NOT NULL
);

-- key: merchant_id, batch_day, currency, payment_subtype. The payment batch
-- summaries per member, day, currency and card type.
CREATE TABLE IF NOT EXISTS settlement_batches (
    merchant_id     VARCHAR NOT NULL,
    batch_day       TIMESTAMPTZ NOT NULL,
    currency        VARCHAR NOT NULL,
    payment_subtype VARCHAR NOT NULL,
    sales_count     INTEGER,
    sales_amount    DECIMAL(18,3),
    credit_count    INTEGER,
    credit_amount   DECIMAL(18,3),
    raw             JSON,
    run_id          VARCHAR NOT NULL,
    loaded_at       TIMESTAMPTZ NOT NULL
);
