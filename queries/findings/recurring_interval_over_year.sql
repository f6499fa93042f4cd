-- Title: Consent older than a year
-- Means: A recurring charge was made more than a year after the card was last used, so the customer's consent has lapsed.
-- Do: Take a new payment from the customer, with consent, before billing again.
-- A recurring merchant-initiated transaction (an authorization or sale sent
-- with initiator type merchant and commerceIndicator recurring, answered
-- 2xx) in the window made more than one year after the latest earlier
-- successful transaction of its credential (answered 2xx; an
-- authorization or sale AUTHORIZED or PARTIAL_AUTHORIZED, another call not
-- DECLINED or FAILED). The credential's transactions are the call its
-- previousTransactionId names (by response id or network transaction id),
-- the other MITs naming the same previousTransactionId (the same chain),
-- and the CITs and MITs (authorizations and sales with an initiator type)
-- on the same card (same BIN and last four). Most networks want the
-- original CIT's id on every MIT ("Original transaction ID; for one network
-- the last successful transaction ID"), so a monthly subscription names a
-- CIT that grows older than a year while its credential is used every
-- month: the chain and the card say when it was last used. The spec allows
-- at most one year between credentialed recurring payments. The platform
-- checks only a previousTransactionId it is given, so a lapse behind a
-- token goes through. Entity: the MIT's response id; amount: its amount;
-- detail: the previous transaction, how it belongs to the credential
-- (previousTransactionId, same previousTransactionId, same card) and the
-- interval in calendar days.
-- Action: the customer's consent has lapsed: take a new customer-initiated
-- payment that stores the card before billing it again.
WITH mits AS (
    SELECT j.merchant_id, j.file, j.line, j.time, j.transaction_id, j.previous_transaction_id, j.amount, j.currency,
           coalesce(j.request->'clientReferenceInformation'->>'code',
                    j.response->'clientReferenceInformation'->>'code') AS client_reference,
           c.card_bin AS bin, c.card_last4 AS last4
    FROM journal j
    LEFT JOIN journal_cards c ON c.merchant_id = j.merchant_id AND c.file = j.file AND c.line = j.line
    WHERE j.call_kind IN ('authorization', 'sale')
      AND j.status BETWEEN 200 AND 299
      AND j.transaction_id IS NOT NULL
      AND j.initiator_type = 'merchant'
      AND lower(j.commerce_indicator) = 'recurring'
      AND j.time >= getvariable('window_start') AND j.time < getvariable('window_end')
),
succeeded AS (
    SELECT merchant_id, file, line, time, call_kind, initiator_type,
           transaction_id, network_transaction_id, previous_transaction_id
    FROM journal
    WHERE status BETWEEN 200 AND 299
      AND CASE WHEN call_kind IN ('authorization', 'sale') THEN payment_status_outcome(response_status) = 'approved'
               ELSE coalesce(response_status, '') NOT IN ('DECLINED', 'FAILED') END
      AND time IS NOT NULL
),
-- The successful calls that can belong to a credential, by what names it
-- (their response id, network transaction id, previousTransactionId, card),
-- one row per moment (the least response id among calls at the same time):
-- each MIT then takes the latest one before it by an ASOF join, one ordered
-- pass however often a card or a chain was charged (a join of each MIT with
-- every earlier call of its card was quadratic in them).
by_id AS (
    SELECT merchant_id, transaction_id AS name, time, min(transaction_id) AS id
    FROM succeeded WHERE transaction_id IS NOT NULL GROUP BY ALL
),
by_network_id AS (
    SELECT merchant_id, network_transaction_id AS name, time, min(transaction_id) AS id
    FROM succeeded WHERE network_transaction_id IS NOT NULL GROUP BY ALL
),
by_chain AS (
    SELECT merchant_id, previous_transaction_id AS name, time, min(transaction_id) AS id
    FROM succeeded
    WHERE previous_transaction_id IS NOT NULL AND call_kind IN ('authorization', 'sale') AND initiator_type = 'merchant'
    GROUP BY ALL
),
by_card AS (
    SELECT p.merchant_id, c.card_bin, c.card_last4, p.time, min(p.transaction_id) AS id
    FROM journal_cards c
    JOIN succeeded p ON p.merchant_id = c.merchant_id AND p.file = c.file AND p.line = c.line
    WHERE p.call_kind IN ('authorization', 'sale') AND p.initiator_type IN ('customer', 'merchant')
    GROUP BY ALL
),
credential AS (
    -- The latest earlier transaction of the MIT's credential each way it
    -- can belong to it (rank: the first wins when two are as late).
    SELECT m.merchant_id, m.transaction_id, p.time, p.id, 1 AS rank, 'previousTransactionId' AS via
    FROM mits m
    ASOF JOIN by_id p ON p.merchant_id = m.merchant_id AND p.name = m.previous_transaction_id AND m.time > p.time
    UNION ALL
    SELECT m.merchant_id, m.transaction_id, p.time, p.id, 1, 'previousTransactionId'
    FROM mits m
    ASOF JOIN by_network_id p ON p.merchant_id = m.merchant_id AND p.name = m.previous_transaction_id AND m.time > p.time
    UNION ALL
    SELECT m.merchant_id, m.transaction_id, p.time, p.id, 2, 'same previousTransactionId'
    FROM mits m
    ASOF JOIN by_chain p ON p.merchant_id = m.merchant_id AND p.name = m.previous_transaction_id AND m.time > p.time
    UNION ALL
    SELECT m.merchant_id, m.transaction_id, p.time, p.id, 3, 'same card'
    FROM mits m
    ASOF JOIN by_card p ON p.merchant_id = m.merchant_id AND p.card_bin = m.bin AND p.card_last4 = m.last4 AND m.time > p.time
),
previous AS (
    SELECT * FROM credential
    QUALIFY row_number() OVER (PARTITION BY merchant_id, transaction_id ORDER BY time DESC, rank, id) = 1
)
SELECT
    m.merchant_id,
    m.transaction_id AS entity_id,
    m.amount,
    m.currency,
    json_object('time', m.time, 'previous_transaction_id', m.previous_transaction_id,
                'previous_id', p.id, 'previous_time', p.time, 'previous_from', p.via,
                'days', date_diff('day', p.time, m.time),
                'file', m.file, 'line', m.line,
                'client_reference', m.client_reference) AS detail
FROM mits m
JOIN previous p ON p.merchant_id = m.merchant_id AND p.transaction_id = m.transaction_id
WHERE p.time < m.time - INTERVAL 1 YEAR
QUALIFY row_number() OVER (PARTITION BY m.merchant_id, m.transaction_id ORDER BY m.time, m.file, m.line) = 1
