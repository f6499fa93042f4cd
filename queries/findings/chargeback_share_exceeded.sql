-- Title: Chargebacks above threshold
-- Means: The merchant's chargebacks are above the share of its sales the card networks monitor; it risks fines and a monitoring programme.
-- Do: Find the common reason for the chargebacks and fix it; tell the account manager before the network does.
-- A member whose chargebacks are too large a share of its sales: its
-- chargebacks recorded in the window (chargebacks, GET
-- /reporting/v3/chargeback-details; a credit, sign +, is not counted) are
-- at least chargeback_share (reconcile run --chargeback-share; 0.009 when
-- unset, the Visa Dispute Monitoring Program's standard ratio,
-- docs/platform.md) of its captures in the window (transactions with rCode
-- 1 and an ics_bill or ics_ap_capture application, as the funding_sources
-- view counts them). Retrievals are no chargebacks and are not counted. The
-- networks' programs also ask for a count (100 a month for Visa's and
-- Mastercard's): not applied here, so that a member is warned before. One
-- finding per member, entity the merchant ID. Amount: the chargebacks' sum
-- when they are in one currency, else none.
-- Action: find what the reason codes share (a product, a descriptor, a
-- retry pattern) and fix it before the network's monthly count flags the
-- merchant ID.
WITH cb AS (
    SELECT merchant_id, count(*) AS chargebacks, sum(amount) AS amount,
           count(DISTINCT currency) AS currencies, any_value(currency) AS currency,
           min(time) AS first_time, max(time) AS last_time,
           string_agg(DISTINCT reason_code, ', ' ORDER BY reason_code) AS reason_codes
    FROM chargebacks
    WHERE time >= getvariable('window_start') AND time < getvariable('window_end')
      AND coalesce(trim(sign), '') <> '+'
    GROUP BY merchant_id
),
sales AS (
    SELECT t.merchant_id, count(*) AS captures
    FROM transactions t
    WHERE t.submit_time >= getvariable('window_start') AND t.submit_time < getvariable('window_end')
      AND t.r_code = '1' AND regexp_matches(coalesce(t.application_names, ''), '(^|,)(ics_bill|ics_ap_capture)(,|$)')
    GROUP BY t.merchant_id
),
shares AS (
    SELECT cb.*, coalesce(s.captures, 0) AS captures,
           coalesce(getvariable('chargeback_share'), 0.009)::DOUBLE AS threshold
    FROM cb LEFT JOIN sales s ON s.merchant_id = cb.merchant_id
)
SELECT
    merchant_id,
    merchant_id AS entity_id,
    CASE WHEN currencies = 1 THEN amount END AS amount,
    CASE WHEN currencies = 1 THEN currency END AS currency,
    json_object('time', last_time, 'chargebacks', chargebacks, 'captures', captures,
                'share', round(chargebacks / nullif(captures, 0), 4), 'threshold', threshold,
                'reason_codes', reason_codes, 'first_time', first_time) AS detail
FROM shares
WHERE chargebacks >= threshold * captures
