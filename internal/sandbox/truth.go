package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"sync"
	"time"
)

// Finding kinds (docs/findings.md) that the sandbox plants and reports.
const (
	KindLevel3NotTransmitted        = "level3_not_transmitted"
	KindCommercialCardWithoutLevel3 = "commercial_card_without_level3"
	KindSkippedCycle                = "skipped_cycle"
	KindSubscriptionDelinquent      = "subscription_delinquent"
	KindSubscriptionSuspended       = "subscription_suspended"
	KindPaidWithoutTransaction      = "paid_without_transaction"
	KindAmountMismatch              = "amount_mismatch"
	KindBinUnresolved               = "bin_unresolved"
)

// Kinds lists every finding kind of the ground truth.
func Kinds() []string {
	kinds := []string{KindLevel3NotTransmitted, KindCommercialCardWithoutLevel3, KindSkippedCycle,
		KindSubscriptionDelinquent, KindSubscriptionSuspended, KindPaidWithoutTransaction,
		KindAmountMismatch, KindBinUnresolved}
	kinds = append(kinds, billingKinds()...)
	kinds = append(kinds, areaKinds()...)
	kinds = append(kinds, disputeKinds()...)
	kinds = append(kinds, settlementKinds()...)
	kinds = append(kinds, retryKinds()...)
	for _, k := range plantedKindNames() { // a kind planted.go adds
		if !slices.Contains(kinds, k) {
			kinds = append(kinds, k)
		}
	}
	return kinds
}

// GroundTruth is what a correct reconciliation of the generated data over
// the Config window must report.
type GroundTruth struct {
	Seed           int64  `json:"seed"`
	Scale          string `json:"scale"`
	OrganizationID string `json:"organizationId"`
	BusinessDate   string `json:"businessDate"` // 2026-11-20
	// WorldDate is the business date the world was generated for, when
	// this truth is of a later night of it (nights.go); absent on the
	// world's first night.
	WorldDate      string               `json:"worldDate,omitempty"`
	Lookback       int                  `json:"lookback"`
	WindowStart    string               `json:"windowStart"` // RFC3339
	WindowEnd      string               `json:"windowEnd"`
	Groups         []TruthGroup         `json:"groups"`
	Findings       map[string][]Finding `json:"findings"`       // every kind present, possibly empty; each list sorted by merchantId, entityId
	JournalRejects []JournalReject      `json:"journalRejects"` // the planted bad journal lines
	// BillingMatch holds the exceptions of the three-way match of
	// subscription payments (docs/billing.md), sorted by merchantId,
	// paymentId, leg.
	BillingMatch []BillingException `json:"billingMatch"`
}

// TruthGroup is a group of the organization and its members.
type TruthGroup struct {
	ID      string   `json:"id"`
	Name    string   `json:"name"`
	Members []string `json:"members"`
}

// Finding is one entity a correct reconciliation reports.
type Finding struct {
	MerchantID string `json:"merchantId"`
	EntityID   string `json:"entityId"`
	Amount     string `json:"amount,omitempty"` // "12.34"
	Currency   string `json:"currency,omitempty"`
}

// JournalReject is a journal line a correct import rejects.
type JournalReject struct {
	File   string `json:"file"` // base name
	Line   int    `json:"line"` // 1-based
	Reason string `json:"reason"`
}

func (s *Server) windowBounds() (time.Time, time.Time) {
	return s.nightWindow(s.cfg.BusinessDate)
}

// withMember runs fn on member idx as generated: the cached copy while it
// is still pristine, else a fresh generation that is not cached, so
// streaming over every member leaves the cache alone. Writes and the
// clock change a member; the ground truth and the journals describe the
// data as generated.
func (s *Server) withMember(idx int, fn func(m *member)) {
	m := s.cache.peek(idx)
	if m != nil {
		m.mu.Lock()
		ok := m.pristine(s.gen.asOf)
		m.mu.Unlock()
		if !ok {
			m = nil
		}
	}
	if m == nil {
		m = s.gen.member(idx)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	fn(m)
}

// workers bounds the goroutines that stream over members.
func workers() int { return max(1, min(runtime.GOMAXPROCS(0), 8)) }

// forEachMember runs fn over every member on a few goroutines.
func (s *Server) forEachMember(fn func(idx int) error) error {
	n := s.cfg.Scale.Members
	idx := make(chan int)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for w := 0; w < min(workers(), n); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range idx {
				errs[i] = fn(i)
			}
		}()
	}
	for i := 0; i < n; i++ {
		idx <- i
	}
	close(idx)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// GroundTruth computes the findings by the definitions of docs/findings.md over
// the Config window, streaming over the members. It is the truth of the
// data as generated, groups included: writes through the API and moving
// the clock change the data but not the ground truth, so a test that
// writes computes its own expectations.
func (s *Server) GroundTruth() (*GroundTruth, error) {
	return s.GroundTruthOn(s.cfg.BusinessDate)
}

