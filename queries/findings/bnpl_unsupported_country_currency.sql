-- Title: Pay-later country unsupported
-- Means: A buy-now-pay-later payment was tried for a country and currency the service does not support; it fails.
-- Do: Take these orders by card instead; offer pay-later only in supported countries.
-- A buy-now-pay-later session or authorization (a call on
-- /pts/v2/payment-references, or on /pts/v2/payments with actionList AP_AUTH)
-- answered 2xx in the window whose country (orderInformation.billTo.country,
-- else shipTo.country) and currency are not a pair the service supports:
-- AU AUD, CA CAD (written CAN in the spec; both accepted), NZ NZD, GB GBP,
-- US USD. A missing country or currency counts as unsupported. The platform
-- answers such an authorization FAILED. Entity: the platform's response id;
-- amount: the call's amount; detail: the pair sent and the answer.
-- Action: offer buy-now-pay-later only to customers billed in a supported
-- country and its currency; take these orders by card instead.
SELECT
    j.merchant_id,
    j.transaction_id AS entity_id,
    j.amount,
    j.currency,
    json_object('call_kind', j.call_kind, 'time', j.time, 'country', j.country, 'currency', j.currency,
                'response_status', j.response_status, 'file', j.file, 'line', j.line,
                'client_reference', coalesce(j.request->'clientReferenceInformation'->>'code',
                                              j.response->'clientReferenceInformation'->>'code')) AS detail
FROM journal j
WHERE (j.call_kind = 'bnpl_session'
       OR (j.call_kind = 'authorization' AND list_contains(string_split(coalesce(j.action_list, ''), ','), 'AP_AUTH')))
  AND j.status BETWEEN 200 AND 299
  AND j.transaction_id IS NOT NULL
  AND j.time >= getvariable('window_start') AND j.time < getvariable('window_end')
  AND NOT EXISTS (
      SELECT 1 FROM (VALUES ('AU', 'AUD'), ('CA', 'CAD'), ('CA', 'CAN'), ('NZ', 'NZD'), ('GB', 'GBP'), ('US', 'USD')) AS s(country, currency)
      WHERE s.country = j.country AND s.currency = upper(j.currency))
QUALIFY row_number() OVER (PARTITION BY j.merchant_id, j.transaction_id ORDER BY j.time, j.file, j.line) = 1
