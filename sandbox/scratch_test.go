package sandbox

import (
	"fmt"
	"os"
	"runtime"
	"testing"
	"time"
)

func TestScratchDump(t *testing.T) {
	_, c := newTestServer(t, Config{Seed: 7})
	mid := memberID(0)
	_, b, _ := c.do("GET", "/rbs/v1/plans?limit=2", mid, nil)
	fmt.Println(string(b))
	_, b, _ = c.do("GET", "/rbs/v1/subscriptions?limit=1", mid, nil)
	fmt.Println(string(b))
	subs := c.subscriptions(mid)
	for _, s := range subs {
		if s.SubscriptionInformation.Status == "DELINQUENT" {
			_, b, _ = c.do("GET", "/rbs/v1/subscriptions/"+s.ID+"/payments?limit=100&scheduledPaymentsCount=2", mid, nil)
			fmt.Println(string(b))
			break
		}
	}
	_, b, _ = c.do("POST", "/tss/v2/searches", mid, map[string]any{"query": "submitTimeUtc:[2026-11-20T00:00:00Z TO 2026-11-21T00:00:00Z}", "limit": 2})
	fmt.Println(string(b))
	_, b, _ = c.do("POST", "/bin/v1/binlookup", mid, cardLookup("448590"))
	fmt.Println(string(b))
	_, b, _ = c.do("GET", "/groups?organizationId=sbxorg&limit=1", mid, nil)
	fmt.Println(string(b))
	_, b, _ = c.do("GET", "/groups/1001", mid, nil)
	fmt.Println(string(b))
}

func TestScratchLarge(t *testing.T) {
	if os.Getenv("LARGE") == "" {
		t.Skip()
	}
	sc, _ := ParseScale("large")
	s, _ := New(Config{Seed: 7, Scale: sc, BusinessDate: testDate})
	var ms0, ms1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms0)
	for i := 0; i < 64; i++ {
		s.cache.get(i)
	}
	runtime.GC()
	runtime.ReadMemStats(&ms1)
	fmt.Printf("64 cached members: %d MB\n", (ms1.HeapAlloc-ms0.HeapAlloc)>>20)
	start := time.Now()
	gt, err := s.GroundTruth()
	if err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&ms1)
	fmt.Printf("large truth in %s, heap sys %d MB\n", time.Since(start), ms1.HeapSys>>20)
	for _, k := range Kinds() {
		fmt.Println(k, len(gt.Findings[k]))
	}
	start = time.Now()
	dir := t.TempDir()
	if _, err := s.WriteJournals(dir); err != nil {
		t.Fatal(err)
	}
	fmt.Printf("large journals in %s\n", time.Since(start))
}
