package groups

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reconcile/reconcile/internal/cardmask"
	"github.com/reconcile/reconcile/internal/sandbox"
	"github.com/reconcile/reconcile/internal/sandbox/sandboxtest"
)

func TestParseShard(t *testing.T) {
	for _, s := range []string{"0/1", "3/4", " 1 / 2 ", "65535/65536"} {
		sh, err := ParseShard(s)
		if err != nil {
			t.Errorf("ParseShard(%q): %v", s, err)
		}
		sh.Owns("sbxmid000001") // never panics
	}
	// 4294967296 is 0 as a uint32: it divided by zero in Owns.
	for _, s := range []string{"", "1", "4/4", "-1/2", "a/b", "0/0", "0/4294967296", "0/65537", "1/-1", "0/9223372036854775808"} {
		if _, err := ParseShard(s); err == nil || !strings.Contains(err.Error(), "want i/n with 1 <= n <= 65536") {
			t.Errorf("ParseShard(%q): %v, want an error saying what is accepted", s, err)
		}
	}
}

func TestShardsPartitionMembers(t *testing.T) {
	var members []Member
	for i := range 1000 {
		members = append(members, Member{MerchantID: fmt.Sprintf("mid%05d", i)})
	}
	seen := map[string]int{}
	for i := range 4 {
		part := Shard{Index: i, Count: 4}.Select(members)
		if len(part) < 150 || len(part) > 350 {
			t.Errorf("shard %d/4 holds %d of 1000 members: the split is badly skewed", i, len(part))
		}
		for _, m := range part {
			seen[m.MerchantID]++
		}
	}
	for _, m := range members {
		if seen[m.MerchantID] != 1 {
			t.Fatalf("member %s is in %d shards, want exactly 1", m.MerchantID, seen[m.MerchantID])
		}
	}
}

