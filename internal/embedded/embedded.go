// Package embedded starts the simulated platform a run (or doctor) uses
// when no --base-url is given, so that `reconcile run` works on a fresh
// machine with no account: the sandbox on a loopback port, its journals
// and ground truth beside the outputs.
package embedded

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/reconcile/reconcile/internal/platform"
	"github.com/reconcile/reconcile/internal/sandbox"
	"github.com/reconcile/reconcile/internal/store"
)

// Rate is the request rate against the embedded sandbox unless
// --rate says otherwise: the default (20/s) is the platform's budget, and
// a medium demo waited minutes for a limit the sandbox does not have.
const Rate = 5000

// Auth is the authentication a run against the embedded sandbox
// uses: --auth as given, with the sandbox's test key for the shared-secret
// modes, and for jwt-p12 a throwaway key whose certificate the sandbox is
// started to trust. No credential of the user's is ever used against the
// sandbox (credentials without --base-url are refused earlier).
func Auth(auth, organizationID string) (platform.Credentials, error) {
	mode, err := platform.ParseAuthMode(auth)
	if err != nil {
		return platform.Credentials{}, fmt.Errorf("--auth: %w", err)
	}
	creds := platform.Credentials{Mode: mode}
	if mode == platform.AuthJWTP12 {
		key, cert, err := sandbox.TestKeyPair(cmp.Or(organizationID, sandbox.DefaultOrganizationID))
		if err != nil {
			return platform.Credentials{}, fmt.Errorf("embedded sandbox: %w", err)
		}
		if creds.P12, err = platform.NewP12Key(key, cert); err != nil {
			return platform.Credentials{}, fmt.Errorf("embedded sandbox: %w", err)
		}
	}
	return creds, nil
}

// Options are the sandbox's: its data (Seed, Scale) for the run's
// business date and lookback, its files under Out/sandbox.
type Options struct {
	Seed     int64  // --sandbox-seed
	Scale    string // --sandbox-scale
	Date     time.Time
	Lookback int
	Out      string // the run's output folder
	// DB and DBPath are the run's database: its simulated world is kept
	// beside it (world.go), so a later night moves that world's clock
	// instead of generating another. Nil (doctor): a world of its own.
	DB     *store.Store
	DBPath string
}

// Sandbox is the simulated platform a run starts when no --base-url is
// given: where it listens, the credentials it accepts, its organization and
// the journals it wrote. Close stops it.
type Sandbox struct {
	URL            string
	Creds          platform.Credentials
	OrganizationID string
	JournalGlob    string
	Close          func()
}

// Start starts the sandbox of o, trusting auth's P12 certificate if any.
func Start(ctx context.Context, o Options, auth platform.Credentials, log *slog.Logger) (*Sandbox, error) {
	date := o.Date
	scale, err := sandbox.ParseScale(o.Scale)
	if err != nil {
		return nil, err
	}
	// One world per database: a later night moves the world's clock
	// rather than generating another.
	first, keepWorld, err := worldFor(ctx, o.DB, o.DBPath, o.Seed, scale, date)
	if err != nil {
		return nil, err
	}
	sbCfg := sandbox.Config{Seed: o.Seed, Scale: scale, BusinessDate: first, Lookback: o.Lookback,
		Clock: sandbox.NightClock(date)}
	if cert := auth.P12.Certificate(); cert != nil {
		trusted, err := sandbox.NewCertificate(cert)
		if err != nil {
			return nil, fmt.Errorf("embedded sandbox: --p12-file: %w", err)
		}
		sbCfg.Certificates = append(sbCfg.Certificates, trusted)
	}
	srv, err := sandbox.New(sbCfg)
	if err != nil {
		return nil, fmt.Errorf("embedded sandbox: %w", err)
	}
	cfg := srv.Config()
	// The sandbox's journals and ground truth go beside the outputs, so a
	// newcomer can compare the run's findings with what the sandbox planted.
	dir := filepath.Join(o.Out, "sandbox")
	journals := filepath.Join(dir, "journals-"+date.Format("2006-01-02"))
	// Written into only as real folders: a link planted at out/sandbox (or
	// its journals folder) would have the sandbox write files wherever it
	// points, with the run's rights.
	for _, p := range []string{dir, journals} {
		if info, err := os.Lstat(p); err == nil && info.Mode()&os.ModeSymlink != 0 {
			return nil, fmt.Errorf("embedded sandbox: %s is a symbolic link; the sandbox writes its journals only into a folder of its own (remove the link)", p)
		}
	}
	if _, err := srv.WriteJournalsOn(journals, date); err != nil {
		return nil, fmt.Errorf("embedded sandbox: write journals: %w", err)
	}
	truth := filepath.Join(dir, "ground-truth-"+date.Format("2006-01-02")+".json")
	if err := srv.WriteGroundTruthOn(truth, date); err != nil {
		return nil, fmt.Errorf("embedded sandbox: write ground truth: %w", err)
	}
	if err := keepWorld(); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("embedded sandbox: listen: %w", err)
	}
	hs := &http.Server{Handler: srv.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go hs.Serve(ln)
	secret, err := platform.NewSecret(sandbox.DefaultSecret)
	if err != nil {
		hs.Close()
		return nil, err
	}
	url := "http://" + ln.Addr().String()
	log.Info("embedded sandbox started", "url", url, "seed", o.Seed, "scale", scale.String(),
		"world", first.Format(time.DateOnly), "journals", journals, "ground_truth", truth)
	return &Sandbox{
		URL: url,
		Creds: platform.Credentials{Mode: auth.Mode, KeyID: cfg.KeyID, Secret: secret, P12: auth.P12,
			PortfolioID: cfg.OrganizationID},
		OrganizationID: cfg.OrganizationID,
		JournalGlob:    filepath.Join(journals, "*.ndjson"),
		// Close ends the server at once rather than gracefully: it serves
		// only this process's run, which is over when Close is called, and
		// http.Server.Shutdown waits up to 5 s for each connection the
		// client dialled but never sent a request on (one a run leaves
		// most times), a wait every embedded run paid before it exited.
		Close: func() { hs.Close() },
	}, nil
}
