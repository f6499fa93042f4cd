package cards

import (
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reconcile/reconcile/internal/cardmask"
	"github.com/reconcile/reconcile/internal/cli"
	"github.com/reconcile/reconcile/internal/cli/clitest"
	"github.com/reconcile/reconcile/internal/sandbox"
	"github.com/reconcile/reconcile/internal/sandbox/sandboxtest"
)

// idRecorder keeps every id of the platform's format (22 digits) the
// sandbox answers with, as the platform sent it.
type idRecorder struct {
	mu  sync.Mutex
	ids map[string]bool
}

var platformIDInBody = regexp.MustCompile(`(?:"|/)(\d{22})(?:"|/|\?)`)

func (r *idRecorder) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		rec := &bodyRecorder{ResponseWriter: w}
		next.ServeHTTP(rec, req)
		r.mu.Lock()
		defer r.mu.Unlock()
		for _, m := range platformIDInBody.FindAllStringSubmatch(rec.body.String(), -1) {
			r.ids[m[1]] = true
		}
	})
}

// bodyRecorder passes a response on and keeps a copy of its body.
type bodyRecorder struct {
	http.ResponseWriter
	body strings.Builder
}

func (b *bodyRecorder) Write(p []byte) (int, error) {
	b.body.Write(p)
	return b.ResponseWriter.Write(p)
}

var _ io.Writer = (*bodyRecorder)(nil)

// idYear is the year an id of the platform's format was created in: its
// first nine digits are the Unix second without the leading 1.
func idYear(id string) int {
	sec, _ := strconv.ParseInt("1"+id[:9], 10, 64)
	return time.Unix(sec, 0).UTC().Year()
}

// TestIDsUnchangedThroughARun runs the CLI on the sandbox, whose ids are
// in the platform's format and span the creation years 2019 to 2026, some
// of them (member 1's plans and subscriptions created from 2019 to 2022)
// beginning as card numbers do and passing the Luhn check, and reads back
// every output: each id the platform sent is stored as sent (every id
// column of every table that holds it), the findings name them as the
// ground truth does, the workbook, the snapshot and the Parquet files
// carry them, and no masked form of any of them appears anywhere.
func TestIDsUnchangedThroughARun(t *testing.T) {
	t.Parallel() // its own sandbox, files and database
	rec := &idRecorder{ids: map[string]bool{}}
	f := clitest.NewFixture(t, sandbox.Config{}, sandboxtest.WithHandler(rec.wrap))
	work := t.TempDir()
	db, out := filepath.Join(work, "r.duckdb"), filepath.Join(work, "out")
	metricsFile := filepath.Join(work, "reconcile.prom")
	code, stdout, stderr := clitest.RunCLI(t, clitest.SandboxEnv, f.RunArgs(db, out, "--metrics-file", metricsFile)...)
	if code != cli.ExitOK {
		t.Fatalf("run exited %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}

	// The ids the platform sent: every creation year from 2019 to the
	// business date's, and ids a masking by pattern would alter.
	years := map[int]bool{}
	var cardLike []string
	for id := range rec.ids {
		years[idYear(id)] = true
		if cardmask.MaskText(id) != id {
			cardLike = append(cardLike, id)
		}
	}
	sort.Strings(cardLike)
	for y := 2019; y <= 2026; y++ {
		if !years[y] {
			t.Errorf("no id created in %d among the %d the sandbox sent", y, len(rec.ids))
		}
	}
	cardYears := map[int]bool{}
	for _, id := range cardLike {
		cardYears[idYear(id)] = true
	}
	for _, y := range []int{2019, 2020, 2021, 2022} {
		if !cardYears[y] {
			t.Errorf("no id created in %d passes for a card number (%v): the test proves less than it says", y, cardLike)
		}
	}

	conn := clitest.OpenReadOnly(t, db)
	// Every id column of every table: each card-like id is there as sent,
	// and no value is a masked id.
	stored := map[string]bool{}
	for _, c := range clitest.TextColumns(t, conn) {
		col := c.Name[strings.LastIndex(c.Name, ".")+1:]
		if col != "id" && !strings.HasSuffix(col, "_id") {
			continue
		}
		for _, v := range strings.Split(c.Text, "\n") {
			stored[v] = true
			if len(v) == 22 && strings.Contains(v, "XXX") {
				t.Errorf("%s holds the masked id %s", c.Name, v)
			}
		}
	}
	for _, id := range cardLike {
		if !stored[id] {
			t.Errorf("id %s (created %d) is in no id column as sent", id, idYear(id))
		}
	}
	// The findings name the ids the ground truth names, card-like ones
	// among them.
	var named []string
	for kind, list := range f.Truth.Findings {
		for _, fd := range list {
			var n int
			if err := conn.QueryRow(`SELECT count(*) FROM findings WHERE entity_id = $1`, fd.EntityID).Scan(&n); err != nil {
				t.Fatal(err)
			}
			if n == 0 {
				t.Errorf("finding %s of %s: no finding names it as the ground truth does", kind, fd.EntityID)
			}
			if cardmask.MaskText(fd.EntityID) != fd.EntityID {
				named = append(named, fd.EntityID)
			}
		}
	}
	if len(named) == 0 {
		t.Errorf("no finding of the ground truth names a card-like id (of %v)", cardLike)
	}

	day := filepath.Join(out, "2026-11-20")
	outputs := runOutputs(t, conn, day, metricsFile, stdout, stderr)
	for _, o := range outputs {
		t.Run(o.name, func(t *testing.T) {
			text := o.text(t)
			for _, id := range cardLike {
				if strings.Contains(text, cardmask.MaskText(id)) {
					t.Errorf("%s holds %s masked: %s", o.name, id, cardmask.MaskText(id))
				}
			}
			switch o.name {
			case "working database", "snapshot", "parquet":
				for _, id := range cardLike {
					if !strings.Contains(text, id) {
						t.Errorf("%s lacks id %s", o.name, id)
					}
				}
			case "workbook":
				for _, id := range named {
					if !strings.Contains(text, id) {
						t.Errorf("the workbook lacks id %s, which a finding names", id)
					}
				}
			}
		})
	}
}
