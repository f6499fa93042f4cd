package sandbox

import (
	"io"
	"net/http"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkListPages measures list pages served per second over loopback:
// signed GETs from 8 concurrent keep-alive clients in the same process (so
// the figure includes the client's share of the 2 cores), one sub-benchmark
// per list the product reads. A nightly run reads, per member, one plan
// page, one subscription page of up to 100, and one payment list per
// subscription: payment lists are most of the pages.
func BenchmarkListPages(b *testing.B) {
	s, c := newTestServer(b, Config{Seed: 7, Scale: Scale{Members: 8, Subscriptions: 100, Groups: 1}})
	c.hc = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64, MaxConnsPerHost: 64}}
	mids := s.Members()
	subIDs := map[string][]string{}
	for _, mid := range mids {
		for _, sb := range c.subscriptions(mid) {
			subIDs[mid] = append(subIDs[mid], sb.ID)
		}
	}
	for _, bc := range []struct {
		name string
		path func(mid string, i int) string
	}{
		{"payments", func(mid string, i int) string {
			ids := subIDs[mid]
			return "/rbs/v1/subscriptions/" + ids[i%len(ids)] + "/payments?offset=0&limit=100&scheduledPaymentsCount=9999"
		}},
		{"plans", func(string, int) string { return "/rbs/v1/plans?offset=0&limit=100" }},
		{"subscriptions100", func(string, int) string { return "/rbs/v1/subscriptions?offset=0&limit=100" }},
		{"groups", func(string, int) string { return "/group-management/v1/groups?organizationId=" + DefaultOrganizationID }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var n atomic.Int64
			var bytes atomic.Int64
			b.SetParallelism(4) // 4 × GOMAXPROCS goroutines: 8 in flight on 2 cores
			b.ResetTimer()
			start := time.Now()
			b.RunParallel(func(pb *testing.PB) {
				i := int(n.Add(1)) * 7919
				for pb.Next() {
					mid := mids[i%len(mids)]
					i++
					req, _ := http.NewRequest("GET", c.base+bc.path(mid, i), nil)
					req.Header.Set("v-c-merchant-id", mid)
					c.sg.Sign(req, nil)
					resp, err := c.hc.Do(req)
					if err != nil {
						b.Error(err)
						return
					}
					k, _ := io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					bytes.Add(k)
					if resp.StatusCode != 200 {
						b.Errorf("status %d", resp.StatusCode)
						return
					}
				}
			})
			el := time.Since(start).Seconds()
			b.ReportMetric(float64(b.N)/el, "pages/s")
			b.ReportMetric(float64(bytes.Load())/float64(b.N), "bytes/page")
		})
	}
}

// TestMemoryAtScaleLarge reads every member of the large scale (10,000 ×
// 100 subscriptions) through the API the way a nightly run does, and
// reports the peak heap. It takes a minute or two on two cores: it runs only when
// SANDBOX_MEMORY_TEST=1 is set, never under -short.
func TestMemoryAtScaleLarge(t *testing.T) {
	if testing.Short() || os.Getenv("SANDBOX_MEMORY_TEST") == "" {
		t.Skip("set SANDBOX_MEMORY_TEST=1 to measure the memory at scale large (minutes)")
	}
	sc, _ := ParseScale("large")
	s, c := newTestServer(t, Config{Seed: 7, Scale: sc})
	c.hc = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}}
	var peak atomic.Uint64
	stop := make(chan struct{})
	go func() {
		var ms runtime.MemStats
		for {
			select {
			case <-stop:
				return
			case <-time.After(50 * time.Millisecond):
				runtime.ReadMemStats(&ms)
				if ms.HeapInuse > peak.Load() {
					peak.Store(ms.HeapInuse)
				}
			}
		}
	}()
	start := time.Now()
	mids := s.Members()
	var wg sync.WaitGroup
	next := atomic.Int64{}
	pages := atomic.Int64{}
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= len(mids) {
					return
				}
				mid := mids[i]
				cc := c.with(t)
				cc.j("GET", "/rbs/v1/plans?limit=100", mid, nil, 200)
				subs := cc.subscriptions(mid)
				day := testDate
				cc.searchAll(mid, day.AddDate(0, 0, -3), day.AddDate(0, 0, 1), 2000)
				// A payment list of every tenth subscription keeps the
				// run to a few minutes; every member is generated anyway.
				for k := 0; k < len(subs); k += 10 {
					cc.payments(mid, subs[k].ID)
				}
				pages.Add(int64(3 + len(subs)/10))
			}
		}()
	}
	wg.Wait()
	readDur := time.Since(start)
	gtStart := time.Now()
	if _, err := s.GroundTruth(); err != nil {
		t.Fatal(err)
	}
	close(stop)
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	t.Logf("scale large: %d members read in %s (%d pages), ground truth in %s; peak heap in use %.0f MiB, after GC %.0f MiB, Go total from OS %.0f MiB",
		len(mids), readDur.Round(time.Second), pages.Load(), time.Since(gtStart).Round(time.Second),
		float64(peak.Load())/(1<<20), float64(ms.HeapInuse)/(1<<20), float64(ms.Sys)/(1<<20))
	if peak.Load() > 2<<30 {
		t.Errorf("peak heap %d MiB over the 2 GiB target", peak.Load()>>20)
	}
}

// BenchmarkEngineYear measures the billing engine: one member of 100
// subscriptions generated and moved a year forward.
func BenchmarkEngineYear(b *testing.B) {
	s, err := New(Config{Seed: 7, BusinessDate: testDate, Scale: Scale{Members: 1, Subscriptions: 100, Groups: 1}})
	if err != nil {
		b.Fatal(err)
	}
	to := s.DataAsOf().AddDate(1, 0, 0)
	events := 0
	for b.Loop() {
		m := s.gen.member(0)
		m.mu.Lock()
		s.advance(m, to)
		events = len(m.txns)
		m.mu.Unlock()
	}
	b.ReportMetric(float64(events), "txns/member")
}
