-- Title: Charged after do-not-retry
-- Means: A card was charged again after its bank said never to try it again; the networks charge a fee for that.
-- Do: Stop charging the card and ask the customer for another way to pay.
-- A charge on a card after its issuer said never to try it again: an
-- attempt in the window (an authorization or sale the merchant journaled,
-- or a subscription payment the platform's billing engine made on the
-- merchant's behalf; the view card_attempts) on a card that the same
-- merchant saw declined do-not-retry (same BIN and last four) less than
-- 30 days before, with no approval of that card in between. Do-not-retry
-- is, on a Visa card, merchant advice code 1 ("issuer never approves") or
-- a category 1 response code (04, 07, 12, 14, 15, 41, 43, 46, 57, R0, R1,
-- R3); on any other card merchant advice code 03 (do not try again) or 21
-- (payment cancelled); and, on any card, the platform's reason code 205
-- (stolen or lost card: the decline that suspends a subscription at once)
-- or 231 (invalid account number). Card networks charge a fee for each
-- such attempt (Visa for any reattempt of a category 1 decline, Mastercard
-- for each resubmission within 30 days of a merchant advice code 03 or
-- 21). The charge is reported whether or not it was approved. Entity: the
-- charge's transaction id; amount: its amount; detail: the do-not-retry
-- decline it followed (the latest one).
-- Action: stop charging this card: take it out of the merchant's retry
-- logic and the subscription's billing, and ask the customer for another
-- card or payment method.
WITH marked AS (
    -- The latest do-not-retry decline before each attempt, and the latest
    -- approval before it, in one ordered pass over each card's attempts
    -- (window frames ending just before the attempt), not by joining each
    -- attempt with every earlier one: a merchant that charges one card
    -- thousands of times (a test card, a card on file) stays linear.
    SELECT *,
           max(CASE WHEN do_not_retry THEN time END) OVER earlier AS refused_time,
           max(CASE WHEN approved THEN time END) OVER earlier AS approved_time
    FROM card_attempts
    WINDOW earlier AS (PARTITION BY merchant_id, card_bin, card_last4 ORDER BY time
                       RANGE BETWEEN UNBOUNDED PRECEDING AND INTERVAL 1 MICROSECOND PRECEDING)
),
flagged AS (
    SELECT * FROM marked
    WHERE time >= getvariable('window_start') AND time < getvariable('window_end')
      AND refused_time > time - INTERVAL 30 DAY
      AND (approved_time IS NULL OR approved_time <= refused_time)
),
refusals AS (
    -- The decline each flagged attempt followed: of those at its time, the
    -- lowest transaction id.
    SELECT * FROM marked WHERE do_not_retry
    QUALIFY row_number() OVER (PARTITION BY merchant_id, card_bin, card_last4, time ORDER BY transaction_id) = 1
)
SELECT
    a.merchant_id,
    a.transaction_id AS entity_id,
    a.amount,
    a.currency,
    json_object('time', a.time, 'source', a.source, 'call_kind', a.call_kind, 'declined', a.declined,
                'network', a.network, 'bin', a.card_bin, 'last4', a.card_last4,
                'refused_id', d.transaction_id, 'refused_time', d.time, 'refused_source', d.source,
                'merchant_advice_code', d.merchant_advice_code, 'merchant_advice_code_raw', d.merchant_advice_code_raw,
                'response_code', d.processor_response_code, 'reason_code', d.reason_code,
                'file', a.file, 'line', a.line, 'subscription_id', a.subscription_id, 'payment_id', a.payment_id) AS detail
FROM flagged a
JOIN refusals d
  ON d.merchant_id = a.merchant_id AND d.card_bin = a.card_bin AND d.card_last4 = a.card_last4 AND d.time = a.refused_time
