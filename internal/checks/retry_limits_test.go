package checks

import (
	"context"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/reconcile/reconcile/internal/cardmask"
	"github.com/reconcile/reconcile/internal/store/storetest"
)

func TestLoadRetryLimits(t *testing.T) {
	write, dir := tableFiles(t)
	want := []RetryLimit{
		{Network: "*", Reattempts: 5, Window: 7 * 24 * time.Hour},
		{Network: "MASTERCARD", Reattempts: 10, Window: 24 * time.Hour},
		{Network: "MASTERCARD", Reattempts: 35, Window: 30 * 24 * time.Hour},
		{Network: "VISA", Reattempts: 15, Window: 30 * 24 * time.Hour},
	}
	for _, p := range []string{
		write("limits.csv", "# Visa before 19 May 2025\nNetwork, Reattempts, Window, CIT_MIT_Apart\nvisa,15,30d,false\n"+
			"Mastercard,35,720h,\nMASTERCARD, 10, 24h, no\n*,5,168h,\n"),
		write("limits.csv.yml", "VISA:\n  - {reattempts: 15, window: 30d, cit_mit_apart: false}\n"+
			"MASTERCARD:\n  - {reattempts: 10, window: 1d}\n  - {reattempts: 35, window: 720h}\n\"*\":\n  - {reattempts: 5, window: 7d}\n"),
		// Without the optional column.
		write("short.csv", "network,reattempts,window\nVISA,15,30d\nMASTERCARD,35,30d\nMASTERCARD,10,1d\n*,5,7d\n"),
	} {
		lt, err := LoadRetryLimits(p)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if lt.Source != cardmask.MaskText(p) || !reflect.DeepEqual(lt.Limits, want) {
			t.Errorf("%s: %+v", p, lt)
		}
	}
	lt, err := LoadRetryLimits("")
	if err != nil || lt.Source != "default" || !reflect.DeepEqual(lt.Limits, DefaultRetryLimits().Limits) {
		t.Errorf("default table: %+v, %v", lt, err)
	}
	for _, l := range lt.Limits {
		if l.Network == "VISA" && (l.Reattempts != 20 || !l.CITMITApart || l.Window != 30*24*time.Hour) {
			t.Errorf("the default Visa limit is %+v, want 20 in 30 days, CIT and MIT apart (docs/payments-audit.md)", l)
		}
	}
	for body, wantErr := range map[string]string{
		"network,reattempts,window\nVISA,15,30d\nvisa,20,720h\n":                "listed twice",
		"network,reattempts,window\nVISA,-1,30d\n":                              "give 0 or more",
		"network,reattempts,window\nVISA,15,0s\n":                               "from 1s to 366d",
		"network,reattempts,window\nVISA,15,367d\n":                             "from 1s to 366d",
		"network,reattempts,window\nVISA,15,8785h\n":                            "from 1s to 366d",
		"network,reattempts,window\nVISA,15,9999999999h\n":                      "window",
		"network,reattempts,window\nVISA,15,99999999999999999999d\n":            "whole days",
		"network,reattempts,window\nVISA,15,a month\n":                          "whole days",
		"network,reattempts,window\nVISA,fifteen,30d\n":                         "not a whole number",
		"network,reattempts,window\nVISA,1e3,30d\n":                             "not a whole number",
		"network,reattempts,window,cit_mit_apart\nVISA,15,30d,maybe\n":          "not true or false",
		"network,reattempts,window,cit_mit_appart\nVISA,15,30d,true\n":          `names "cit_mit_appart"`,
		"network,window\nVISA,30d\n":                                            `lacks "reattempts"`,
		"network,reattempts,window\n,15,30d\n":                                  "has no network",
		"network,reattempts,window\n":                                           "no limits",
		"network,reattempts,window\nVISA,15\n":                                  "wrong number of fields",
		"network,reattempts,window\n\"=cmd|' /C calc'!A0\",15,30d\nVISA,x,1d\n": "line 3",
	} {
		if _, err := LoadRetryLimits(write("bad.csv", body)); err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Errorf("%q: %v, want an error saying %q", body, err, wantErr)
		}
	}
	for body, wantErr := range map[string]string{
		"VISA:\n  - {reattempts: 15}\n":                                                  "both",
		"VISA: {reattempts: 15, window: 30d}\n":                                          "a list of",
		"VISA:\n  - {reattempts: 15, window: 30d, per: card}\n":                          "field per not found",
		"VISA:\n  - {reattempts: 15, window: 30d}\n  - {reattempts: 20, window: 720h}\n": "listed twice",
	} {
		if _, err := LoadRetryLimits(write("bad.yaml", body)); err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Errorf("YAML %q: %v, want an error saying %q", body, err, wantErr)
		}
	}
	if _, err := LoadRetryLimits(filepath.Join(dir, "missing.csv")); err == nil || !strings.Contains(err.Error(), "retry limits") {
		t.Errorf("a missing file: %v", err)
	}
}

// TestStoreRetryLimits: the run's table replaces the last run's, with its
// windows as intervals the check compares times with.
func TestStoreRetryLimits(t *testing.T) {
	ctx := context.Background()
	s := storetest.Open(t)
	started := time.Date(2026, 11, 21, 2, 0, 0, 0, time.UTC)
	read := func() string {
		rows, err := s.Conn().QueryContext(ctx, `SELECT network || ' ' || reattempts || ' ' || CAST(window_length AS VARCHAR) || ' ' ||
			cit_mit_apart || ' ' || source || ' ' || strftime(loaded_at, '%Y-%m-%d %H:%M') FROM retry_limits ORDER BY ALL`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var v string
			if err := rows.Scan(&v); err != nil {
				t.Fatal(err)
			}
			out = append(out, v)
		}
		return strings.Join(out, "\n")
	}
	custom := &RetryLimitTable{Source: "limits.csv", Limits: []RetryLimit{
		{Network: "*", Reattempts: 3, Window: 90 * time.Minute},
		{Network: "VISA", Reattempts: 15, Window: 30 * 24 * time.Hour},
	}}
	if err := storeRetryLimits(ctx, s, Params{Started: started, RetryLimits: custom}); err != nil {
		t.Fatal(err)
	}
	if got, want := read(), "* 3 01:30:00 false limits.csv 2026-11-21 02:00\nVISA 15 30 days false limits.csv 2026-11-21 02:00"; got != want {
		t.Errorf("retry_limits:\n%s\nwant\n%s", got, want)
	}
	if err := storeRetryLimits(ctx, s, Params{Started: started}); err != nil {
		t.Fatal(err)
	}
	want := "MASTERCARD 10 1 day false default 2026-11-21 02:00\nMASTERCARD 35 30 days false default 2026-11-21 02:00\n" +
		"VISA 20 30 days true default 2026-11-21 02:00"
	if got := read(); got != want {
		t.Errorf("retry_limits without a table:\n%s\nwant the default\n%s", got, want)
	}
}
