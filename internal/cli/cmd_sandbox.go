package cli

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/reconcile/reconcile/internal/cliflags"
	"github.com/reconcile/reconcile/internal/pipeline"
	"github.com/reconcile/reconcile/internal/sandbox"
	"github.com/reconcile/reconcile/internal/secretfile"
)

type sandboxOptions struct {
	addr, scale, date, clock, organizationID, keyID, secretFile string
	groundTruth, journalDir, certificates, mleCertificates      string
	seed                                                        int64
	lookback                                                    int
	faults                                                      sandbox.Faults
	rateLimit                                                   sandbox.RateLimit
	failMembers                                                 string
}

const sandboxExamples = `  reconcile sandbox --addr 127.0.0.1:8080 --seed 7 --scale small
  reconcile sandbox --scale medium --ground-truth truth.json --journal-dir journals/
  reconcile sandbox --latency 50ms --jitter 20ms --rate-limit-rate 0.05 --fail-members sbxmid000003:403
  reconcile sandbox --rate-limit 20                                    # 429 + Retry-After beyond 20 requests/s per key
  reconcile sandbox --groups-unavailable 404                           # no Group Management: run with --merchants
  reconcile sandbox --date 2026-11-20 --clock 2026-12-01T02:00:00Z   # billing engine run to Dec 1
`

