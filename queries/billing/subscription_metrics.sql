-- Subscription metrics of the run's reconciled members for the business
-- date, per member and currency. Active, delinquent and suspended count
-- subscriptions by current status. MRR is the monthly value of the
-- subscriptions still billing (ACTIVE and DELINQUENT), each normalised to
-- a month by subscriptions.Period.MonthlyAmount
-- (subscription_schedules.monthly_amount); mrr_at_risk is the DELINQUENT
-- part. Churned today: subscriptions that went from PENDING, ACTIVE or
-- DELINQUENT to CANCELLED or SUSPENDED since an earlier run saw them
-- (this run's subscription_status_log); recovered today: this run's
-- subscription_recoveries. Skipped cycles and the amount they defer:
-- skipped_deferrals. $1 = run_id, $2 = business date.
INSERT INTO subscription_metrics (run_id, business_date, merchant_id, currency, subscriptions, active, delinquent,
                                  suspended, mrr, mrr_at_risk, churned_today, cancelled_today, suspended_today,
                                  recovered_today, skipped_cycles, deferred_amount)
WITH churn AS (
    SELECT merchant_id, subscription_id, status
    FROM subscription_status_log
    WHERE run_id = $1
      AND previous_status IN ('PENDING', 'ACTIVE', 'DELINQUENT')
      AND status IN ('CANCELLED', 'SUSPENDED')
)
SELECT $1, $2, s.merchant_id, s.currency,
       count(*),
       count(*) FILTER (WHERE s.status = 'ACTIVE'),
       count(*) FILTER (WHERE s.status = 'DELINQUENT'),
       count(*) FILTER (WHERE s.status = 'SUSPENDED'),
       coalesce(sum(sc.monthly_amount) FILTER (WHERE s.status IN ('ACTIVE', 'DELINQUENT')), 0),
       coalesce(sum(sc.monthly_amount) FILTER (WHERE s.status = 'DELINQUENT'), 0),
       count(c.subscription_id),
       count(c.subscription_id) FILTER (WHERE c.status = 'CANCELLED'),
       count(c.subscription_id) FILTER (WHERE c.status = 'SUSPENDED'),
       count(r.subscription_id),
       coalesce(sum(d.skipped_cycles + d.past_skipped_cycles), 0),
       coalesce(sum(d.deferred_amount), 0)
FROM subscriptions s
JOIN run_members rm ON rm.run_id = $1 AND rm.merchant_id = s.merchant_id AND rm.status = 'ok'
LEFT JOIN subscription_schedules sc ON sc.merchant_id = s.merchant_id AND sc.subscription_id = s.subscription_id
LEFT JOIN churn c ON c.merchant_id = s.merchant_id AND c.subscription_id = s.subscription_id
LEFT JOIN subscription_recoveries r
       ON r.run_id = $1 AND r.merchant_id = s.merchant_id AND r.subscription_id = s.subscription_id
LEFT JOIN (SELECT merchant_id, subscription_id, sum(skipped_cycles) AS skipped_cycles,
                  sum(past_skipped_cycles) AS past_skipped_cycles, sum(deferred_amount) AS deferred_amount
           FROM skipped_deferrals GROUP BY ALL) d
       ON d.merchant_id = s.merchant_id AND d.subscription_id = s.subscription_id
GROUP BY s.merchant_id, s.currency
