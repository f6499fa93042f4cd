-- Title: Stored card charged, no consent
-- Means: A stored card was charged although no earlier payment by the customer stored it with their consent.
-- Do: Find the customer's original payment; if there is none, stop charging the card and ask the customer to pay.
-- A merchant-initiated transaction (an authorization or sale sent with
-- initiator type merchant, answered 2xx) in the window on a card for which
-- the merchant's journals hold no earlier customer-initiated transaction
-- that stored it: an authorization or sale of the same merchant with
-- initiator type customer and credentialStoredOnFile true (or actionList
-- TOKEN_CREATE), answered 2xx and approved (AUTHORIZED or
-- PARTIAL_AUTHORIZED: a CIT pending authentication or review, declined by
-- the risk tool, or of an unknown status stored nothing yet), on the same
-- card
-- (same BIN and last four digits; the card of a call as in the view
-- journal_cards), made before the MIT. Stored credentials may only be used
-- after a CIT stored them. Entity: the MIT's response id; amount: its amount.
-- Action: find the CIT that stored this card (it may predate the journals
-- imported); if there is none, stop charging it as an MIT and have the
-- customer pay (and consent to storing the card) first.
WITH cits AS (
    SELECT j.merchant_id, c.card_bin, c.card_last4, j.time
    FROM journal j
    JOIN journal_cards c ON c.merchant_id = j.merchant_id AND c.file = j.file AND c.line = j.line
    WHERE j.call_kind IN ('authorization', 'sale')
      AND j.status BETWEEN 200 AND 299
      AND j.initiator_type = 'customer'
      AND (j.credential_stored OR list_contains(string_split(coalesce(j.action_list, ''), ','), 'TOKEN_CREATE'))
      AND payment_status_outcome(j.response_status) = 'approved'
)
SELECT
    j.merchant_id,
    j.transaction_id AS entity_id,
    j.amount,
    j.currency,
    json_object('call_kind', j.call_kind, 'time', j.time, 'bin', c.card_bin, 'last4', c.card_last4,
                'previous_transaction_id', j.previous_transaction_id, 'reason', j.mit_reason,
                'file', j.file, 'line', j.line,
                'client_reference', coalesce(j.request->'clientReferenceInformation'->>'code',
                                              j.response->'clientReferenceInformation'->>'code')) AS detail
FROM journal j
LEFT JOIN journal_cards c ON c.merchant_id = j.merchant_id AND c.file = j.file AND c.line = j.line
WHERE j.call_kind IN ('authorization', 'sale')
  AND j.status BETWEEN 200 AND 299
  AND j.transaction_id IS NOT NULL
  AND j.initiator_type = 'merchant'
  AND j.time >= getvariable('window_start') AND j.time < getvariable('window_end')
  AND NOT EXISTS (
      SELECT 1 FROM cits
      WHERE cits.merchant_id = j.merchant_id AND cits.card_bin = c.card_bin
        AND cits.card_last4 = c.card_last4 AND cits.time < j.time)
QUALIFY row_number() OVER (PARTITION BY j.merchant_id, j.transaction_id ORDER BY j.time, j.file, j.line) = 1
