// Command bench measures reconcile's pipeline on this machine and prints the
// benchmark table of the README:
//
//	go run ./bench            # everything, about 50 minutes on 2 cores
//	go run ./bench -quick     # ingest and rate budget only, a few minutes
//
// It runs the ingest benchmarks of package ingest (`go test -bench`), then
// whole runs of the reconcile binary against a sandbox in a separate
// process, reading each run's peak RSS from the kernel (rusage) and its
// stage timings from its JSON log.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"
)

const secret = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=" // the sandbox's documented test secret

func main() {
	quick := flag.Bool("quick", false, "only the go test benchmarks")
	flag.Parse()
	if err := run(*quick); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func run(quick bool) error {
	tmp, err := os.MkdirTemp("", "reconcile-bench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	bin := filepath.Join(tmp, "reconcile")
	if out, err := exec.Command("go", "build", "-o", bin, "./cmd/reconcile").CombinedOutput(); err != nil {
		return fmt.Errorf("build: %v\n%s", err, out)
	}
	var table [][]string
	add := func(cells ...string) {
		table = append(table, cells)
		fmt.Fprintln(os.Stderr, "  ", strings.Join(cells, " | "))
	}

	fmt.Fprintln(os.Stderr, "ingest rate against its ceiling ...")
	m, err := goBench("BenchmarkIngest$", "3x", "RECONCILE_BENCH_SCALE=members=50,subscriptions=100,groups=5")
	if err != nil {
		return err
	}
	add("ingest from a zero-latency loopback sandbox (50 members × 100 subscriptions)",
		fmt.Sprintf("%.0f records/s", m["records/s"]),
		fmt.Sprintf("ceiling (decode + load of the same records) %.0f records/s: **%.0f%%**", m["ceiling_records/s"], m["%_of_ceiling"]),
		"≥ 60% of the ceiling")

	fmt.Fprintln(os.Stderr, "rate budget at 50 ms latency ...")
	m, err = goBench("BenchmarkRateBudget", "1x", "RECONCILE_BENCH_RATE=200")
	if err != nil {
		return err
	}
	add("requests/s with 50 ms latency, `--rate 200`",
		fmt.Sprintf("%.0f requests/s (**%.0f%%** of the budget)", m["achieved_req/s"], m["%_of_budget"]),
		fmt.Sprintf("one member, one request at a time: %.1f requests/s; speed-up **%.1f×**", m["sequential_req/s"], m["speedup"]),
		"≥ 90% of R")

	if !quick {
		var rss []float64
		for _, s := range []struct {
			mult    int
			members int
		}{{1, 50}, {10, 500}, {100, 5000}} {
			fmt.Fprintf(os.Stderr, "peak RSS at %d× ...\n", s.mult)
			r, err := wholeRun(bin, tmp, s.members)
			if err != nil {
				return err
			}
			rss = append(rss, r.maxRSSMiB)
			add(fmt.Sprintf("peak RSS at %d× (%d members × 100 subscriptions, %d records)", s.mult, s.members, r.rows),
				fmt.Sprintf("**%.0f MiB**", r.maxRSSMiB),
				fmt.Sprintf("run %s (%s)", r.wall.Round(time.Second), r.stages),
				"< 2× growth, < 1 GiB")
		}
		add("peak RSS growth 1× → 100×", fmt.Sprintf("**%.2f×**", rss[2]/rss[0]), "", "< 2×")

		fmt.Fprintln(os.Stderr, "nightly run at scale large ...")
		r, err := wholeRun(bin, tmp, 10000)
		if err != nil {
			return err
		}
		add("nightly run at scale large (10,000 members × 100 subscriptions)",
			fmt.Sprintf("**%s**, %d requests, %d records", r.wall.Round(time.Second), r.requests, r.rows),
			fmt.Sprintf("peak RSS %.0f MiB (%s)", r.maxRSSMiB, r.stages), "")
	}

	fmt.Printf("Measured %s on %s.\n\n", time.Now().UTC().Format("2006-01-02"), machine())
	fmt.Println("| what | measured | next to | target |")
	fmt.Println("|---|---|---|---|")
	for _, row := range table {
		fmt.Printf("| %s |\n", strings.Join(row, " | "))
	}
	return nil
}

var metric = regexp.MustCompile(`([0-9.e+]+) ([^\s]+)`)

// goBench runs one benchmark of package ingest and returns its metrics,
// averaged over the iterations' lines.
func goBench(name, benchtime string, env ...string) (map[string]float64, error) {
	cmd := exec.Command("go", "test", "-run", "^$", "-bench", name, "-benchtime", benchtime, "-count", "1", "./ingest")
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("%s: %v\n%s", name, err, out)
	}
	m := map[string]float64{}
	for _, line := range strings.Split(string(out), "\n") {
		if !strings.HasPrefix(line, "Benchmark") {
			continue
		}
		fields := strings.SplitN(line, "\t", 3)
		if len(fields) < 3 {
			continue
		}
		for _, kv := range metric.FindAllStringSubmatch(fields[2], -1) {
			v, err := strconv.ParseFloat(kv[1], 64)
			if err == nil {
				m[kv[2]] = v
			}
		}
	}
	if len(m) == 0 {
		return nil, fmt.Errorf("%s: no metrics in\n%s", name, out)
	}
	return m, nil
}

type runResult struct {
	wall      time.Duration
	maxRSSMiB float64
	rows      int64
	requests  int64
	stages    string
}

// wholeRun serves a sandbox of members × 100 subscriptions in its own
// process and times a reconcile run against it.
func wholeRun(bin, tmp string, members int) (*runResult, error) {
	dir, err := os.MkdirTemp(tmp, "run")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	addr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	groups := max(1, members/500)
	sb := exec.Command(bin, "sandbox", "--addr", addr, "--date", "2026-11-20",
		"--scale", fmt.Sprintf("members=%d,subscriptions=100,groups=%d", members, groups),
		"--journal-dir", filepath.Join(dir, "journals"))
	var sbOut bytes.Buffer
	sb.Stdout, sb.Stderr = &sbOut, &sbOut
	if err := sb.Start(); err != nil {
		return nil, err
	}
	defer func() { sb.Process.Signal(syscall.SIGTERM); sb.Wait() }()
	if err := waitFor(addr, 5*time.Minute); err != nil {
		return nil, fmt.Errorf("sandbox: %v\n%s", err, sbOut.String())
	}

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Hour)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "run", "--base-url", "http://"+addr, "--organization-id", "sbxorg",
		"--key-id", "sandbox-key", "--date", "2026-11-20", "--journal", filepath.Join(dir, "journals", "*.ndjson"),
		"--db", filepath.Join(dir, "r.duckdb"), "--out", filepath.Join(dir, "out"),
		"--rate", "100000", "--concurrency", "8")
	cmd.Env = append(os.Environ(), "RECONCILE_SECRET="+secret)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("run at %d members: %v\n%s", members, err, tail(stderr.String()))
	}
	r := &runResult{wall: time.Since(start)}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.maxRSSMiB = float64(ru.Maxrss) / 1024 // KiB on Linux
	}
	// The last log line says what the run did.
	sc := bufio.NewScanner(&stderr)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var l struct {
			Msg      string            `json:"msg"`
			Rows     int64             `json:"rows"`
			Requests int64             `json:"requests"`
			Stages   map[string]string `json:"stages"`
		}
		if json.Unmarshal(sc.Bytes(), &l) == nil && l.Msg == "run finished" {
			r.rows, r.requests = l.Rows, l.Requests
			var parts []string
			for _, s := range []string{"discover", "journals", "members", "bins", "findings"} {
				if d, ok := l.Stages[s]; ok {
					parts = append(parts, s+" "+d)
				}
			}
			r.stages = strings.Join(parts, ", ")
		}
	}
	return r, nil
}

func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

func waitFor(addr string, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return nil
		}
		time.Sleep(200 * time.Millisecond)
	}
	return fmt.Errorf("%s not listening after %s", addr, limit)
}

func machine() string {
	b, _ := os.ReadFile("/proc/cpuinfo")
	model := ""
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "model name") {
			_, model, _ = strings.Cut(line, ": ")
			break
		}
	}
	return fmt.Sprintf("%s, %d cores", strings.TrimSpace(model), countCPU())
}

func countCPU() int {
	out, err := exec.Command("nproc").Output()
	if err != nil {
		return 0
	}
	n, _ := strconv.Atoi(strings.TrimSpace(string(out)))
	return n
}

func tail(s string) string {
	if len(s) > 4000 {
		return s[len(s)-4000:]
	}
	return s
}
