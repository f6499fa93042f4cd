// Package ack holds end-to-end tests of acknowledgements (reconcile ack,
// the acknowledgements file and the workbook's round trip) and of
// reconcile sql --check. It holds tests only.
package ack
