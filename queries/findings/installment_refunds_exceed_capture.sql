-- Title: Installment over-refunded
-- Means: An installment purchase was refunded more than was collected.
-- Do: Recover the excess and refund installment purchases through one channel only.
-- A selected installment plan whose refunds add up to more than was
-- captured: the refunds of its authorization's captures plus the partial
-- refunds made through the plan (cancel with a refundAmount), against the
-- captures of the authorization, all answered 2xx in the merchants'
-- journals up to the run's cut-off (view installment_events, which counts
-- each call once by its response id, however often the journals hold it:
-- a replayed file, a call logged twice). The spec: multiple partial
-- refunds cannot exceed the captured amount; the platform checks each way
-- of refunding on its own, not the two together. Reported when the latest
-- refund is inside the window. Entity: the plan acceptance id; amount: the
-- excess (refunded minus captured); detail: both sums.
-- Action: recover the excess from the customer or the provider and
-- reconcile the plan's refunds with finance; refund through one channel
-- only.
WITH e AS (
    SELECT * FROM installment_events WHERE event_time < getvariable('window_end')
),
sums AS (
    SELECT merchant_id, installment_id, any_value(currency) AS currency, any_value(plan_id) AS plan_id,
           any_value(authorization_id) AS authorization_id,
           coalesce(sum(event_amount) FILTER (WHERE event = 'capture'), 0) AS captured,
           coalesce(sum(event_amount) FILTER (WHERE event = 'refund'), 0) AS refunded_captures,
           coalesce(sum(event_amount) FILTER (WHERE event = 'plan_refund'), 0) AS refunded_plan,
           max(event_time) FILTER (WHERE event IN ('refund', 'plan_refund')) AS last_refund
    FROM e
    GROUP BY merchant_id, installment_id
)
SELECT
    merchant_id,
    installment_id AS entity_id,
    refunded_captures + refunded_plan - captured AS amount,
    currency,
    json_object('plan_id', plan_id, 'authorization_id', authorization_id, 'captured', captured,
                'refunded_captures', refunded_captures, 'refunded_through_plan', refunded_plan,
                'last_refund', last_refund) AS detail
FROM sums
WHERE refunded_captures + refunded_plan > captured
  AND last_refund >= getvariable('window_start') AND last_refund < getvariable('window_end')
