-- Title: Funding does not tie out
-- Means: What reached the bank for a day differs from settled sales minus refunds, fees and chargebacks.
-- Do: Compare the day's funding report with the bank statement and ask the platform about the difference.
-- A funding day in the window whose funded total (net fundings, per group or
-- member and currency) differs from purchases - refunds - fees -
-- chargebacks. The finding is filed under the member the row is (the
-- group's first member); its entity is group/day/currency. Amount: the
-- difference, funded - expected.
-- Action: ask the bank and the processor for the funding detail of the
-- day; claim a shortfall, return an excess.
SELECT
    f.merchant_id,
    f.scope_id || '/' || strftime(f.funding_day, '%Y-%m-%d') || '/' || f.currency AS entity_id,
    f.funded - (coalesce(f.purchases, 0) - coalesce(f.refunds, 0) - coalesce(f.fees, 0) - coalesce(f.chargebacks, 0)) AS amount,
    f.currency,
    json_object('scope_type', f.scope_type, 'scope_id', f.scope_id, 'group_name', f.group_name,
                'funding_day', f.funding_day, 'purchases', f.purchases, 'refunds', f.refunds, 'fees', f.fees,
                'chargebacks', f.chargebacks, 'funded', f.funded,
                'expected', coalesce(f.purchases, 0) - coalesce(f.refunds, 0) - coalesce(f.fees, 0) - coalesce(f.chargebacks, 0)) AS detail
FROM fundings f
WHERE f.merchant_id IN (SELECT merchant_id FROM run_members)
  AND f.funding_day >= getvariable('window_start') AND f.funding_day < getvariable('window_end')
  AND f.funded IS NOT NULL AND f.funded <> coalesce(f.purchases, 0) - coalesce(f.refunds, 0) - coalesce(f.fees, 0) - coalesce(f.chargebacks, 0)
