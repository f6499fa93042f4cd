-- Each reconciled member's name as the recurring billing service gives it:
-- the merchantName of the latest payment notification (a billing journal
-- line whose request carries event PAYMENT_SUCCESS or PAYMENT_FAILURE,
-- answered 2xx) up to the run's cut-off, blank names left out. The
-- platform's interfaces name a merchant nowhere else reconcile reads
-- (group members are IDs), so a member whose journals hold no
-- notification has no row, and the workbook leaves its name empty.
-- $1 = run_id, $2 = business date; the cut-off from window_end.
INSERT INTO merchant_names (run_id, business_date, merchant_id, name, seen_at)
SELECT $1, $2, j.merchant_id,
       arg_max(trim(j.request->>'merchantName'), (j.time, j.file, j.line)),
       max(j.time)
FROM journal j
JOIN run_members rm ON rm.run_id = $1 AND rm.merchant_id = j.merchant_id AND rm.status = 'ok'
WHERE j.status BETWEEN 200 AND 299
  AND (j.request->>'event') IN ('PAYMENT_SUCCESS', 'PAYMENT_FAILURE')
  AND trim(j.request->>'merchantName') <> ''
  AND j.time < getvariable('window_end')
GROUP BY j.merchant_id
