-- The interchange at risk of a run ($1 = run_id), per member, card network
-- and currency: the run's current findings (new, open or acknowledged) that cost a
-- commercial-card call its Level III rate (commercial_card_without_level3,
-- level3_not_transmitted, level3_incomplete) or its Level II rate
-- (level2_missing_po), each call counted once, times the rate difference
-- of its network in interchange_rates ('*' for a network not listed).
-- A call that lost Level III counts at the full Level III difference
-- (an upper estimate when it kept Level II). Calls on consumer cards, or
-- whose BIN is not known to be commercial, earn no Level II/III rate and
-- are left out. A business card is one whose BIN's platform is BUSINESS,
-- CORPORATE, COMMERCIAL or GOVERNMENT (business_card_platform).
INSERT INTO interchange_at_risk
WITH lost AS (
    SELECT f.merchant_id, f.entity_id, any_value(f.amount) AS amount, any_value(f.currency) AS currency,
           bool_or(f.kind <> 'level2_missing_po') AS lost_level3
    FROM findings f
    WHERE f.run_id = $1 AND f.state IN ('new', 'open', 'acknowledged')
      AND f.kind IN ('commercial_card_without_level3', 'level3_not_transmitted', 'level3_incomplete', 'level2_missing_po')
      AND f.amount IS NOT NULL AND f.currency IS NOT NULL
    GROUP BY f.merchant_id, f.entity_id
),
cards AS (
    SELECT l.*, upper(b.brand) AS brand
    FROM lost l
    JOIN (SELECT merchant_id, transaction_id, any_value(card_bin) AS bin
          FROM journal_cards GROUP BY ALL) c
      ON c.merchant_id = l.merchant_id AND c.transaction_id = l.entity_id
    JOIN bin_attributes b ON b.bin = c.bin
    WHERE b.lookup_status = 'COMPLETED' AND business_card_platform(b.card_platform)
),
rated AS (
    SELECT c.*, coalesce(c.brand, '*') AS network,
           coalesce(r.level2_rate, d.level2_rate, 0) AS level2_rate,
           coalesce(r.level3_rate, d.level3_rate, 0) AS level3_rate,
           (SELECT coalesce(ic.billback_amount, ic.fee_charged - ic.fee_expected)
            FROM interchange_clearing ic
            WHERE ic.merchant_id = c.merchant_id AND ic.request_id = c.entity_id
              AND coalesce(ic.fee_currency, ic.currency) = c.currency
            LIMIT 1) AS charged
    FROM cards c
    LEFT JOIN interchange_rates r ON upper(r.network) = c.brand
    LEFT JOIN interchange_rates d ON d.network = '*'
)
SELECT
    $1 AS run_id,
    merchant_id,
    network,
    currency,
    count(*) AS calls,
    count(*) FILTER (WHERE lost_level3) AS level3_calls,
    count(*) FILTER (WHERE NOT lost_level3) AS level2_calls,
    sum(amount) AS amount,
    any_value(level2_rate) AS level2_rate,
    any_value(level3_rate) AS level3_rate,
    sum(coalesce(charged, round(amount * CASE WHEN lost_level3 THEN level3_rate ELSE level2_rate END, 2))) AS at_risk
FROM rated
GROUP BY merchant_id, network, currency
