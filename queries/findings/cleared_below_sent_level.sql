-- Title: Cleared below its data level
-- Means: A transaction sent with Level II/III data cleared at a lower interchange level, so a higher fee was charged.
-- Do: Fix the billback reason shown (missing or wrong line-item data) so later transactions clear at their level.
-- A transaction that cleared at a lower interchange level than it was sent
-- with: the Reporting API's interchange clearing record
-- (interchange_clearing, GET /reporting/v3/interchange-clearing-level-details)
-- gives the level the merchant priced it at (sent_level, merchantPricedLevel)
-- above the level it cleared at (cleared_level, clearedLevel), e.g. Level III
-- sent, cleared standard. Levels are read as 1 (standard), 2 (Level II) and
-- 3 (Level III), whether written 3, L3, LEVEL 3, III or, for 1, STANDARD or
-- STD; a level written otherwise is not compared (unverified spellings,
-- docs/platform.md). The record's transaction time is in the window.
-- Amount: the transaction's. The detail gives the billback reason and the
-- fees: expected at the level sent, charged at the level cleared, and the
-- difference billed back.
-- Action: fix what the billback reason names (late settlement, missing
-- Level III fields) so that the next transactions clear at the level sent;
-- the difference is already charged.
WITH ranked AS (
    SELECT c.*,
           CASE regexp_replace(upper(trim(c.sent_level)), '^(LEVEL|L)[ _-]?', '')
               WHEN '3' THEN 3 WHEN 'III' THEN 3 WHEN '2' THEN 2 WHEN 'II' THEN 2
               WHEN '1' THEN 1 WHEN 'I' THEN 1 WHEN 'STANDARD' THEN 1 WHEN 'STD' THEN 1 END AS sent_rank,
           CASE regexp_replace(upper(trim(c.cleared_level)), '^(LEVEL|L)[ _-]?', '')
               WHEN '3' THEN 3 WHEN 'III' THEN 3 WHEN '2' THEN 2 WHEN 'II' THEN 2
               WHEN '1' THEN 1 WHEN 'I' THEN 1 WHEN 'STANDARD' THEN 1 WHEN 'STD' THEN 1 END AS cleared_rank
    FROM interchange_clearing c
    WHERE c.transaction_time >= getvariable('window_start') AND c.transaction_time < getvariable('window_end')
)
SELECT
    r.merchant_id,
    r.request_id AS entity_id,
    r.amount,
    r.currency,
    json_object('time', r.transaction_time, 'transaction_type', r.transaction_type,
                'sent_level', r.sent_level, 'cleared_level', r.cleared_level,
                'billback_reason_code', coalesce(r.billback_reason_code, r.downgrade_reason_code),
                'billback_reason', r.billback_reason,
                'fee_expected', r.fee_expected, 'fee_charged', r.fee_charged,
                'fee_difference', coalesce(r.billback_amount, r.fee_charged - r.fee_expected),
                'fee_currency', r.fee_currency) AS detail
FROM ranked r
WHERE r.cleared_rank < r.sent_rank
