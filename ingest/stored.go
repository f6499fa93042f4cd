package ingest

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
	"time"

	"github.com/reconcile/reconcile/internal/store"
	"github.com/reconcile/reconcile/queries"
	"github.com/reconcile/reconcile/subscriptions"
)

// storedList is what the database holds of a subscription's payment list:
// what the incremental rule reads, and what a subscription whose list is not
// pulled again carries over.
type storedList struct {
	prev            subscriptions.Previous
	totalCount      int32
	hasTotal        bool
	skip, completed []byte // JSON text
	pulledAt        time.Time
}

// storedChunk is how many members' stored payment lists one query reads.
// Finding a member's rows means reading the merchant IDs of the whole
// table (DuckDB skips row groups by the first 8 bytes of a string, which
// merchant IDs of one portfolio share), so a query per member made a
// nightly run's members stage quadratic in the portfolio: 11 ms a member
// at 2,000 members, ~50 ms at 10,000. A chunk of 32 holds about 8 MB of
// records (100 subscriptions a member) while its members are pulled.
const storedChunk = 32

var storedPaymentLists = queries.Must("ingest.sql", "StoredPaymentLists")

// storedLists hands each member its stored payment lists, read a chunk of
// members at a time in the order the members are pulled, so that the
// members pulled together share one query. A chunk is read by the first of
// its members to ask and dropped once all of them have taken theirs. Two
// members may be stored under the same masked ID (cardmask masks an ID
// shaped like a card number); each takes the same lists. A failed read
// fails every member of its chunk, as a failed query per member failed
// each of them.
type storedLists struct {
	s      *store.Store
	chunks []*listChunk
	of     map[string]int // member (as stored) -> its chunk
}

type listChunk struct {
	members []string
	once    sync.Once
	err     error
	mu      sync.Mutex
	lists   map[string]map[string]storedList // member -> subscription -> list
	left    int                              // takes still to come (a member stored twice takes twice)
}

// newStoredLists plans the chunks: the members of order (as stored) that
// the database holds subscriptions of, in that order.
func newStoredLists(s *store.Store, order []string, stored map[string]bool) *storedLists {
	l := &storedLists{s: s, of: map[string]int{}}
	for _, m := range order {
		if !stored[m] {
			continue
		}
		if i, dup := l.of[m]; dup {
			l.chunks[i].left++
			continue
		}
		if n := len(l.chunks); n == 0 || len(l.chunks[n-1].members) == storedChunk {
			l.chunks = append(l.chunks, &listChunk{})
		}
		c := l.chunks[len(l.chunks)-1]
		c.members = append(c.members, m)
		c.left++
		l.of[m] = len(l.chunks) - 1
	}
	return l
}

// take returns member's stored payment lists by subscription ID (empty
// for a member the database holds none of). Each member takes its lists
// once. The chunk's query does not stop with the context of the member
// that happens to run it: the chunk's other members wait for it.
func (l *storedLists) take(ctx context.Context, member string) (map[string]storedList, error) {
	i, ok := l.of[member]
	if !ok {
		return map[string]storedList{}, nil
	}
	c := l.chunks[i]
	c.once.Do(func() { c.lists, c.err = readStoredLists(context.WithoutCancel(ctx), l.s, c.members) })
	if c.err != nil {
		return nil, c.err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	lists := c.lists[member]
	if c.left--; c.left == 0 {
		c.lists = nil
	}
	if lists == nil {
		lists = map[string]storedList{}
	}
	return lists, nil
}

// readStoredLists reads the stored subscriptions and payment-list state of
// members, on the read pool, beside the writer.
func readStoredLists(ctx context.Context, s *store.Store, members []string) (map[string]map[string]storedList, error) {
	rows, err := s.ReadPool().QueryContext(ctx, storedPaymentLists, members)
	if err != nil {
		return nil, fmt.Errorf("read stored payment lists of %s..%s: %w", members[0], members[len(members)-1], err)
	}
	defer rows.Close()
	out := map[string]map[string]storedList{}
	for rows.Next() {
		var mid, id string
		var raw, status, skip, completed sql.NullString
		var pulled, nextDue, lastFailed sql.NullTime
		var total sql.NullInt32
		if err := rows.Scan(&mid, &id, &raw, &status, &pulled, &total, &skip, &completed, &nextDue, &lastFailed); err != nil {
			return nil, fmt.Errorf("read stored payment lists of %s..%s: %w", members[0], members[len(members)-1], err)
		}
		l := storedList{prev: subscriptions.Previous{Raw: []byte(raw.String), Status: status.String,
			PulledAt: pulled.Time, NextDue: nextDue.Time, LastFailed: lastFailed.Time}, pulledAt: pulled.Time}
		l.totalCount, l.hasTotal = total.Int32, total.Valid
		if skip.Valid {
			l.skip = []byte(skip.String)
		}
		if completed.Valid {
			l.completed = []byte(completed.String)
		}
		if out[mid] == nil {
			out[mid] = map[string]storedList{}
		}
		out[mid][id] = l
	}
	return out, rows.Err()
}
