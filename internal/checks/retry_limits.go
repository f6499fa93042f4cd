package checks

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/reconcile/reconcile/internal/cardmask"
)

// RetryLimit is how many reattempts of a declined card a card network
// allows the same merchant within a rolling window
// (reattempts_over_network_limit).
type RetryLimit struct {
	Network    string // as the view card_attempts names it (VISA, MASTERCARD, ...); "*" for any other
	Reattempts int    // allowed within the window: the next one is over the limit
	Window     time.Duration
	// CITMITApart counts customer-initiated and merchant-initiated
	// reattempts apart, each against the limit (Visa since 19 May 2025).
	CITMITApart bool
}

// RetryLimitTable is the retry-limit table of a run and where it came from.
type RetryLimitTable struct {
	Source string // "default" or the file read, its path masked (cardmask.MaskText): it is stored
	Limits []RetryLimit
}

const oneDay = 24 * time.Hour

// maxRetryWindow bounds a limit's window: the check compares a year of
// history at most, and a longer window is a typo (720d for 720h).
const maxRetryWindow = 366 * oneDay

// DefaultRetryLimits is the table used without --retry-limits: the card
// networks' published rules as of 2026 (docs/payments-audit.md gives each
// with its source and date). Visa allows 20 reattempts in 30 days since
// 19 May 2025 (15, customer- and merchant-initiated together, before);
// Mastercard 10 in 24 hours and 35 in 30 days. American Express and
// Discover publish no such limit.
func DefaultRetryLimits() *RetryLimitTable {
	return &RetryLimitTable{Source: "default", Limits: []RetryLimit{
		{Network: "MASTERCARD", Reattempts: 10, Window: oneDay},
		{Network: "MASTERCARD", Reattempts: 35, Window: 30 * oneDay},
		{Network: "VISA", Reattempts: 20, Window: 30 * oneDay, CITMITApart: true},
	}}
}

// LoadRetryLimits reads a retry-limit file: CSV with a header row
// network,reattempts,window[,cit_mit_apart], or YAML (.yaml, .yml) mapping
// each network to a list of {reattempts, window, cit_mit_apart}. A window
// is a number of days (30d) or a Go duration (24h); cit_mit_apart is
// true or false (default false). An empty path gives DefaultRetryLimits.
func LoadRetryLimits(path string) (*RetryLimitTable, error) {
	if path == "" {
		return DefaultRetryLimits(), nil
	}
	limits, err := readTableFile(path, "retry limits", parseRetryLimitsCSV, parseRetryLimitsYAML)
	if err != nil {
		return nil, err
	}
	if err := checkRetryLimits(limits); err != nil {
		return nil, fmt.Errorf("retry limits %s: %w", path, err)
	}
	return &RetryLimitTable{Source: cardmask.MaskText(path), Limits: limits}, nil
}

// checkRetryLimits normalises the networks (upper case) and refuses what
// the check could not apply: no network, a negative count, a window that
// is not positive or is over a year, a network and window given twice, no
// limit at all. It sorts the limits by network and window.
func checkRetryLimits(limits []RetryLimit) error {
	if len(limits) == 0 {
		return errors.New("no limits")
	}
	type key struct {
		network string
		window  time.Duration
	}
	seen := map[key]bool{}
	for i := range limits {
		l := &limits[i]
		l.Network = strings.ToUpper(strings.TrimSpace(l.Network))
		switch {
		case l.Network == "":
			return fmt.Errorf("limit %d has no network", i+1)
		case l.Reattempts < 0:
			return fmt.Errorf("%s: %d reattempts: give 0 or more", l.Network, l.Reattempts)
		case l.Window <= 0 || l.Window > maxRetryWindow:
			return fmt.Errorf("%s: window %s: give one from 1s to 366d", l.Network, l.Window)
		case seen[key{l.Network, l.Window}]:
			return fmt.Errorf("%s: window %s listed twice", l.Network, l.Window)
		}
		seen[key{l.Network, l.Window}] = true
	}
	sort.Slice(limits, func(i, j int) bool {
		if limits[i].Network != limits[j].Network {
			return limits[i].Network < limits[j].Network
		}
		return limits[i].Window < limits[j].Window
	})
	return nil
}

func parseRetryLimitsCSV(b []byte) ([]RetryLimit, error) {
	rows, err := readCSVTable(b, []string{"network", "reattempts", "window"}, []string{"cit_mit_apart"})
	if err != nil {
		return nil, err
	}
	var out []RetryLimit
	for _, row := range rows {
		l, err := retryLimit(row.values["network"], row.values["reattempts"], row.values["window"], row.values["cit_mit_apart"])
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", row.line, err)
		}
		out = append(out, l)
	}
	return out, nil
}

func parseRetryLimitsYAML(b []byte) ([]RetryLimit, error) {
	var m map[string][]struct {
		Reattempts  *string `yaml:"reattempts"`
		Window      *string `yaml:"window"`
		CITMITApart *string `yaml:"cit_mit_apart"`
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("%w (want each network mapped to a list of {reattempts, window, cit_mit_apart})", err)
	}
	var out []RetryLimit
	for network, list := range m {
		for _, v := range list {
			if v.Reattempts == nil || v.Window == nil {
				return nil, fmt.Errorf("%s: give both reattempts and window", network)
			}
			apart := ""
			if v.CITMITApart != nil {
				apart = *v.CITMITApart
			}
			l, err := retryLimit(network, *v.Reattempts, *v.Window, apart)
			if err != nil {
				return nil, err
			}
			out = append(out, l)
		}
	}
	return out, nil
}

// retryLimit reads one limit from its text fields.
func retryLimit(network, reattempts, window, apart string) (RetryLimit, error) {
	l := RetryLimit{Network: network}
	n, err := strconv.Atoi(strings.TrimSpace(reattempts))
	if err != nil {
		return l, fmt.Errorf("%s: reattempts %q is not a whole number", network, reattempts)
	}
	l.Reattempts = n
	if l.Window, err = parseWindow(window); err != nil {
		return l, fmt.Errorf("%s: %w", network, err)
	}
	switch strings.ToLower(strings.TrimSpace(apart)) {
	case "", "false", "no":
	case "true", "yes":
		l.CITMITApart = true
	default:
		return l, fmt.Errorf("%s: cit_mit_apart %q is not true or false", network, apart)
	}
	return l, nil
}

// parseWindow reads a window as whole days (30d) or a Go duration (24h,
// 720h, 90m).
func parseWindow(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.Atoi(days)
		switch {
		case err != nil:
			return 0, fmt.Errorf("window %q: write whole days (30d) or a duration (24h)", s)
		case n > int(maxRetryWindow/oneDay):
			return 0, fmt.Errorf("window %q: give one from 1s to 366d", s)
		}
		return time.Duration(n) * oneDay, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("window %q: write whole days (30d) or a duration (24h)", s)
	}
	return d, nil
}

// windowText is a window as DuckDB reads an INTERVAL: whole days as days
// ("30 days"), else seconds.
func windowText(d time.Duration) string {
	if d%oneDay == 0 {
		return fmt.Sprintf("%d days", d/oneDay)
	}
	return fmt.Sprintf("%d seconds", d/time.Second)
}
