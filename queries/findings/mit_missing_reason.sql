-- Title: Stored-card charge, no reason
-- Means: A charge on a stored card did not say why it was made (recurring, unscheduled, no-show); some networks decline or charge more.
-- Do: Have the merchant send the reason code on every stored-card charge.
-- A merchant-initiated transaction (an authorization or sale sent with
-- authorizationOptions.initiator.type merchant, answered 2xx) in the window
-- without merchantInitiatedTransaction.reason. The spec names the codes (4
-- no-show, 7 recurring or subscription, 10 unscheduled) and says some
-- processors and card types require one. From the merchants' journals.
-- Entity: the platform's response id; amount: the call's amount.
-- Action: send the reason code on every MIT (7 for subscriptions and
-- recurring payments, 10 unscheduled, 4 no-show); without it some networks
-- decline or downgrade the payment.
SELECT
    j.merchant_id,
    j.transaction_id AS entity_id,
    j.amount,
    j.currency,
    json_object('call_kind', j.call_kind, 'time', j.time, 'commerce_indicator', j.commerce_indicator,
                'previous_transaction_id', j.previous_transaction_id, 'response_status', j.response_status,
                'file', j.file, 'line', j.line,
                'client_reference', coalesce(j.request->'clientReferenceInformation'->>'code',
                                              j.response->'clientReferenceInformation'->>'code')) AS detail
FROM journal j
WHERE j.call_kind IN ('authorization', 'sale')
  AND j.status BETWEEN 200 AND 299
  AND j.transaction_id IS NOT NULL
  AND j.initiator_type = 'merchant'
  AND j.mit_reason IS NULL
  AND j.time >= getvariable('window_start') AND j.time < getvariable('window_end')
QUALIFY row_number() OVER (PARTITION BY j.merchant_id, j.transaction_id ORDER BY j.time, j.file, j.line) = 1