func cmdSandbox(ctx context.Context, args []string, e Env) error {
	var o sandboxOptions
	fs := newFlagSet("sandbox [flags]", "Serve the simulated platform: every endpoint the product reads, signature checks, deterministic data with planted anomalies.", sandboxExamples, e)
	fs.StringVar(&o.addr, "addr", "127.0.0.1:8080", "address to listen on")
	fs.Int64Var(&o.seed, "seed", 7, "data seed: the same seed, scale and date give the same data")
	fs.StringVar(&o.scale, "scale", "small", "small, medium, large, or members=N,subscriptions=N,groups=N")
	fs.StringVar(&o.date, "date", "", "business day the data centres on (default yesterday, UTC)")
	fs.IntVar(&o.lookback, "lookback", 3, "lookback of the run the ground truth is written for")
	fs.StringVar(&o.clock, "clock", "", "where the data clock starts, RFC 3339 (default: the date +1 day 02:00 UTC, when the data is as of); later runs the billing engine up to it")
	fs.StringVar(&o.organizationID, "organization-id", "", "organization ID (default "+sandbox.DefaultOrganizationID+")")
	fs.StringVar(&o.keyID, "key-id", "", "key ID accepted (default "+sandbox.DefaultKeyID+")")
	fs.StringVar(&o.secretFile, "secret-file", "", "file with the base64 shared secret accepted (default: the documented test secret)")
	fs.StringVar(&o.certificates, "jwt-certificates", "", "PEM certificates (comma-separated files) whose JWTs are accepted; the kid is the subject's serialNumber")
	fs.StringVar(&o.mleCertificates, "response-mle-certificate", "", "PEM certificates (comma-separated files) of response MLE keys: every answer is then encrypted for the one the JWT's v-c-response-mle-kid names (the kid is the subject's serialNumber), and HTTP signatures are refused")
	fs.StringVar(&o.groundTruth, "ground-truth", "", "write the findings a correct reconciliation must report to this JSON file")
	fs.StringVar(&o.journalDir, "journal-dir", "", "write the simulated merchants' journals (NDJSON) into this folder")
	fs.DurationVar(&o.faults.Latency, "latency", 0, "fault: delay every response by this much")
	fs.DurationVar(&o.faults.Jitter, "jitter", 0, "fault: plus a random delay up to this much")
	fs.Float64Var(&o.faults.ErrorRate, "error-rate", 0, "fault: fraction of requests answered 503")
	fs.Float64Var(&o.faults.RateLimitRate, "rate-limit-rate", 0, "fault: fraction of requests answered 429 with Retry-After")
	fs.DurationVar(&o.faults.RetryAfter, "retry-after", time.Second, "fault: the Retry-After sent with 429")
	fs.Float64Var(&o.faults.TruncateRate, "truncate-rate", 0, "fault: fraction of 2xx bodies cut in half")
	fs.StringVar(&o.failMembers, "fail-members", "", "fault: MID:status,... answered to every request for those members (403 or 500)")
	fs.Float64Var(&o.rateLimit.PerSecond, "rate-limit", 0, "limit each key to N requests a second (a token bucket per key ID), answering 429 with Retry-After beyond it, as a platform would; 0: no limit")
	fs.IntVar(&o.rateLimit.Burst, "rate-limit-burst", 0, "requests a key may send at once under --rate-limit (default: one second's worth)")
	fs.IntVar(&o.faults.GroupsUnavailable, "groups-unavailable", 0, "fault: answer every group management request with this status (403 or 404), Group Management not enabled for the key")
	if err := cliflags.Parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("sandbox: unexpected argument %q", fs.Arg(0))
	}
	scale, err := sandbox.ParseScale(o.scale)
	if err != nil {
		return err
	}
	cfg := sandbox.Config{Seed: o.seed, Scale: scale, OrganizationID: o.organizationID, KeyID: o.keyID,
		Lookback: o.lookback, Faults: o.faults, RateLimit: o.rateLimit}
	if o.date != "" {
		if cfg.BusinessDate, err = pipeline.BusinessDate(o.date, time.Now()); err != nil {
			return err
		}
	}
	if o.clock != "" {
		if cfg.Clock, err = time.Parse(time.RFC3339, o.clock); err != nil {
			return fmt.Errorf("sandbox: --clock: %w", err)
		}
	}
	// Only the documented test secret is ever printed: a secret of one's
	// own, given in a file, is not shown, nor is the file's path in an
	// error (a slip puts the secret itself there).
	secretNote := "shared secret (base64) " + sandbox.DefaultSecret + " — test credentials, not secret"
	if o.secretFile != "" {
		b, err := os.ReadFile(o.secretFile)
		if err != nil {
			return fmt.Errorf("sandbox: read --secret-file: %w", secretfile.WithoutPath(err))
		}
		secretB64 := strings.TrimSpace(string(b))
		if cfg.Secret, err = base64.StdEncoding.DecodeString(secretB64); err != nil {
			return errors.New("sandbox: --secret-file: not base64")
		}
		if secretB64 != sandbox.DefaultSecret {
			secretNote = "shared secret from --secret-file (not shown)"
		}
	}
	if cfg.Certificates, err = sandbox.ReadCertificates("jwt-certificates", o.certificates); err != nil {
		return err
	}
	if cfg.ResponseMLE, err = sandbox.ReadCertificates("response-mle-certificate", o.mleCertificates); err != nil {
		return err
	}
	if o.failMembers != "" {
		if cfg.Faults.FailMembers, err = sandbox.ParseFailMembers(o.failMembers); err != nil {
			return err
		}
	}
	srv, err := sandbox.New(cfg)
	if err != nil {
		return err
	}
	if o.groundTruth != "" {
		if err := srv.WriteGroundTruth(o.groundTruth); err != nil {
			return err
		}
	}
	if o.journalDir != "" {
		if _, err := srv.WriteJournals(o.journalDir); err != nil {
			return err
		}
	}
	ln, err := net.Listen("tcp", o.addr)
	if err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	fmt.Fprintf(e.Stdout, "sandbox serving http://%s\n", ln.Addr())
	defer func() {
		// What it answered, for a run's own count to be checked against.
		sv := srv.Served()
		fmt.Fprintf(e.Stdout, "sandbox served %d requests, %d answered 429\n", sv.Requests, sv.RateLimited)
	}()
	srv.WriteBanner(e.Stdout, secretNote)
	hs := &http.Server{Handler: srv.Handler(), ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("sandbox: %w", err)
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		hs.Shutdown(sctx)
		return nil
	}
}
