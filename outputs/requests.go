package outputs

// ManifestRequests is a run's request accounting (docs/operations.md, "A
// night's requests"): what the run asked of the platform, and how well
// the answers paid for it. The metrics file and the run's summary line
// carry the same numbers, rounded as here.
type ManifestRequests struct {
	Total   int64 `json:"total"`   // attempts sent, retries included
	Retries int64 `json:"retries"` // attempts that repeated a failed one
	// ByFamily splits Total by endpoint family: recurring billing,
	// transaction search, BIN lookup, group management, other.
	ByFamily map[string]int64 `json:"byFamily"`
	// MembersPulled are the members this attempt pulled (an earlier
	// attempt's are not); PerMember is Total over them, 2 decimals.
	MembersPulled int     `json:"membersPulled"`
	PerMember     float64 `json:"perMember"`
	// RecordsLoaded are the records loaded from the platform (plans,
	// subscriptions, payments, transactions); Per1000Records is Total for
	// each 1,000 of them, 2 decimals.
	RecordsLoaded  int64   `json:"recordsLoaded"`
	Per1000Records float64 `json:"per1000Records"`
	// NothingNew are the answered listing pages that added no record to
	// the run (empty, or only records an earlier page of the same listing
	// gave); NothingNewShare is their share of Total, 4 decimals.
	NothingNew      int64   `json:"nothingNew"`
	NothingNewShare float64 `json:"nothingNewShare"`
	// RateLimited are the attempts answered 429; RateLimitedShare their
	// share of Total, 4 decimals.
	RateLimited      int64   `json:"rateLimited"`
	RateLimitedShare float64 `json:"rateLimitedShare"`
	// LatencyP95Ms is the 95th percentile of the attempts' durations, in
	// milliseconds (1 decimal; the upper bound of a 9 % wide bucket).
	LatencyP95Ms float64 `json:"latencyP95Ms"`
	// Rate is what the rate adaptation did.
	Rate ManifestRate `json:"rate"`
}

// ManifestRate is the client's rate over a run, in requests a second: the
// ceiling (--rate), the lowest the 429s brought it to, and where it ended;
// how often it fell, and how long Retry-After held every request in all.
type ManifestRate struct {
	Ceiling     float64 `json:"ceiling"`
	Lowest      float64 `json:"lowest"`
	Final       float64 `json:"final"`
	Decreases   int64   `json:"decreases"`
	HeldSeconds float64 `json:"heldSeconds"`
}