// TestDiscoverAgainstSandbox lists groups over real HTTP: members in two
// groups come back once, with both groups.
func TestDiscoverAgainstSandbox(t *testing.T) {
	scale, _ := sandbox.ParseScale("medium")
	env := sandboxtest.Start(t, sandbox.Config{Seed: 7, Scale: scale})
	srv, client, cfg := env.Server, env.Client, env.Server.Config()
	dir, err := Discover(context.Background(), client.Merchant(cfg.OrganizationID), cfg.OrganizationID, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(dir.Members) != len(srv.Members()) {
		t.Fatalf("discovered %d members, the sandbox has %d", len(dir.Members), len(srv.Members()))
	}
	multi := 0
	for i, m := range dir.Members {
		if m.MerchantID != srv.Members()[i] {
			t.Fatalf("member %d: %s, want %s", i, m.MerchantID, srv.Members()[i])
		}
		if len(m.GroupIDs) > 1 {
			multi++
		}
	}
	if multi == 0 {
		t.Error("no member is in two groups: de-duplication is untested")
	}
	only, err := Discover(context.Background(), client.Merchant(cfg.OrganizationID), cfg.OrganizationID, []string{dir.Groups[0].ID})
	if err != nil {
		t.Fatal(err)
	}
	if len(only.Groups) != 1 || len(only.Members) != len(dir.Groups[0].Members) {
		t.Errorf("--groups %s: %d groups, %d members", dir.Groups[0].ID, len(only.Groups), len(only.Members))
	}
	if _, err := Discover(context.Background(), client.Merchant(cfg.OrganizationID), cfg.OrganizationID, []string{"no-such"}); err == nil {
		t.Error("an unknown group must be an error")
	}
}

// TestFanOutDeliversEveryMember: a job that fails, panics or hangs past its
// timeout affects only its member, and every member's result reaches done
// exactly once, with its value or the reason it has none.
func TestFanOutDeliversEveryMember(t *testing.T) {
	var members []Member
	for i := range 20 {
		members = append(members, Member{MerchantID: fmt.Sprintf("m%02d", i)})
	}
	var inFlight, peak atomic.Int32
	var mu sync.Mutex
	got := map[string][]Result[string]{}
	FanOut(context.Background(), members, 3, 50*time.Millisecond, func(ctx context.Context, m Member) (string, error) {
		n := inFlight.Add(1)
		defer inFlight.Add(-1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		time.Sleep(2 * time.Millisecond)
		switch m.MerchantID {
		case "m03":
			return "partial", errors.New("403 for this one")
		case "m04":
			panic("boom")
		case "m05":
			<-ctx.Done() // hangs until its own timeout
			return "", ctx.Err()
		}
		return "value of " + m.MerchantID, nil
	}, func(r Result[string]) {
		mu.Lock()
		defer mu.Unlock()
		got[r.Member.MerchantID] = append(got[r.Member.MerchantID], r)
	})
	if p := peak.Load(); p > 3 {
		t.Errorf("%d members in flight, limit 3", p)
	}
	for _, m := range members {
		rs := got[m.MerchantID]
		if len(rs) != 1 {
			t.Errorf("%s: %d results, want exactly 1", m.MerchantID, len(rs))
			continue
		}
		r := rs[0]
		if r.Started.IsZero() || r.Finished.Before(r.Started) {
			t.Errorf("%s: started %v, finished %v", m.MerchantID, r.Started, r.Finished)
		}
		switch m.MerchantID {
		case "m03":
			if r.Err == nil || r.Value != "partial" {
				t.Errorf("m03: %+v; want its error and value", r)
			}
		case "m04":
			if r.Err == nil || !strings.Contains(r.Err.Error(), "m04: panic: boom") {
				t.Errorf("m04: error %v; want the panic's message", r.Err)
			}
		case "m05":
			if r.Err == nil || !strings.Contains(r.Err.Error(), "timed out after 50ms") {
				t.Errorf("m05: error %v; want its timeout", r.Err)
			}
		default:
			if r.Err != nil || r.Value != "value of "+m.MerchantID {
				t.Errorf("%s: %+v; failed because of another member?", m.MerchantID, r)
			}
		}
	}
}

// TestFanOutReportsMembersNotStarted: once ctx ends, the members not yet
// started still get a result, saying so.
func TestFanOutReportsMembersNotStarted(t *testing.T) {
	var members []Member
	for i := range 10 {
		members = append(members, Member{MerchantID: fmt.Sprintf("m%02d", i)})
	}
	ctx, cancel := context.WithCancel(context.Background())
	var mu sync.Mutex
	var ran, notStarted int
	FanOut(ctx, members, 1, 0, func(ctx context.Context, m Member) (struct{}, error) {
		cancel() // the first member's job ends the fan-out
		return struct{}{}, nil
	}, func(r Result[struct{}]) {
		mu.Lock()
		defer mu.Unlock()
		switch {
		case r.Err == nil:
			ran++
		case strings.Contains(r.Err.Error(), r.Member.MerchantID+": not started: context canceled") && r.Started.IsZero():
			notStarted++
		default:
			t.Errorf("%s: %+v", r.Member.MerchantID, r)
		}
	})
	if ran+notStarted != len(members) || notStarted == 0 {
		t.Errorf("%d ran, %d reported not started, of %d members", ran, notStarted, len(members))
	}
}

// TestShardOwnsByStoredID: a member ID that looks like a card number is
// stored masked, and a merge sees only the stored form: both forms belong
// to the same shard.
func TestShardOwnsByStoredID(t *testing.T) {
	for _, id := range []string{"1234567890128", "4111111111111111", "sbxmid000001"} {
		stored := cardmask.MaskText(id)
		for i := range 4 {
			s := Shard{Index: i, Count: 4}
			if s.Owns(id) != s.Owns(stored) {
				t.Errorf("shard %s owns %s: %v, its stored form %s: %v", s, id, s.Owns(id), stored, s.Owns(stored))
			}
		}
	}
}

// TestNamed: members named directly (--merchants) are each taken once,
// sorted, kept as written, and belong to no group: no group id is made up.
func TestNamed(t *testing.T) {
	d := Named("org", []string{"m2", "m1", "m2", "", "0042"})
	var mids []string
	for _, m := range d.Members {
		mids = append(mids, m.MerchantID)
		if len(m.GroupIDs) != 0 {
			t.Errorf("member %s in groups %v", m.MerchantID, m.GroupIDs)
		}
	}
	if d.OrganizationID != "org" || len(d.Groups) != 0 || strings.Join(mids, ",") != "0042,m1,m2" {
		t.Errorf("directory %+v", d)
	}
}
