package merge

import (
	"fmt"
	"strings"

	"github.com/reconcile/reconcile/internal/store"
)

// Problems says why a published merge is partial, in one line.
func (res *Result) Problems() string {
	var parts []string
	if missing := res.Missing(); len(missing) > 0 {
		parts = append(parts, "shards missing: "+strings.Join(missing, ", "))
	}
	for _, s := range res.Publication.Shards {
		if s.Status == string(store.RunPartial) {
			parts = append(parts, "shard "+s.Shard+" partial")
		}
	}
	if n := res.Publication.Members[string(store.MemberFailed)]; n > 0 {
		parts = append(parts, fmt.Sprintf("%d members not reconciled", n))
	}
	return strings.Join(parts, "; ")
}