// GroundTruthOn is the ground truth of a later night of the same world
// (nights.go): the data as generated, moved by the billing engine to that
// night's data clock, over that night's window. night is BusinessDate or
// a later day.
func (s *Server) GroundTruthOn(night time.Time) (*GroundTruth, error) {
	night, err := s.checkNight(night)
	if err != nil {
		return nil, err
	}
	w0, w1 := s.nightWindow(night)
	gt := &GroundTruth{Seed: s.cfg.Seed, Scale: s.cfg.Scale.String(), OrganizationID: s.cfg.OrganizationID,
		BusinessDate: night.Format(time.DateOnly), Lookback: s.cfg.Lookback,
		WindowStart: ts(w0), WindowEnd: ts(w1), Findings: map[string][]Finding{}}
	if !night.Equal(s.cfg.BusinessDate) {
		gt.WorldDate = s.cfg.BusinessDate.Format(time.DateOnly)
	}
	for _, g := range s.initial {
		gt.Groups = append(gt.Groups, TruthGroup{ID: g.ID, Name: g.Name, Members: append([]string{}, g.Members...)})
	}
	per := make([]map[string][]Finding, s.cfg.Scale.Members)
	match := make([][]BillingException, s.cfg.Scale.Members)
	err = s.forEachMember(func(i int) error {
		s.withMemberOn(i, night, func(m *member) {
			per[i], match[i] = memberFindings(m, w0, w1), s.gen.billingMatch(m, w0, w1)
			disputeFindings(m, s.gen.business, w0, w1, s.cfg.Scale.Members, func(kind, entity string, amount int64, currency string) {
				f := Finding{MerchantID: m.id, EntityID: entity, Currency: currency}
				if currency != "" {
					f.Amount = moneyIn(amount, currency)
				}
				per[i][kind] = append(per[i][kind], f)
			})
			settlementFindings(m, nightClock(night), w0, w1, func(kind, entity string, amount int64, currency string) {
				per[i][kind] = append(per[i][kind], Finding{MerchantID: m.id, EntityID: entity, Amount: moneyIn(amount, currency), Currency: currency})
			})
		})
		return nil
	})
	if err != nil {
		return nil, err
	}
	funded := s.fundingFindings(night, w0, w1)
	for _, k := range Kinds() {
		list := []Finding{}
		for _, f := range per {
			list = append(list, f[k]...)
		}
		if k == KindFundingTieoutMismatch {
			list = append(list, funded...)
		}
		sort.Slice(list, func(i, j int) bool {
			if list[i].MerchantID != list[j].MerchantID {
				return list[i].MerchantID < list[j].MerchantID
			}
			return list[i].EntityID < list[j].EntityID
		})
		gt.Findings[k] = list
	}
	gt.BillingMatch = []BillingException{}
	for _, list := range match {
		gt.BillingMatch = append(gt.BillingMatch, list...)
	}
	sortExceptions(gt.BillingMatch)
	file := journalName(memberID(0))
	gt.JournalRejects = []JournalReject{
		{File: file, Line: rejectInvalidLine, Reason: "invalid JSON"},
		{File: file, Line: rejectNoMerchantLin, Reason: "missing merchantId"},
	}
	return gt, nil
}

// memberFindings applies each finding kind's definition to one member.
func memberFindings(m *member, w0, w1 time.Time) map[string][]Finding {
	in := func(t time.Time) bool { return !t.Before(w0) && t.Before(w1) }
	out := map[string][]Finding{}
	add := func(kind, entity string, amount int64, currency string) {
		out[kind] = append(out[kind], Finding{MerchantID: m.id, EntityID: entity, Amount: moneyIn(amount, currency), Currency: currency})
	}
	// The kinds the planter records (planted.go).
	plantedFindings(m, truthWindow{w0, w1}, add)
	billingFindings(m, w0, w1, add)
	areaFindings(m, w0, w1, add)
	retryFindings(m, w0, w1, add)
	for _, c := range m.calls {
		if !in(c.time) {
			continue
		}
		if flagsCommercialWithoutL3(c) {
			add(KindCommercialCardWithoutLevel3, c.respID, c.amount, c.currency)
		}
		if flagsL3NotTransmitted(c) {
			add(KindLevel3NotTransmitted, c.respID, c.amount, c.currency)
		}
	}
	// bin_unresolved: BINs on in-window transactions (the journal calls are
	// transactions too) whose prefix lookup is not COMPLETED and that no
	// token on the member's transactions resolves.
	resolved := map[string]bool{}
	for _, t := range m.txns {
		if t.card != nil && t.card.record() != nil {
			resolved[t.card.prefix()] = true
		}
	}
	seen := map[string]bool{}
	for _, t := range m.txns {
		if t.card == nil {
			continue
		}
		p := t.card.prefix()
		if !in(t.time) || seen[p] {
			continue
		}
		seen[p] = true
		if outcome, _, _ := lookupPrefixOrPAN(p); outcome == binCompleted || resolved[p] {
			continue
		}
		out[KindBinUnresolved] = append(out[KindBinUnresolved], Finding{MerchantID: m.id, EntityID: p})
	}
	return out
}

// WriteGroundTruth writes the ground truth as indented JSON, to a temporary
// name first and then renamed, so a reader never sees half a file.
func (s *Server) WriteGroundTruth(path string) error {
	return s.WriteGroundTruthOn(path, s.cfg.BusinessDate)
}

// WriteGroundTruthOn writes the ground truth of a night (GroundTruthOn)
// as WriteGroundTruth does.
func (s *Server) WriteGroundTruthOn(path string, night time.Time) error {
	gt, err := s.GroundTruthOn(night)
	if err != nil {
		return err
	}
	b, err := json.MarshalIndent(gt, "", "  ")
	if err != nil {
		return fmt.Errorf("encode ground truth: %w", err)
	}
	return writeAtomic(path, append(b, '\n'))
}

// writeAtomic writes data to path through a temporary file renamed into
// place, so that a reader never sees half a file.
func writeAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	_, werr := f.Write(data)
	cerr := f.Close()
	if werr != nil || cerr != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, errors.Join(werr, cerr))
	}
	if err := os.Rename(tmp, path); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
