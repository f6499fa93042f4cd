-- Title: Pay-later order not captured
-- Means: A buy-now-pay-later order was approved but never collected or cancelled: the customer's repayments have not started.
-- Do: Capture the order when it ships, or cancel the approval if it will not ship.
-- A buy-now-pay-later authorization (POST /pts/v2/payments with actionList
-- AP_AUTH) in the window answered AUTHORIZED that no capture and no
-- authorization reversal followed (a call on /pts/v2/payments/{id}/captures
-- or /reversals answered 2xx in the merchants' journals up to the run's
-- cut-off). The customer's four repayments start only when the payment is
-- captured (the flow: AUTHORIZED, capture, SETTLED). Entity: the
-- authorization's response id; amount: its amount.
-- Action: capture the order when it ships, or reverse the authorization if
-- it will not ship.
SELECT
    a.merchant_id,
    a.transaction_id AS entity_id,
    a.amount,
    a.currency,
    json_object('time', a.time, 'country', a.country, 'session_token_sent', a.session_token IS NOT NULL,
                'file', a.file, 'line', a.line,
                'client_reference', coalesce(a.request->'clientReferenceInformation'->>'code',
                                              a.response->'clientReferenceInformation'->>'code')) AS detail
FROM journal a
WHERE a.call_kind = 'authorization'
  AND list_contains(string_split(coalesce(a.action_list, ''), ','), 'AP_AUTH')
  AND a.status BETWEEN 200 AND 299
  AND a.transaction_id IS NOT NULL
  AND a.response_status = 'AUTHORIZED'
  AND a.time >= getvariable('window_start') AND a.time < getvariable('window_end')
  AND NOT EXISTS (
      SELECT 1 FROM journal f
      WHERE f.merchant_id = a.merchant_id
        AND f.parent_id = a.transaction_id
        AND f.call_kind IN ('capture', 'reversal')
        AND f.status BETWEEN 200 AND 299
        AND f.time < getvariable('window_end'))
QUALIFY row_number() OVER (PARTITION BY a.merchant_id, a.transaction_id ORDER BY a.time, a.file, a.line) = 1
