package sandbox

import (
	"fmt"
	"io"
	"time"
)

// WriteBanner writes what a sandbox serves, for `reconcile sandbox`'s
// operator: the organization, members, date, seed and scale, the key and
// secretNote (what to say of the shared secret: only the documented test
// secret is ever shown), the data clock, the rate limit and the keys of
// each kind of user.
func (s *Server) WriteBanner(w io.Writer, secretNote string) {
	cfg := s.Config()
	fmt.Fprintf(w, "  organization %s, %d members, business date %s, seed %d, scale %s\n",
		cfg.OrganizationID, len(s.Members()), cfg.BusinessDate.Format("2006-01-02"), cfg.Seed, cfg.Scale)
	fmt.Fprintf(w, "  key id %s, %s\n", cfg.KeyID, secretNote)
	fmt.Fprintf(w, "  data clock %s (data as of %s); POST /sandbox/v1/clock {\"advance\":\"24h\"} moves it\n",
		s.Clock().Format(time.RFC3339), s.DataAsOf().Format(time.RFC3339))
	if rl := cfg.RateLimit; rl.PerSecond > 0 {
		fmt.Fprintf(w, "  rate limit %g requests/s per key (burst %d): 429 with Retry-After beyond it\n", rl.PerSecond, rl.Burst)
	}
	fmt.Fprintf(w, "  keys per kind of user (same secret): ")
	for i, u := range s.Users() {
		if i > 0 {
			fmt.Fprint(w, ", ")
		}
		fmt.Fprintf(w, "%s (%s, signs as %s)", u.KeyID, u.Kind, u.SigningID)
	}
	fmt.Fprintf(w, ", %s (assigned to group ID)\n", s.UserKeyID(UserGroupAssigned, "<ID>"))
}
