package groups

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reconcile/reconcile/platform"
	"github.com/reconcile/reconcile/sandbox"
)

func TestParseShard(t *testing.T) {
	for _, s := range []string{"0/1", "3/4", " 1 / 2 "} {
		if _, err := ParseShard(s); err != nil {
			t.Errorf("ParseShard(%q): %v", s, err)
		}
	}
	for _, s := range []string{"", "1", "4/4", "-1/2", "a/b", "0/0"} {
		if _, err := ParseShard(s); err == nil {
			t.Errorf("ParseShard(%q): want an error", s)
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
	srv, err := sandbox.New(sandbox.Config{Seed: 7, Scale: scale})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	defer hs.Close()
	cfg := srv.Config()
	secret, _ := platform.NewSecret(sandbox.DefaultSecret)
	client, err := platform.NewClient(hs.URL, platform.Credentials{KeyID: cfg.KeyID, Secret: secret, PortfolioID: cfg.OrganizationID})
	if err != nil {
		t.Fatal(err)
	}
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

func TestFanOutIsolatesMembers(t *testing.T) {
	var members []Member
	for i := range 20 {
		members = append(members, Member{MerchantID: fmt.Sprintf("m%02d", i)})
	}
	var inFlight, peak atomic.Int32
	results := FanOut(context.Background(), members, 3, 50*time.Millisecond, func(ctx context.Context, m Member) error {
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
			return errors.New("403 for this one")
		case "m04":
			panic("boom")
		case "m05":
			<-ctx.Done() // hangs until its own timeout
			return ctx.Err()
		}
		return nil
	})
	if p := peak.Load(); p > 3 {
		t.Errorf("%d members in flight, limit 3", p)
	}
	for _, r := range results {
		switch r.Member.MerchantID {
		case "m03", "m04", "m05":
			if r.Err == nil {
				t.Errorf("%s: want its error recorded", r.Member.MerchantID)
			}
		default:
			if r.Err != nil {
				t.Errorf("%s failed because of another member: %v", r.Member.MerchantID, r.Err)
			}
		}
	}
}
