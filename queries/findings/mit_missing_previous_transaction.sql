-- Title: Stored-card charge, no link
-- Means: A charge on a stored card did not name the customer's original payment, which the card networks ask for.
-- Do: Have the merchant store the original payment's ID and send it on every stored-card charge.
-- A merchant-initiated transaction (an authorization or sale sent with
-- initiator type merchant, answered 2xx) in the window without
-- merchantInitiatedTransaction.previousTransactionId. Such an MIT is
-- accepted only with a stored token, and the platform then falls back to
-- the transaction id stored with the token, if any; the spec asks the
-- merchant to store and send the original (or network) transaction id per
-- billing agreement, and it takes precedence. (An MIT with a card number
-- and no previous id is rejected outright, so it has no transaction to
-- report.) Entity: the platform's response id; amount: the call's amount.
-- Action: store the CIT's transaction id (or network transaction id) with
-- the credential and send it as previousTransactionId on every MIT.
SELECT
    j.merchant_id,
    j.transaction_id AS entity_id,
    j.amount,
    j.currency,
    json_object('call_kind', j.call_kind, 'time', j.time, 'commerce_indicator', j.commerce_indicator,
                'reason', j.mit_reason, 'response_status', j.response_status,
                'file', j.file, 'line', j.line,
                'client_reference', coalesce(j.request->'clientReferenceInformation'->>'code',
                                              j.response->'clientReferenceInformation'->>'code')) AS detail
FROM journal j
WHERE j.call_kind IN ('authorization', 'sale')
  AND j.status BETWEEN 200 AND 299
  AND j.transaction_id IS NOT NULL
  AND j.initiator_type = 'merchant'
  AND j.previous_transaction_id IS NULL
  AND j.time >= getvariable('window_start') AND j.time < getvariable('window_end')
QUALIFY row_number() OVER (PARTITION BY j.merchant_id, j.transaction_id ORDER BY j.time, j.file, j.line) = 1
