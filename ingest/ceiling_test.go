package ingest

import (
	"context"
	"database/sql"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/reconcile/reconcile/platform"
	"github.com/reconcile/reconcile/store"
	"github.com/reconcile/reconcile/subscriptions"
)

// LoadCeiling decodes every stored record of src again (2 goroutines, as
// docs/ceilings.md's ceiling) and loads it into a fresh database through the
// same batches and single writer as a run. (Exported for BenchmarkIngest,
// which runs a whole pipeline and so lives in package ingest_test.)
func LoadCeiling(b *testing.B, src *store.Store, dir string) (int64, time.Duration) {
	b.Helper()
	ctx := context.Background()
	type memberRaw struct {
		mid               string
		plans, subs, txns []json.RawMessage
		payments          map[string][]json.RawMessage
	}
	raws := map[string]*memberRaw{}
	get := func(mid string) *memberRaw {
		if raws[mid] == nil {
			raws[mid] = &memberRaw{mid: mid, payments: map[string][]json.RawMessage{}}
		}
		return raws[mid]
	}
	read := func(q string, f func(mid, sub string, raw json.RawMessage)) {
		rows, err := src.ReadPool().QueryContext(ctx, q)
		if err != nil {
			b.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			var mid string
			var sub sql.NullString
			var raw string
			if err := rows.Scan(&mid, &sub, &raw); err != nil {
				b.Fatal(err)
			}
			f(mid, sub.String, json.RawMessage(raw))
		}
	}
	read(`SELECT merchant_id, NULL, CAST(raw AS VARCHAR) FROM plans`, func(m, _ string, r json.RawMessage) { get(m).plans = append(get(m).plans, r) })
	read(`SELECT merchant_id, NULL, CAST(raw AS VARCHAR) FROM subscriptions`, func(m, _ string, r json.RawMessage) { get(m).subs = append(get(m).subs, r) })
	read(`SELECT merchant_id, subscription_id, CAST(raw AS VARCHAR) FROM subscription_payments`, func(m, s string, r json.RawMessage) {
		get(m).payments[s] = append(get(m).payments[s], r)
	})
	read(`SELECT merchant_id, NULL, CAST(raw AS VARCHAR) FROM transactions`, func(m, _ string, r json.RawMessage) { get(m).txns = append(get(m).txns, r) })

	dst, err := store.Open(ctx, filepath.Join(dir, "ceiling.duckdb"))
	if err != nil {
		b.Fatal(err)
	}
	defer dst.Close()
	start := time.Now()
	batches := make(chan *memberBatch, 16)
	var g errgroup.Group
	g.SetLimit(2)
	var total int64
	done := make(chan error, 1)
	go func() {
		var err error
		var group []loadJob
		rows := 0
		flush := func() {
			if e := loadMembers(ctx, dst, group); e != nil && err == nil {
				err = e
			}
			group, rows = nil, 0
		}
		for batch := range batches {
			j := loadJob{batch: batch, status: MemberResult{RunID: "bench", MerchantID: batch.merchantID, Status: store.MemberOK}}
			total += int64(j.rows())
			group, rows = append(group, j), rows+j.rows()
			if rows >= maxRowsPerLoad || len(batches) == 0 {
				flush()
			}
		}
		if len(group) > 0 {
			flush()
		}
		done <- err
	}()
	for _, m := range raws {
		g.Go(func() error {
			snap := &subscriptions.Snapshot{Payments: map[string]*platform.PaymentList{}}
			for _, r := range m.plans {
				p, err := platform.DecodePlan(r)
				if err != nil {
					return err
				}
				snap.Plans = append(snap.Plans, p)
			}
			for _, r := range m.subs {
				s, err := platform.DecodeSubscription(r)
				if err != nil {
					return err
				}
				snap.Subscriptions = append(snap.Subscriptions, s)
				list := &platform.PaymentList{}
				for _, pr := range m.payments[s.ID] {
					p, err := platform.DecodePayment(pr)
					if err != nil {
						return err
					}
					list.Payments = append(list.Payments, p)
				}
				snap.Payments[s.ID] = list
			}
			batch := newMemberBatch(m.mid)
			if err := batch.addRecurring(snap, nil, "bench", start); err != nil {
				return err
			}
			for _, r := range m.txns {
				t, err := platform.DecodeTransaction(r)
				if err != nil {
					return err
				}
				if err := batch.addTransaction(t, "bench", start); err != nil {
					return err
				}
			}
			batches <- batch
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		b.Fatal(err)
	}
	close(batches)
	if err := <-done; err != nil {
		b.Fatal(err)
	}
	return total, time.Since(start)
}
