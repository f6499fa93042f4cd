package sandbox

import "time"

// reportingEnv is what contract.js needs to drive the Reporting API's
// settlement and funding operations through the SDK for member 1: the
// span (the window, from ReportingLookbackDays before it) and the values
// its first settled request must deserialise with.
func reportingEnv(s *Server) []string {
	w0, w1 := s.windowBounds()
	from := w0.AddDate(0, 0, -ReportingLookbackDays)
	var first settlement
	s.withLiveMember(1, func(m *member) {
		for _, st := range settlements(m, s.Clock(), w0, w1) {
			if !st.pending && !st.requestTime.Before(from) && st.requestTime.Before(w1) {
				first = st
				return
			}
		}
	})
	return []string{"REPORT_START=" + from.Format(time.RFC3339), "REPORT_END=" + w1.Format(time.RFC3339),
		"REPORT_REQUEST_ID=" + first.requestID, "REPORT_AMOUNT=" + moneyIn(first.amount, first.currency),
		"REPORT_CURRENCY=" + first.currency, "REPORT_BATCH_ID=" + first.batchID, "REPORT_TOTAL_FEE=" + moneyIn(first.totalFee, first.currency)}
}
