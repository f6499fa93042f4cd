// Package groups owns the organization's membership: discovering its groups
// and their member MIDs through group management, de-duplicating members that
// belong to several groups, splitting members into shards, and fanning a
// per-member job out over them with bounded concurrency.
package groups

import (
	"context"
	"fmt"
	"hash/fnv"
	"iter"
	"slices"
	"strconv"
	"strings"

	"github.com/reconcile/reconcile/internal/cardmask"
	"github.com/reconcile/reconcile/internal/platform"
)

// Lister lists an organization's groups (a *platform.Merchant acting for the
// organization satisfies it).
type Lister interface {
	Groups(ctx context.Context, organizationID string) iter.Seq2[platform.Group, error]
}

// Directory is the organization's groups and their members.
type Directory struct {
	OrganizationID string
	Groups         []platform.Group
	Members        []Member // sorted by MerchantID, each once
}

// Member is one MID with every group it belongs to. Its ID has two forms:
// MerchantID as the platform sent it, which every request for the member
// sends back, and StoredID as the database holds it (StoredIDOf). StoredID
// is a method, not a field, so that a Member made as a literal cannot hold
// a stale or empty stored form.
type Member struct {
	MerchantID string
	GroupIDs   []string // sorted
}

// NewMember is the member of merchantID, in no group yet.
func NewMember(merchantID string) Member {
	return Member{MerchantID: merchantID}
}

// StoredID is the member's ID as the database stores it.
func (m Member) StoredID() string { return StoredIDOf(m.MerchantID) }

// StoredIDOf is a merchant ID as the database stores it: card data masked
// (cardmask.MaskText changes an ID only when it is itself a card number),
// the same way wherever a member's ID is stored or compared with a stored
// one (run_members, the shard hash a merge recomputes).
func StoredIDOf(merchantID string) string { return cardmask.MaskText(merchantID) }

// Discover lists the organization's groups and returns each member once.
// When only is not empty, groups outside it are ignored; naming a group the
// organization does not have is an error, so a typo in --groups does not
// silently reconcile nothing.
func Discover(ctx context.Context, l Lister, organizationID string, only []string) (*Directory, error) {
	want, found := map[string]bool{}, map[string]bool{}
	for _, id := range only {
		want[id] = true
	}
	dir := &Directory{OrganizationID: organizationID}
	byMID := map[string]*Member{}
	for g, err := range l.Groups(ctx, organizationID) {
		if err != nil {
			return nil, fmt.Errorf("list groups of %s: %w", organizationID, err)
		}
		if len(want) > 0 && !want[g.ID] {
			continue
		}
		found[g.ID] = true
		dir.Groups = append(dir.Groups, g)
		for _, mid := range g.Members {
			m := byMID[mid]
			if m == nil {
				nm := NewMember(mid)
				m = &nm
				byMID[mid] = m
			}
			if !slices.Contains(m.GroupIDs, g.ID) {
				m.GroupIDs = append(m.GroupIDs, g.ID)
			}
		}
	}
	var missing []string
	for id := range want {
		if !found[id] {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		slices.Sort(missing)
		return nil, fmt.Errorf("organization %s has no group %s", organizationID, strings.Join(missing, ", "))
	}
	for _, m := range byMID {
		slices.Sort(m.GroupIDs)
		dir.Members = append(dir.Members, *m)
	}
	slices.SortFunc(dir.Members, func(a, b Member) int { return strings.Compare(a.MerchantID, b.MerchantID) })
	return dir, nil
}

// Named is a directory of the members named directly (--merchants), for
// a run without group management: each MID once, sorted, belonging to no
// group. No group is made up for them: a group ID that looks real would be
// taken for the platform's, so the tables' group columns stay empty and
// the Summary's tables by group have none of these members
// (docs/platform.md, Groups).
func Named(organizationID string, mids []string) *Directory {
	dir := &Directory{OrganizationID: organizationID}
	seen := map[string]bool{}
	for _, mid := range mids {
		if mid == "" || seen[mid] {
			continue
		}
		seen[mid] = true
		dir.Members = append(dir.Members, NewMember(mid))
	}
	slices.SortFunc(dir.Members, func(a, b Member) int { return strings.Compare(a.MerchantID, b.MerchantID) })
	return dir
}

// Shard is the part i of n of the members this process takes.
type Shard struct{ Index, Count int }

// MaxShards bounds n in a shard i/n: far more processes than any
// organization needs (at most 5,000 groups of 10,000 MIDs), and small enough
// that the hash arithmetic of Owns never overflows.
const MaxShards = 65536

// ParseShard parses "i/n" with 1 <= n <= MaxShards and 0 <= i < n.
func ParseShard(s string) (Shard, error) {
	is, ns, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(strings.TrimSpace(is))
	n, err2 := strconv.Atoi(strings.TrimSpace(ns))
	if !ok || err1 != nil || err2 != nil || n < 1 || n > MaxShards || i < 0 || i >= n {
		return Shard{}, fmt.Errorf("shard %q: want i/n with 1 <= n <= %d and 0 <= i < n, e.g. 0/4", s, MaxShards)
	}
	return Shard{Index: i, Count: n}, nil
}

func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// Owns reports whether the member belongs to this shard. The split is by a
// hash of the MID, so it is stable across runs and machines and needs no
// coordination between shard processes.
func (s Shard) Owns(merchantID string) bool {
	if s.Count <= 1 {
		return true
	}
	// By the ID as stored (card data masked: an ID that looks like a card
	// number is stored masked), so that a merge, which sees only stored
	// IDs, finds each member in the shard that took it.
	h := fnv.New32a()
	h.Write([]byte(StoredIDOf(merchantID)))
	return int(h.Sum32()%uint32(s.Count)) == s.Index
}

// Select returns the members of the shard.
func (s Shard) Select(members []Member) []Member {
	var out []Member
	for _, m := range members {
		if s.Owns(m.MerchantID) {
			out = append(out, m)
		}
	}
	return out
}
