-- Title: Card type unknown
-- Means: The card's type (credit, debit, prepaid, business) could not be identified, so other checks could not judge these payments.
-- Do: Review these cards' payments by hand where business or prepaid status matters; the payment itself is not wrong.
-- A BIN whose lookup ended MULTIPLE or NO MATCH and that no token resolved:
-- its card attributes (funding source, commercial platform) stay unknown, so
-- the checks that need them cannot judge its transactions. One finding per
-- member whose in-window transactions or journal calls carry the BIN.
-- Action: review these cards' transactions by hand where commercial or prepaid
-- status matters (Level III, surcharging); the payment itself is not wrong.
WITH carried AS (
    SELECT merchant_id, card_bin AS bin, count(*) AS occurrences
    FROM transactions
    WHERE card_bin IS NOT NULL
      AND submit_time >= getvariable('window_start') AND submit_time < getvariable('window_end')
    GROUP BY ALL
    UNION ALL
    SELECT merchant_id, card_bin AS bin, count(*) AS occurrences
    FROM journal
    WHERE card_bin IS NOT NULL
      AND time >= getvariable('window_start') AND time < getvariable('window_end')
    GROUP BY ALL
)
SELECT
    c.merchant_id,
    c.bin AS entity_id,
    CAST(NULL AS DECIMAL(18,3)) AS amount,
    CAST(NULL AS VARCHAR) AS currency,
    json_object('lookup_status', any_value(b.lookup_status), 'occurrences', sum(c.occurrences)) AS detail
FROM carried c
JOIN bin_attributes b ON b.bin = c.bin
WHERE b.lookup_status IN ('MULTIPLE', 'NO MATCH')
GROUP BY c.merchant_id, c.bin
