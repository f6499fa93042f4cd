-- Title: Installments still running
-- Means: Money was given back on an installment purchase, but the installment plan was not cancelled: the customer keeps paying.
-- Do: Cancel the installment plan and confirm the customer's installments stop.
-- A selected installment plan whose authorization was reversed, or one of
-- whose captures was refunded, after the selection, and that no cancel of
-- the plan (POST /fin/v1/plan-acceptance/cancel without a refundAmount,
-- answered 2xx) followed the selection, per the merchants' journals up to
-- the run's cut-off (view installment_events). The spec requires the
-- cancel once a plan was selected: the customer would go on paying
-- installments on money given back. Not limited to the window: a plan is
-- reported every run until it is cancelled. Entity: the plan acceptance id
-- (installmentInformation.id); amount: its authorization's amount.
-- Action: cancel the installment plan (by network transaction id or
-- authorization code, as it was selected) and confirm the customer's
-- installments stop.
SELECT
    merchant_id,
    installment_id AS entity_id,
    any_value(amount) AS amount,
    any_value(currency) AS currency,
    json_object('plan_id', any_value(plan_id), 'accepted_at', any_value(accepted_at),
                'authorization_id', any_value(authorization_id),
                'reversed_at', min(event_time) FILTER (WHERE event = 'reversal'),
                'refunded_at', min(event_time) FILTER (WHERE event = 'refund')) AS detail
FROM installment_events
WHERE accepted_at < getvariable('window_end')
GROUP BY merchant_id, installment_id
HAVING count(*) FILTER (WHERE event IN ('reversal', 'refund') AND event_time > accepted_at
                          AND event_time < getvariable('window_end')) > 0
   AND count(*) FILTER (WHERE event = 'cancel' AND event_time > accepted_at
                          AND event_time < getvariable('window_end')) = 0
