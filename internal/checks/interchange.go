package checks

import (
	"bytes"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/reconcile/reconcile/internal/cardmask"
)

// InterchangeRate is how much lower a network's Level II and Level III
// interchange rates are than its standard commercial rate, as fractions of
// the amount (0.005 is half a percentage point).
type InterchangeRate struct {
	Network        string // as bin_attributes.brand names it (VISA, MASTERCARD, ...); "*" for any other
	Level2, Level3 float64
}

// RateTable is the interchange rate table of a run and where it came from.
type RateTable struct {
	Source string // "default" or the file read, its path masked (cardmask.MaskText): it is stored
	Rates  []InterchangeRate
}

// DefaultInterchangeRates is the rate table used without
// --interchange-rates. It is an assumption, not the platform's or a
// network's price list: typical published US differences between the
// standard commercial-card rate and the Level II and Level III rates,
// rounded. docs/payments-audit.md shows it; an organization with its own
// interchange schedule passes it with --interchange-rates.
func DefaultInterchangeRates() *RateTable {
	return &RateTable{Source: "default", Rates: []InterchangeRate{
		{Network: "VISA", Level2: 0.0050, Level3: 0.0090},
		{Network: "MASTERCARD", Level2: 0.0050, Level3: 0.0085},
		{Network: "DISCOVER", Level2: 0.0025, Level3: 0.0050},
		{Network: "AMERICAN EXPRESS", Level2: 0, Level3: 0}, // no Level II/III interchange program
		{Network: "*", Level2: 0.0040, Level3: 0.0075},
	}}
}

// LoadInterchangeRates reads a rate table file: CSV with a header row
// network,level2,level3, or YAML (.yaml, .yml) mapping each network to
// {level2: ..., level3: ...}. Rates are fractions between 0 and 1 (0.009 for
// 0.9 percentage points): a rate above 1 is refused as a percent written
// where a fraction belongs. An empty path gives DefaultInterchangeRates.
func LoadInterchangeRates(path string) (*RateTable, error) {
	if path == "" {
		return DefaultInterchangeRates(), nil
	}
	rates, err := readTableFile(path, "interchange rates", parseRatesCSV, parseRatesYAML)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for i, r := range rates {
		r.Network = strings.ToUpper(strings.TrimSpace(r.Network))
		rates[i] = r
		switch {
		case r.Network == "":
			return nil, fmt.Errorf("interchange rates %s: entry %d has no network", path, i+1)
		case seen[r.Network]:
			return nil, fmt.Errorf("interchange rates %s: network %s listed twice", path, r.Network)
		}
		seen[r.Network] = true
		for _, v := range []float64{r.Level2, r.Level3} {
			if v < 0 || v > 1 {
				return nil, fmt.Errorf("interchange rates %s: %s: rate %g is not a fraction between 0 and 1 (write 0.9 percentage points as 0.009)", path, r.Network, v)
			}
		}
	}
	if len(rates) == 0 {
		return nil, fmt.Errorf("interchange rates %s: no rates", path)
	}
	sort.Slice(rates, func(i, j int) bool { return rates[i].Network < rates[j].Network })
	return &RateTable{Source: cardmask.MaskText(path), Rates: rates}, nil
}

func parseRatesCSV(b []byte) ([]InterchangeRate, error) {
	rows, err := readCSVTable(b, []string{"network", "level2", "level3"}, nil)
	if err != nil {
		return nil, err
	}
	var out []InterchangeRate
	for _, row := range rows {
		rate := InterchangeRate{Network: row.values["network"]}
		for _, f := range []struct {
			name string
			dst  *float64
		}{{"level2", &rate.Level2}, {"level3", &rate.Level3}} {
			v, err := strconv.ParseFloat(strings.TrimSpace(row.values[f.name]), 64)
			if err != nil {
				return nil, fmt.Errorf("line %d: %s %q is not a number", row.line, f.name, row.values[f.name])
			}
			*f.dst = v
		}
		out = append(out, rate)
	}
	return out, nil
}

func parseRatesYAML(b []byte) ([]InterchangeRate, error) {
	var m map[string]struct {
		Level2 *float64 `yaml:"level2"`
		Level3 *float64 `yaml:"level3"`
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&m); err != nil {
		return nil, err
	}
	var out []InterchangeRate
	for network, v := range m {
		if v.Level2 == nil || v.Level3 == nil {
			return nil, fmt.Errorf("%s: give both level2 and level3", network)
		}
		out = append(out, InterchangeRate{Network: network, Level2: *v.Level2, Level3: *v.Level3})
	}
	return out, nil
}
