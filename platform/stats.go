package platform

import (
	"context"
	"sync/atomic"
)

// Stats counts what a client did on behalf of one unit of work. Attach one to
// a context with WithStats; every call made with that context (any merchant,
// any goroutine) adds to it, so a fan-out over group members can report each
// member's requests and retries apart while they share one client.
type Stats struct {
	Requests atomic.Int64 // attempts sent, retries included
	Retries  atomic.Int64 // attempts that were a retry of an earlier one
}

type statsKey struct{}

// WithStats returns a context whose calls are counted in s.
func WithStats(ctx context.Context, s *Stats) context.Context {
	return context.WithValue(ctx, statsKey{}, s)
}

func statsFrom(ctx context.Context) *Stats {
	s, _ := ctx.Value(statsKey{}).(*Stats)
	return s
}
