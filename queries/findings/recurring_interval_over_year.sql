-- A recurring merchant-initiated transaction (an authorization or sale sent
-- with initiator type merchant and commerceIndicator recurring, answered
-- 2xx) in the window made more than one year after the previous transaction
-- of its credential. The previous transaction is the merchant's journaled
-- call its previousTransactionId names (by response id or network
-- transaction id; the latest such call before it), else the latest earlier
-- CIT that stored the same card (as in mit_without_prior_cit). The spec
-- allows at most one year between credentialed recurring payments. The
-- platform checks only a previousTransactionId it is given, so a lapse
-- behind a token goes through. Entity: the MIT's response id; amount: its
-- amount; detail: the previous transaction and the interval in days.
-- Action: the customer's consent has lapsed: take a new customer-initiated
-- payment that stores the card before billing it again.
WITH mits AS (
    SELECT j.*, c.card_bin AS bin, c.card_last4 AS last4
    FROM journal j
    LEFT JOIN journal_cards c ON c.merchant_id = j.merchant_id AND c.file = j.file AND c.line = j.line
    WHERE j.call_kind IN ('authorization', 'sale')
      AND j.status BETWEEN 200 AND 299
      AND j.transaction_id IS NOT NULL
      AND j.initiator_type = 'merchant'
      AND lower(j.commerce_indicator) = 'recurring'
      AND j.time >= getvariable('window_start') AND j.time < getvariable('window_end')
),
named AS (
    SELECT m.merchant_id, m.transaction_id, max(p.time) AS time, arg_max(p.transaction_id, p.time) AS id
    FROM mits m
    JOIN journal p ON p.merchant_id = m.merchant_id
     AND (p.transaction_id = m.previous_transaction_id OR p.network_transaction_id = m.previous_transaction_id)
     AND p.time < m.time
    GROUP BY ALL
),
stored AS (
    SELECT m.merchant_id, m.transaction_id, max(j.time) AS time, arg_max(j.transaction_id, j.time) AS id
    FROM mits m
    JOIN journal_cards c ON c.merchant_id = m.merchant_id AND c.card_bin = m.bin AND c.card_last4 = m.last4
    JOIN journal j ON j.merchant_id = c.merchant_id AND j.file = c.file AND j.line = c.line
    WHERE j.call_kind IN ('authorization', 'sale')
      AND j.status BETWEEN 200 AND 299
      AND j.initiator_type = 'customer'
      AND (j.credential_stored OR list_contains(string_split(coalesce(j.action_list, ''), ','), 'TOKEN_CREATE'))
      AND coalesce(j.response_status, '') NOT IN ('DECLINED', 'FAILED')
      AND j.time < m.time
    GROUP BY ALL
)
SELECT
    m.merchant_id,
    m.transaction_id AS entity_id,
    m.amount,
    m.currency,
    json_object('time', m.time, 'previous_transaction_id', m.previous_transaction_id,
                'previous_id', coalesce(n.id, s.id), 'previous_time', coalesce(n.time, s.time),
                'previous_from', CASE WHEN n.time IS NOT NULL THEN 'previousTransactionId' ELSE 'stored credential' END,
                'days', date_diff('day', coalesce(n.time, s.time), m.time),
                'file', m.file, 'line', m.line) AS detail
FROM mits m
LEFT JOIN named n ON n.merchant_id = m.merchant_id AND n.transaction_id = m.transaction_id
LEFT JOIN stored s ON s.merchant_id = m.merchant_id AND s.transaction_id = m.transaction_id
WHERE coalesce(n.time, s.time) < m.time - INTERVAL 1 YEAR
QUALIFY row_number() OVER (PARTITION BY m.merchant_id, m.transaction_id ORDER BY m.time, m.file, m.line) = 1
