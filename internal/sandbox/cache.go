package sandbox

import (
	"container/list"
	"sync"
)

// memberCache keeps the most recently used generated members. Generation is
// deterministic, so an evicted member is simply generated again; this keeps
// the large scale (10,000 members × 100 subscriptions, over a gigabyte of
// data if all were held) at a few hundred megabytes. A member changed by a
// write endpoint is pinned: its state no longer equals a fresh generation
// and must not be lost. (The billing engine's changes need no pin: a member
// generated again and moved to the same clock reaches the same state.)
type memberCache struct {
	gen      func(idx int) *member
	capacity int

	mu      sync.Mutex
	entries map[int]*cacheEntry
	lru     *list.List // of *cacheEntry, front = most recent
}

type cacheEntry struct {
	idx    int
	ready  chan struct{} // closed once m is set
	m      *member
	elem   *list.Element
	pinned bool
}

func newMemberCache(capacity int, gen func(int) *member) *memberCache {
	return &memberCache{gen: gen, capacity: max(capacity, 1), entries: map[int]*cacheEntry{}, lru: list.New()}
}

// get returns member idx, generating it once however many goroutines ask.
func (c *memberCache) get(idx int) *member {
	c.mu.Lock()
	if e, ok := c.entries[idx]; ok {
		c.lru.MoveToFront(e.elem)
		c.mu.Unlock()
		<-e.ready
		return e.m
	}
	e := &cacheEntry{idx: idx, ready: make(chan struct{})}
	e.elem = c.lru.PushFront(e)
	c.entries[idx] = e
	c.evictLocked()
	c.mu.Unlock()

	e.m = c.gen(idx)
	close(e.ready)
	return e.m
}

// peek returns member idx if it is cached and generated, without touching
// the recency order (used by the ground truth, which streams over every
// member and would otherwise flush the cache).
func (c *memberCache) peek(idx int) *member {
	c.mu.Lock()
	e, ok := c.entries[idx]
	c.mu.Unlock()
	if !ok {
		return nil
	}
	select {
	case <-e.ready:
		return e.m
	default:
		return nil
	}
}

// pin keeps member idx in the cache for good (for write endpoints).
func (c *memberCache) pin(idx int) *member {
	m := c.get(idx)
	c.mu.Lock()
	if e, ok := c.entries[idx]; ok {
		e.pinned = true
	}
	c.mu.Unlock()
	return m
}

// pinned reports whether member idx is pinned: a write changed it, or
// is about to (a write pins the member before it changes it).
func (c *memberCache) pinned(idx int) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[idx]
	return ok && e.pinned
}

// pinnedMember returns member idx if it is pinned, else nil, without
// generating it.
func (c *memberCache) pinnedMember(idx int) *member {
	c.mu.Lock()
	e, ok := c.entries[idx]
	c.mu.Unlock()
	if !ok || !e.pinned {
		return nil
	}
	<-e.ready
	return e.m
}

func (c *memberCache) evictLocked() {
	for el := c.lru.Back(); el != nil && c.lru.Len() > c.capacity; {
		prev := el.Prev()
		e := el.Value.(*cacheEntry)
		if !e.pinned {
			c.lru.Remove(el)
			delete(c.entries, e.idx)
		}
		el = prev
	}
}
