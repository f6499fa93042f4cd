package platform

import (
	"context"
	"sync/atomic"
)

// Stats counts what a client did on behalf of one unit of work. Attach one to
// a context with WithStats; every call made with that context (any merchant,
// any goroutine) adds to it, so a fan-out over group members can report each
// member's requests and retries apart while they share one client.
//
// Stats nest: a Stats attached under a context that already carries one
// counts into both, so a run can show live totals while each member keeps
// its own.
type Stats struct {
	Requests    atomic.Int64 // attempts sent, retries included
	Retries     atomic.Int64 // attempts that were a retry of an earlier one
	RateLimited atomic.Int64 // attempts answered 429
	// NothingNew counts answered (2xx) listing pages that added no record
	// to the run: a page that was empty, or held only records an earlier
	// page of the same listing had already given (pipeline.Result.RequestAccount).
	NothingNew atomic.Int64
	// Latencies, when set, measures every attempt counted here (and under
	// it); nil measures none. A run sets it on its own Stats only: the
	// histogram is a few KB, too much for each of 10,000 members.
	Latencies *Latencies
	families  [6]atomic.Int64 // by AccountedFamilies (TestFamilyArraySize keeps the two equal)
	parent    *Stats
}

func (s *Stats) addRetry() {
	for ; s != nil; s = s.parent {
		s.Retries.Add(1)
	}
}

type statsKey struct{}

// WithStats returns a context whose calls are counted in s.
// If ctx already carries a Stats, s counts into it too.
func WithStats(ctx context.Context, s *Stats) context.Context {
	if outer := statsFrom(ctx); outer != nil && outer != s && s.parent == nil {
		s.parent = outer
	}
	return context.WithValue(ctx, statsKey{}, s)
}

func statsFrom(ctx context.Context) *Stats {
	s, _ := ctx.Value(statsKey{}).(*Stats)
	return s
}
