package platform

import (
	"context"
	"math"
	"strings"
	"sync/atomic"
	"time"
)

// The families a run's requests are counted by (Stats.ByFamily): the member
// families of Families, the Reporting API's reports (settlement, funding,
// chargebacks, clearing levels), and two that are not a member's: the
// organization's group listing, and any other endpoint.
const (
	FamilyReporting Family = "reporting"
	FamilyGroups    Family = "group management"
	FamilyOther     Family = "other"
)

// AccountedFamilies are the families requests are counted by, in the order
// outputs show them.
var AccountedFamilies = []Family{FamilyRecurringBilling, FamilySearch, FamilyBIN, FamilyReporting, FamilyGroups, FamilyOther}

func familyIndex(f Family) int {
	for i, g := range AccountedFamilies {
		if g == f {
			return i
		}
	}
	return len(AccountedFamilies) - 1
}

// familyOf is the family of a request to path with limit's body limit:
// the limit names the endpoint the typed methods call (the groups path is
// configurable), the path the rest.
func familyOf(limit bodyLimit, path string) Family {
	switch limit {
	case rbsPageLimit:
		return FamilyRecurringBilling
	case searchPageLimit, detailLimit:
		return FamilySearch
	case binLimit:
		return FamilyBIN
	case groupsPageLimit:
		return FamilyGroups
	}
	switch {
	case strings.HasPrefix(path, "/rbs/"):
		return FamilyRecurringBilling
	case strings.HasPrefix(path, "/tss/"):
		return FamilySearch
	case strings.HasPrefix(path, "/bin/"):
		return FamilyBIN
	case strings.HasPrefix(path, "/group-management/"):
		return FamilyGroups
	case strings.HasPrefix(path, "/reporting/"):
		return FamilyReporting
	}
	return FamilyOther
}

// Latencies is a histogram of how long attempts took, from sending the
// request to the answer's last byte (or its failure): buckets an eighth of
// an octave wide (9 %), from 1 µs to about 10 days. A quantile is the upper
// bound of its bucket, so it is never under the true value and at most 9 %
// over it; the histogram is fixed-size whatever the number of requests.
type Latencies struct {
	buckets [latencyBuckets]atomic.Int64
	n       atomic.Int64
}

const (
	latencySteps   = 8 // buckets per octave
	latencyBuckets = 40 * latencySteps
)

func latencyBucket(d time.Duration) int {
	us := max(1.0, float64(d)/float64(time.Microsecond))
	return min(latencyBuckets-1, int(math.Log2(us)*latencySteps))
}

func (l *Latencies) add(d time.Duration) {
	l.buckets[latencyBucket(d)].Add(1)
	l.n.Add(1)
}

// Count is the number of attempts measured.
func (l *Latencies) Count() int64 { return l.n.Load() }

// Quantile is the q-quantile (0 < q <= 1) of the attempts' durations, the
// upper bound of its bucket; 0 when none was measured.
func (l *Latencies) Quantile(q float64) time.Duration {
	n := l.n.Load()
	if n == 0 {
		return 0
	}
	rank := int64(math.Ceil(q * float64(n)))
	var seen int64
	for i := range l.buckets {
		seen += l.buckets[i].Load()
		if seen >= rank {
			return time.Duration(math.Exp2(float64(i+1)/latencySteps) * float64(time.Microsecond))
		}
	}
	return time.Duration(math.Exp2(float64(latencyBuckets)/latencySteps) * float64(time.Microsecond))
}

// noteNothingNew counts, in ctx's Stats, an answered request that added no
// record to the run (Stats.NothingNew).
func noteNothingNew(ctx context.Context) {
	for s := statsFrom(ctx); s != nil; s = s.parent {
		s.NothingNew.Add(1)
	}
}

// ByFamily is how many attempts went to each family.
func (s *Stats) ByFamily() map[Family]int64 {
	out := make(map[Family]int64, len(AccountedFamilies))
	for i, f := range AccountedFamilies {
		out[f] = s.families[i].Load()
	}
	return out
}

func (s *Stats) addAttempt(f Family) {
	i := familyIndex(f)
	for ; s != nil; s = s.parent {
		s.Requests.Add(1)
		s.families[i].Add(1)
	}
}

func (s *Stats) addOutcome(status int, took time.Duration) {
	for ; s != nil; s = s.parent {
		if status == 429 {
			s.RateLimited.Add(1)
		}
		if s.Latencies != nil {
			s.Latencies.add(took)
		}
	}
}
