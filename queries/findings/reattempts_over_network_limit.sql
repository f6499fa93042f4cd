-- Title: Too many card retries
-- Means: A declined card was retried more often than its card network allows; the network charges a fee for each.
-- Do: Stop retrying this card and ask the customer for another one.
-- A reattempt of a declined card beyond what its network allows: an
-- attempt in the window (the view card_attempts: the merchant's journaled
-- authorizations and sales, and the subscription payments the platform's
-- billing engine made on the merchant's behalf, which count as the
-- merchant's) that is a reattempt, and with which the reattempts of the
-- same card at the same merchant within the network's rolling window
-- exceed its limit (the table retry_limits: --retry-limits, else the
-- documented default, e.g. Visa 20 in 30 days counting customer- and
-- merchant-initiated ones apart, Mastercard 10 in 24 hours and 35 in 30
-- days; a network with no row and no * row has no limit). The attempts on
-- a card (same BIN and last four; for a limit that counts them apart, of
-- the same initiator) are taken in time order: an attempt is a reattempt
-- when the one before it was declined, and an approval ends the run of
-- reattempts, so that only the reattempts since the card's last approval
-- are counted, those less than the window before it and itself included.
-- With a limit of 20 the 21st reattempt is reported, and each after it.
-- Entity: the reattempt's transaction id; amount: its amount; detail: the
-- limit it broke (the shortest window when it broke two) and the count.
-- Action: stop retrying this card: cap the merchant's retry logic at the
-- network's limit, space the retries out, and ask the customer for another
-- card; Visa and Mastercard charge a fee for each reattempt over it.
WITH limited AS (
    -- Each attempt under each limit of its network (the * limits for a
    -- network without its own), with the counter it counts in.
    SELECT a.*, r.network AS limit_network, r.reattempts AS allowed, r.window_length, r.cit_mit_apart,
           CASE WHEN r.cit_mit_apart THEN a.initiator ELSE 'any' END AS counter
    FROM card_attempts a
    JOIN retry_limits r
      ON r.network = CASE WHEN a.network IN (SELECT network FROM retry_limits) THEN a.network ELSE '*' END
),
sequenced AS (
    -- approvals: how many approvals of the card came before the attempt
    -- (its run of reattempts); reattempt: the attempt before it was declined.
    SELECT *,
           coalesce(lag(declined) OVER (
               PARTITION BY merchant_id, card_bin, card_last4, limit_network, window_length, counter
               ORDER BY time, transaction_id), false) AS reattempt,
           coalesce(sum(CASE WHEN approved THEN 1 ELSE 0 END) OVER (
               PARTITION BY merchant_id, card_bin, card_last4, limit_network, window_length, counter
               ORDER BY time, transaction_id ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS approvals
    FROM limited
),
reattempts AS (
    -- Each reattempt with the run's reattempts up to it, itself included
    -- (upto), and those of them a window or more before it (expired):
    -- the ones counted against it are the rest. Counted in one ordered
    -- pass per card and limit, however many times the card was charged.
    SELECT *,
           row_number() OVER (
               PARTITION BY merchant_id, card_bin, card_last4, limit_network, window_length, counter, approvals
               ORDER BY time, transaction_id) AS upto,
           count(*) OVER (
               PARTITION BY merchant_id, card_bin, card_last4, limit_network, window_length, counter, approvals
               ORDER BY time RANGE BETWEEN UNBOUNDED PRECEDING AND window_length PRECEDING) AS expired
    FROM sequenced
    WHERE reattempt
),
counted AS (
    -- first_counted: the time of the earliest reattempt counted, the one
    -- after the expired ones.
    SELECT r.merchant_id, r.transaction_id, r.time, r.amount, r.currency, r.source, r.call_kind, r.initiator,
           r.network, r.card_bin, r.card_last4, r.limit_network, r.allowed, r.window_length, r.cit_mit_apart, r.counter,
           r.file, r.line, r.subscription_id, r.payment_id,
           r.upto - r.expired AS reattempts, f.time AS first_counted
    FROM reattempts r
    JOIN reattempts f
      ON f.merchant_id = r.merchant_id AND f.card_bin = r.card_bin AND f.card_last4 = r.card_last4
     AND f.limit_network = r.limit_network AND f.window_length = r.window_length AND f.counter = r.counter
     AND f.approvals = r.approvals AND f.upto = r.expired + 1
    WHERE r.time >= getvariable('window_start') AND r.time < getvariable('window_end')
)
SELECT
    merchant_id,
    transaction_id AS entity_id,
    amount,
    currency,
    json_object('time', time, 'source', source, 'call_kind', call_kind, 'initiator', initiator,
                'network', network, 'bin', card_bin, 'last4', card_last4,
                'limit_network', limit_network, 'allowed', allowed, 'window', CAST(window_length AS VARCHAR),
                'counted', CASE WHEN cit_mit_apart THEN initiator || '-initiated' ELSE 'all' END,
                'reattempts', reattempts, 'first_counted', first_counted,
                'file', file, 'line', line, 'subscription_id', subscription_id, 'payment_id', payment_id) AS detail
FROM counted
WHERE reattempts > allowed
QUALIFY row_number() OVER (PARTITION BY merchant_id, transaction_id ORDER BY window_length, limit_network) = 1
