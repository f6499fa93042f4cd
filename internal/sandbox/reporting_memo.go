package sandbox

import (
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// The reporting memo (docs/sandbox.md, Settlement). Every settlement and
// funding report is computed from every member of its scope, and a member
// not in the member cache (64 members) is generated afresh for it. A run's
// settlement stage reads a group's purchase and refund details in pages of
// 2,000, then its net fundings a day at a time, then the organization's
// batch summaries: with the group's members generated again for every
// answer, the number of pages grows with the members and so does each
// page's cost: the stage grew a hundredfold for ten times the members.
// The memo keeps each member's settlements of the
// reporting span, as settlements lists them, so that a member is generated
// once for the stage however many pages and days are read.
//
// Only a member as generated is kept: its settlements are then a function
// of the data clock and the window alone, which are the memo's key (the
// clock only moves forward: a new key drops the old entries). A member a
// write changed is pinned in the member cache and is always read live,
// as is a report reaching further back than the memo holds.

// memoLag bounds how long after its request a settlement is batched (the
// next day) and funded (fundingDelay business days after its batch, at
// most 4 calendar days): a report of what was batched or funded from day
// d on reads nothing requested before d - memoLag.
const memoLag = 7 * 24 * time.Hour

// memoMembers is how many members' settlements the memo holds at least
// (about 70 KB each at 100 subscriptions): more than a group of the large
// scale, so that a group's pages and days are all read from it. A
// group's purchase and refund details raise it to the group's size.
const memoMembers = 1024

type memoKey struct{ now, w0, w1 time.Time }

func (k memoKey) equal(o memoKey) bool {
	return k.now.Equal(o.now) && k.w0.Equal(o.w0) && k.w1.Equal(o.w1)
}

// reportingMemo holds members' settlements by member index, for one key.
type reportingMemo struct {
	mu       sync.Mutex
	key      memoKey
	lists    map[int][]settlement
	order    []int // member indexes in the order they were kept: the oldest goes first
	capacity int
}

// memoSince is the earliest time a report read from the memo may ask
// about: the reporting span's start (ReportingLookbackDays before the
// window).
func memoSince(w0 time.Time) time.Time { return w0.AddDate(0, 0, -ReportingLookbackDays) }

// get returns member idx's settlements kept under key.
func (r *reportingMemo) get(key memoKey, idx int) ([]settlement, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.key.equal(key) {
		return nil, false
	}
	list, ok := r.lists[idx]
	return list, ok
}

// grow makes room for at least n members.
func (r *reportingMemo) grow(n int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.capacity = max(r.capacity, n)
}

// put keeps member idx's settlements under key, dropping what another
// key kept and, beyond the capacity, the oldest kept.
func (r *reportingMemo) put(key memoKey, idx int, list []settlement) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.lists == nil || !r.key.equal(key) {
		r.key, r.lists, r.order = key, map[int][]settlement{}, nil
	}
	if _, ok := r.lists[idx]; ok {
		return
	}
	for len(r.order) >= max(r.capacity, memoMembers) {
		delete(r.lists, r.order[0])
		r.order = r.order[1:]
	}
	r.lists[idx] = list
	r.order = append(r.order, idx)
}

// reportSettlements runs fn on member idx's settlements as settlements
// lists them at data clock now over the window [w0, w1), for a report
// that reads only what was requested, batched or funded from since on
// (fn may be given only those requested from since - memoLag on). The
// list's txn is nil: fn reads the transaction's part from of.
func (s *Server) reportSettlements(idx int, now, w0, w1, since time.Time, fn func(list []settlement)) {
	key := memoKey{now, w0, w1}
	memo := !since.Before(memoSince(w0))
	if memo && !s.cache.pinned(idx) {
		if list, ok := s.reports.get(key, idx); ok {
			fn(list)
			return
		}
	}
	var all []settlement
	keep := false
	s.withLiveMember(idx, func(m *member) {
		all = settlements(m, now, w0, w1)
		// Generated and moved to now, nothing else: any member generated
		// again and moved to now has these settlements.
		keep = memo && !m.dirty && m.asOf.Equal(now)
	})
	for i := range all {
		all[i].txn = nil
	}
	if keep {
		from := memoSince(w0).Add(-memoLag)
		i, _ := slices.BinarySearchFunc(all, from, func(st settlement, t time.Time) int { return st.requestTime.Compare(t) })
		s.reports.put(key, idx, slices.Clone(all[i:]))
	}
	fn(all)
}

// eachReportSettlements runs fn on the settlements of each member of idx
// in turn, in the order of idx (reportSettlements). The lists are made a
// few members at a time on workers() goroutines: a report over a group
// the memo does not hold yet waits on the generation of every member.
func (s *Server) eachReportSettlements(idx []int, now, w0, w1, since time.Time, fn func(i int, list []settlement)) {
	const chunk = 64
	lists := make([][]settlement, min(chunk, len(idx)))
	for at := 0; at < len(idx); at += chunk {
		part := idx[at:min(len(idx), at+chunk)]
		var next atomic.Int64
		var wg sync.WaitGroup
		for range min(workers(), len(part)) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for j := int(next.Add(1)) - 1; j < len(part); j = int(next.Add(1)) - 1 {
					s.reportSettlements(part[j], now, w0, w1, since, func(list []settlement) { lists[j] = list })
				}
			}()
		}
		wg.Wait()
		for j, i := range part {
			fn(i, lists[j])
			lists[j] = nil
		}
	}
}

// minTime is the earlier of a and b.
func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}
