// Package checks runs what a run finds once its members are loaded: every
// finding check of queries/findings over slices of the run's members, the
// findings' day-over-day state (new, open, resolved against the member's
// previous findings; first_seen_run, previous_findings, finding_kinds) and
// their acknowledgements (acknowledged; made by reconcile ack or a run's
// file, audited, expired and reopened here: acknowledgements.go),
// the interchange-at-risk estimate with its rate table, and the
// recurring-billing reports of queries/billing (status log, recoveries,
// ageing, metrics, three-way match).
//
// The checks themselves are SQL, read by analysts as they run; this
// package decides which run and which members they see, and keeps their
// results comparable from one day to the next. It reads and writes the
// working database through store only, and knows nothing of the platform.
package checks

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/reconcile/reconcile/internal/store"
	"github.com/reconcile/reconcile/queries"
)

// Params is what the checks need to know of the run they check.
type Params struct {
	ID           string
	BusinessDate time.Time
	Window       store.Window
	Started      time.Time // when the run started: the rate table's loaded_at
	// InterchangeRates is the rate table of the interchange-at-risk
	// estimate; nil means DefaultInterchangeRates (LoadInterchangeRates
	// reads --interchange-rates).
	InterchangeRates *RateTable
	// RetryLimits is the card networks' retry-limit table of
	// reattempts_over_network_limit; nil means DefaultRetryLimits
	// (LoadRetryLimits reads --retry-limits).
	RetryLimits *RetryLimitTable
	// BNPLSessionAge is how old a pending buy-now-pay-later session must be
	// at the run's cut-off to be reported stale; default 24 hours.
	BNPLSessionAge time.Duration
	// ChargebackShare is the share of a member's captures its chargebacks
	// in the window must reach to be reported (chargeback_share_exceeded);
	// 0 means DefaultChargebackShare.
	ChargebackShare float64
	// SettlementDays is how many business days a capture may take to
	// settle before capture_not_settled reports it; 0 means
	// DefaultSettlementDays.
	SettlementDays int
}

// DefaultChargebackShare is the Visa Dispute Monitoring Program's standard
// ratio of disputes to sales, 0.9% (Mastercard's Excessive Chargeback
// Merchant threshold is 1.5%): docs/platform.md gives the sources.
const DefaultChargebackShare = 0.009

// DefaultSettlementDays is --settlement-days's default: a capture settles in
// the nightly batch, funded a day or two later; three business days leave
// a weekend's and a bank holiday's slack.
const DefaultSettlementDays = 3

// Statements of queries/checks.sql.
var (
	clearInterchangeRates  = queries.Must("checks.sql", "ClearInterchangeRates")
	insertInterchangeRate  = queries.Must("checks.sql", "InsertInterchangeRate")
	clearInterchangeAtRisk = queries.Must("checks.sql", "ClearInterchangeAtRisk")
	clearRetryLimits       = queries.Must("checks.sql", "ClearRetryLimits")
	insertRetryLimit       = queries.Must("checks.sql", "InsertRetryLimit")
)

// Findings runs the checks with what the payments audit needs around
// them: the buy-now-pay-later session age, the interchange rate table and
// the retry-limit table are put where the SQL reads them, and after the
// findings the interchange at risk is estimated from them. It returns the
// run's findings per kind, new and open together.
func Findings(ctx context.Context, s *store.Store, run Params) (map[string]int64, error) {
	age := run.BNPLSessionAge
	if age <= 0 {
		age = 24 * time.Hour
	}
	if _, err := s.Conn().ExecContext(ctx, fmt.Sprintf("SET VARIABLE bnpl_session_age = INTERVAL '%d seconds'", int64(age/time.Second))); err != nil {
		return nil, fmt.Errorf("set the session age: %w", err)
	}
	share := run.ChargebackShare
	if share <= 0 {
		share = DefaultChargebackShare
	}
	if _, err := s.Conn().ExecContext(ctx, "SET VARIABLE chargeback_share = "+strconv.FormatFloat(share, 'f', -1, 64)); err != nil {
		return nil, fmt.Errorf("set the chargeback share: %w", err)
	}
	days := run.SettlementDays
	if days <= 0 {
		days = DefaultSettlementDays
	}
	if _, err := s.Conn().ExecContext(ctx, fmt.Sprintf("SET VARIABLE settlement_days = %d", days)); err != nil {
		return nil, fmt.Errorf("set the settlement days: %w", err)
	}
	if err := storeInterchangeRates(ctx, s, run); err != nil {
		return nil, err
	}
	if err := storeRetryLimits(ctx, s, run); err != nil {
		return nil, err
	}
	counts, err := computeFindings(ctx, s, run.ID, run.BusinessDate, run.Window, run.Started)
	if err != nil {
		return nil, err
	}
	err = s.Transact(ctx, func(tx *store.Tx) error {
		_, err := tx.Exec(ctx, clearInterchangeAtRisk, run.ID)
		return err
	})
	if err == nil {
		err = s.ForEachSlice(ctx, run.ID, func(tx *store.Tx, _ store.Slice) error {
			_, err := tx.Exec(ctx, queries.InterchangeAtRisk(), run.ID)
			return err
		})
	}
	if err != nil {
		return nil, fmt.Errorf("estimate interchange at risk: %w", err)
	}
	return counts, nil
}

// storeInterchangeRates replaces interchange_rates with the run's table,
// where the estimate reads it.
func storeInterchangeRates(ctx context.Context, s *store.Store, run Params) error {
	rates := run.InterchangeRates
	if rates == nil {
		rates = DefaultInterchangeRates()
	}
	err := s.Transact(ctx, func(tx *store.Tx) error {
		if _, err := tx.Exec(ctx, clearInterchangeRates); err != nil {
			return err
		}
		for _, rt := range rates.Rates {
			if _, err := tx.Exec(ctx, insertInterchangeRate, rt.Network,
				strconv.FormatFloat(rt.Level2, 'f', -1, 64), strconv.FormatFloat(rt.Level3, 'f', -1, 64),
				rates.Source, run.Started); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("store interchange rates: %w", err)
	}
	return nil
}

// storeRetryLimits replaces retry_limits with the run's table, where
// reattempts_over_network_limit reads it.
func storeRetryLimits(ctx context.Context, s *store.Store, run Params) error {
	limits := run.RetryLimits
	if limits == nil {
		limits = DefaultRetryLimits()
	}
	err := s.Transact(ctx, func(tx *store.Tx) error {
		if _, err := tx.Exec(ctx, clearRetryLimits); err != nil {
			return err
		}
		for _, l := range limits.Limits {
			if _, err := tx.Exec(ctx, insertRetryLimit, l.Network, l.Reattempts, windowText(l.Window), l.CITMITApart,
				limits.Source, run.Started); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("store retry limits: %w", err)
	}
	return nil
}

// Billing fills the run's recurring-billing tables; it runs after
// Findings (see computeBilling).
func Billing(ctx context.Context, s *store.Store, run Params) error {
	return computeBilling(ctx, s, run.ID, run.BusinessDate, run.Window)
}
