package cli

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"math"
	"strings"
	"time"

	"github.com/reconcile/reconcile/groups"
	"github.com/reconcile/reconcile/internal/cardmask"
	"github.com/reconcile/reconcile/internal/checks"
	"github.com/reconcile/reconcile/internal/cliflags"
	"github.com/reconcile/reconcile/internal/credentials"
	"github.com/reconcile/reconcile/internal/embedded"
	"github.com/reconcile/reconcile/internal/finish"
	"github.com/reconcile/reconcile/internal/memstat"
	"github.com/reconcile/reconcile/internal/pipeline"
	"github.com/reconcile/reconcile/internal/platform"
	"github.com/reconcile/reconcile/internal/shardset"
	"github.com/reconcile/reconcile/internal/store"
	"github.com/reconcile/reconcile/reports"
	"github.com/reconcile/reconcile/subscriptions"
)

// runOptions are the flags of `reconcile run` (docs/operations.md, Flags, plus a
// few operational ones).
type runOptions struct {
	config         string
	baseURL        string
	organizationID string
	portfolioID    string
	keyID          string
	secretFile     string
	auth           string // http-signature, jwt or jwt-p12 (platform.AuthMode)
	p12File        string
	p12PassFile    string
	// The response MLE key (credentials.LoadResponseMLE): file, password file, kid.
	responseMLEKey      string
	responseMLEPassFile string
	responseMLEKid      string
	date                string
	lookback            int
	journal             string
	db                  string
	out                 string
	concurrency         int
	rate                float64
	groups              string
	merchants           string   // --merchants: MID,MID or @FILE
	merchantList        []string // --merchants read (groups.ReadMerchants), for the shard settings
	groupsPath          string   // --groups-path
	shard               string
	memberTimeout       time.Duration
	searchTimeForm      string
	force               bool
	fullRefresh         bool
	plansMaxAge         time.Duration
	history             time.Duration
	backfillBudget      int
	searchScope         string // --search-scope: member, account or reseller
	searchScopeID       string // --search-scope-id: the account or reseller searched
	memoryLimit         string
	logLevel            string
	sandboxSeed         int64
	sandboxScale        string
	splitBy             string // see reports.ValidSplitBy
	metricsFile         string
	progress            string
	// The payments audit (docs/payments-audit.md).
	interchangeRates string
	retryLimits      string
	bnplSessionAge   time.Duration
	chargebackShare  float64
	settlementDays   int
	disputeScope     pipeline.DisputeScope
	binRefreshAge    time.Duration
	acknowledgements string    // the acknowledgements file (checks.ReadAcknowledgementFile)
	hooks            *runHooks // set by runWithOutput
	allowEmpty       bool
	notice           noticeOptions // --alarms, --notify, --metrics-push
	// credentials names the credential settings given (givenCredentials),
	// from any layer: a run with credentials but no base URL is refused.
	credentials []string
	// rateGiven says --rate was set by some layer: the embedded sandbox is
	// otherwise not held to the platform's default rate (embedded.Rate).
	rateGiven bool
}

const runExamples = `  reconcile run                                    # embedded sandbox, yesterday
  reconcile run --date 2026-11-20 --lookback 3
  RECONCILE_SECRET=$(cat key.b64) reconcile run --base-url https://api.example.com \
      --organization-id myorg --key-id 1a2b3c --journal '/var/log/payments/*.ndjson'
  reconcile run --config reconcile.yaml --shard 0/4
  reconcile run --config reconcile.yaml --alarms alarms.yaml --notify notify.yaml \
      --metrics-push http://pushgateway:9091          # the digest, alarms, the Pushgateway
`

func cmdRun(ctx context.Context, args []string, e Env) error {
	o, err := parseRunFlags("run [flags]", "One batch run: pull every member of the organization's groups, reconcile, publish.",
		runExamples, runExitCodes, args, e, nil)
	if err != nil {
		return err
	}
	return runWithOutput(ctx, o, e)
}

// parseRunFlags parses the flags of a run (and extra's, for schedule), then
// fills what the command line left unset from the environment and the
// config file.
func parseRunFlags(name, synopsis, examples, exitCodes string, args []string, e Env, extra func(*flag.FlagSet)) (runOptions, error) {
	var o runOptions
	fs := newFlagSetCodes(name, synopsis, examples, exitCodes, e)
	fs.StringVar(&o.config, "config", e.Getenv("RECONCILE_CONFIG"), "YAML config file of flag: value pairs")
	fs.StringVar(&o.baseURL, "base-url", "", "platform base URL; empty starts the embedded sandbox on a loopback port")
	fs.StringVar(&o.organizationID, "organization-id", "", "organization whose groups are reconciled (default: the sandbox's)")
	fs.StringVar(&o.portfolioID, "portfolio-id", "", "merchant ID that owns the key (signing identity); default = organization")
	fs.StringVar(&o.auth, "auth", string(platform.AuthHTTPSignature), "authentication: http-signature, jwt (shared secret, HS256) or jwt-p12 (P12 certificate, RS256)")
	fs.StringVar(&o.keyID, "key-id", "", "shared-secret key ID (http-signature, jwt)")
	fs.StringVar(&o.secretFile, "secret-file", "", "file holding the base64 shared secret, mode 600 (RECONCILE_SECRET also accepted)")
	fs.StringVar(&o.p12File, "p12-file", "", "jwt-p12: PKCS#12 file of the key and its certificate")
	fs.StringVar(&o.p12PassFile, "p12-password-file", "", "jwt-p12: file holding the P12 password, mode 600 (RECONCILE_P12_PASSWORD also accepted)")
	fs.StringVar(&o.responseMLEKey, "response-mle-key", "", "jwt, jwt-p12: P12 (or PEM) file of the \"REST – API Response MLE\" key from the merchant portal, to read encrypted responses")
	fs.StringVar(&o.responseMLEPassFile, "response-mle-password-file", "", "file holding the --response-mle-key P12's password, mode 600 (RECONCILE_RESPONSE_MLE_PASSWORD also accepted)")
	fs.StringVar(&o.responseMLEKid, "response-mle-kid", "", "key id of --response-mle-key (default: the serialNumber of its certificate's subject, as the platform's SDK reads it)")
	fs.StringVar(&o.date, "date", "", "business day, UTC (YYYY-MM-DD): transactions submitted that day (default yesterday)")
	fs.IntVar(&o.lookback, "lookback", 3, "extra days re-read before --date for late or changed records")
	fs.StringVar(&o.journal, "journal", "", "glob of merchant journal files (NDJSON) to import")
	fs.StringVar(&o.db, "db", "reconcile.duckdb", "DuckDB working file")
	fs.StringVar(&o.out, "out", "out", "output folder")
	fs.IntVar(&o.concurrency, "concurrency", 8, "members processed at once")
	fs.Float64Var(&o.rate, "rate", 20, "requests per second, whole run")
	fs.StringVar(&o.groups, "groups", "", "only these group IDs (comma separated)")
	fs.StringVar(&o.merchants, "merchants", "", "reconcile these merchant IDs instead of discovering the groups' members, with no group management request: MID,MID or @FILE (one per line, # comments)")
	fs.StringVar(&o.groupsPath, "groups-path", "", "group list path, {organizationId} where the organization goes (default "+platform.DefaultGroupsPath+", then "+platform.GroupsPathForm+" on 404)")
	fs.StringVar(&o.shard, "shard", "0/1", "i/n: this process takes members whose hash mod n = i")
	fs.DurationVar(&o.memberTimeout, "member-timeout", 15*time.Minute, "time limit for one member's pull")
	fs.StringVar(&o.searchTimeForm, "search-time-form", "epoch", "how Transaction Search windows are written: epoch (milliseconds), datemath (NOW/DAY-nDAYS) or iso (timestamps, undocumented)")
	fs.BoolVar(&o.force, "force", false, "pull again the members an earlier attempt of the same date completed (default: resume)")
	fs.BoolVar(&o.fullRefresh, "full-refresh", false, "pull every subscription's payment list, not only those that may have changed")
	fs.Func("history", "pull tonight only the payment lists of subscriptions that ended less than this before the window (e.g. 400d); the others over the following nights, --backfill-budget a night (default 0: every list at once)",
		func(v string) (err error) { o.history, err = subscriptions.ParseHistory(v); return err })
	fs.IntVar(&o.backfillBudget, "backfill-budget", 2000, "--history: payment lists of older subscriptions pulled a night at most")
	fs.DurationVar(&o.plansMaxAge, "plans-max-age", 7*24*time.Hour, "how long a member's stored plan list is used without a pull, unless a subscription is new, changed its terms or names a plan not stored (0: pull the plans every night)")
	fs.StringVar(&o.searchScope, "search-scope", "member", "Transaction Search: member (one search a member), account or reseller (one search of every member under --search-scope-id, where the key may: see reconcile doctor)")
	fs.StringVar(&o.searchScopeID, "search-scope-id", "", "--search-scope account or reseller: the merchant account or reseller ID searched (default: the organization)")
	fs.BoolVar(&o.allowEmpty, "allow-empty", false, "succeed when the organization's groups have no member at all (default: such a run fails)")
	fs.StringVar(&o.memoryLimit, "memory-limit", "256MB", "DuckDB's buffer memory (e.g. 256MB, 2GB); data beyond it goes to disk")
	fs.StringVar(&o.logLevel, "log-level", "info", "debug, info, warn or error")
	fs.Int64Var(&o.sandboxSeed, "sandbox-seed", 7, "embedded sandbox only: data seed")
	fs.StringVar(&o.sandboxScale, "sandbox-scale", "small", "embedded sandbox only: small, medium, large or members=N,subscriptions=N")
	fs.StringVar(&o.splitBy, "split-by", "", `"group": also write one workbook per group (reconcile-<date>-group-<id>.xlsx)`)
	fs.StringVar(&o.metricsFile, "metrics-file", "", "write Prometheus metrics of the run to this file (node_exporter textfile collector)")
	fs.StringVar(&o.progress, "progress", "auto", "progress display on stderr: auto (when a terminal), always or never")
	fs.StringVar(&o.interchangeRates, "interchange-rates", "", "CSV (network,level2,level3) or YAML file of interchange rate differences for the interchange-at-risk estimate (default: the documented table)")
	fs.StringVar(&o.retryLimits, "retry-limits", "", "CSV (network,reattempts,window[,cit_mit_apart]) or YAML file of the card networks' limits on reattempts of a declined card (default: the documented table)")
	fs.DurationVar(&o.bnplSessionAge, "bnpl-session-age", 24*time.Hour, "a pending buy-now-pay-later session older than this at the cut-off is reported stale")
	fs.Float64Var(&o.chargebackShare, "chargeback-share", checks.DefaultChargebackShare, "a member whose chargebacks in the window are at least this share of its captures is reported (default: Visa's dispute monitoring ratio, 0.9%)")
	fs.Var(&o.disputeScope, "dispute-scope", "dispute reports (interchange clearing, chargebacks, retrievals): `scope` organization (each read once for the organization, its records attributed to the members; the default) or member (each read once per member)")
	fs.IntVar(&o.settlementDays, "settlement-days", checks.DefaultSettlementDays, "a capture not settled more than this many business days after its day is reported (capture_not_settled); within them it is expected")
	fs.DurationVar(&o.binRefreshAge, "bin-refresh-age", 30*24*time.Hour, "look a cached BIN up again once its attributes are older than this")
	fs.StringVar(&o.acknowledgements, "acknowledgements", "", "YAML file of acknowledged findings the run makes and keeps in force (docs/workbook.md); none: only those of reconcile ack")
	o.notice.register(fs)
	if extra != nil {
		extra(fs)
	}
	if err := cliflags.Parse(fs, args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("%s: unexpected argument %q", strings.Fields(name)[0], fs.Arg(0))
	}
	if err := cliflags.ApplyLayers(fs, e.Getenv, o.config); err != nil {
		return o, err
	}
	o.credentials = credentials.Given(fs, e.Getenv)
	fs.Visit(func(f *flag.Flag) { o.rateGiven = o.rateGiven || f.Name == "rate" })
	return o, nil
}

// runSource is where a run with these options takes its data from
// (reports.Publication.Source): the embedded sandbox when no base URL is given.
func runSource(o runOptions) string {
	if o.baseURL == "" {
		return reports.SourceSandbox
	}
	return reports.SourcePlatform
}

// Bounds of the run flags that size things: beyond them a typo, not a
// plan, is the likely cause, and the run would exhaust memory or
// connections rather than go faster.
const (
	maxConcurrency = 256       // members at once (each with up to 4 payment lists in flight)
	maxRate        = 1_000_000 // requests per second
)

func runRun(ctx context.Context, o runOptions, e Env, log *slog.Logger) error {
	notice, err := loadNotice(o.notice, e.Getenv)
	if err != nil {
		return err
	}
	o.hooks.notice = notice // from here on, a failure is told to --notify's recipients
	if o.baseURL == "" && len(o.credentials) > 0 {
		// A cron whose environment lost RECONCILE_BASE_URL would otherwise
		// reconcile the embedded sandbox and exit 0.
		return fmt.Errorf("no --base-url (RECONCILE_BASE_URL) is set, but credentials are (%s): refusing to reconcile the embedded sandbox's simulated data in their place; set the platform's base URL, or remove the credentials for a sandbox run",
			strings.Join(o.credentials, ", "))
	}
	now := time.Now().UTC()
	date, err := pipeline.BusinessDate(o.date, now)
	if err != nil {
		return err
	}
	shard, err := groups.ParseShard(o.shard)
	if err != nil {
		return err
	}
	if o.merchantList, err = groups.ReadMerchants(o.merchants); err != nil {
		return err
	}
	if len(o.merchantList) > 0 && o.groups != "" {
		return errors.New("--merchants and --groups: give one or the other (--merchants names the members, with no group listed)")
	}
	if len(o.merchantList) > 0 && o.splitBy == "group" {
		return errors.New("--split-by group with --merchants: the members named belong to no group; drop --split-by")
	}
	if o.groupsPath != "" {
		if err := platform.CheckGroupsPath(o.groupsPath); err != nil {
			return fmt.Errorf("--groups-path: %w", err)
		}
	}
	if o.concurrency < 1 || o.concurrency > maxConcurrency {
		return fmt.Errorf("--concurrency %d: want 1 to %d members at once", o.concurrency, maxConcurrency)
	}
	if math.IsNaN(o.rate) || o.rate <= 0 || o.rate > maxRate {
		return fmt.Errorf("--rate %v: want requests per second, more than 0 and at most %d", o.rate, maxRate)
	}
	if o.lookback < 0 {
		return fmt.Errorf("--lookback must not be negative")
	}
	// The window starts no earlier than the earliest --date: a window of
	// thousands of years failed every member on the platform's refusal of
	// its start, after the pulls.
	if most := int(date.Sub(pipeline.FirstBusinessDate).Hours() / 24); o.lookback > most {
		return fmt.Errorf("--lookback %d: want at most %d days, so that the window starts no earlier than %s",
			o.lookback, most, pipeline.FirstBusinessDate.Format("2006-01-02"))
	}
	if o.memberTimeout < 0 {
		return fmt.Errorf("--member-timeout %s: want a duration, or 0 for no limit", o.memberTimeout)
	}
	if o.memoryLimit != "" {
		if err := store.CheckMemoryLimit(o.memoryLimit); err != nil {
			return fmt.Errorf("--memory-limit: %w", err)
		}
	}
	searchTimeForm, err := platform.ParseSearchTimeForm(o.searchTimeForm)
	if err != nil {
		return fmt.Errorf("--search-time-form: %w", err)
	}
	if o.settlementDays < 1 || o.settlementDays > 30 {
		return fmt.Errorf("--settlement-days must be between 1 and 30 business days, not %d", o.settlementDays)
	}
	if o.bnplSessionAge <= 0 || o.binRefreshAge <= 0 {
		return fmt.Errorf("--bnpl-session-age and --bin-refresh-age must be positive")
	}
	if !(o.chargebackShare > 0 && o.chargebackShare <= 1) {
		return fmt.Errorf("--chargeback-share %v: a share is a number above 0 and at most 1 (0.009 is 0.9%%)", o.chargebackShare)
	}
	rates, err := checks.LoadInterchangeRates(o.interchangeRates)
	if err != nil {
		return err
	}
	retryLimits, err := checks.LoadRetryLimits(o.retryLimits)
	if err != nil {
		return err
	}
	var acks []checks.Acknowledgement
	if o.acknowledgements != "" {
		if acks, err = checks.ReadAcknowledgementFile(o.acknowledgements); err != nil {
			return err
		}
	}

	creds, baseURL, journal := platform.Credentials{}, o.baseURL, o.journal
	var mleKey platform.ResponseMLEKey
	org := o.organizationID
	var sandboxAuth platform.Credentials
	if baseURL == "" {
		if sandboxAuth, err = embedded.Auth(o.auth, o.organizationID); err != nil {
			return err
		}
	} else {
		if creds, err = credentials.Load(credentialSettings(o), e.Getenv); err != nil {
			return err
		}
		if mleKey, err = credentials.LoadResponseMLE(credentialSettings(o), e.Getenv, creds.Mode); err != nil {
			return err
		}
		o.hooks.keyed(mleKey, now, log)
		if org == "" {
			return errors.New("--organization-id is required with --base-url")
		}
	}
	// The database before the embedded sandbox: its lock says whether
	// another run holds it before the sandbox writes its journals (a second
	// run rewrote them, then failed on the lock).
	db, err := store.Open(ctx, o.db)
	if err != nil {
		return err
	}
	defer db.Close()
	if baseURL == "" {
		sb, err := embedded.Start(ctx, embeddedOptions(o, date, db), sandboxAuth, log)
		if err != nil {
			return err
		}
		defer sb.Close()
		baseURL, creds, journal = sb.URL, sb.Creds, firstNonEmpty(journal, sb.JournalGlob)
		org = firstNonEmpty(org, sb.OrganizationID)
		if !o.rateGiven {
			o.rate = embedded.Rate
		}
		log.Info("embedded sandbox", "rate", o.rate)
	}
	if creds.PortfolioID == "" {
		creds.PortfolioID = org
	}

	client, err := newRunClient(o, e, baseURL, creds, searchTimeForm, mleKey)
	if err != nil {
		return err
	}

	if err := db.SetMemoryLimit(ctx, o.memoryLimit); err != nil {
		return err
	}
	if o.acknowledgements != "" {
		if err := pipeline.SyncAcknowledgements(ctx, db, o.acknowledgements, acks, date, checks.OSUser(e.Getenv), log); err != nil {
			return err
		}
	}

	// Each stage's memory at its highest, beside its memory at its end: a
	// ten-times-a-second look at the resident memory.
	watch := memstat.StartWatch(100 * time.Millisecond)
	defer watch.Stop()
	scope, err := platform.ParseSearchScope(o.searchScope)
	if err != nil {
		return fmt.Errorf("--search-scope: %w", err)
	}
	scopeID := cmp.Or(o.searchScopeID, org)
	res, err := pipeline.Run(ctx, db, pipeline.Options{
		Client:           client,
		SearchScope:      scope,
		SearchScopeID:    scopeID,
		OrganizationID:   org,
		BusinessDate:     date,
		Lookback:         o.lookback,
		JournalGlob:      journal,
		Concurrency:      o.concurrency,
		MemberTimeout:    o.memberTimeout,
		GroupIDs:         splitList(o.groups),
		Merchants:        o.merchantList,
		GroupsPath:       o.groupsPath,
		Shard:            shard,
		PaymentLists:     paymentListsPerMember,
		Force:            o.force,
		FullRefresh:      o.fullRefresh,
		PlansMaxAge:      cmp.Or(o.plansMaxAge, -1), // 0: every night (the pipeline's 0 is its default)
		History:          o.history,
		BackfillBudget:   cmp.Or(o.backfillBudget, -1), // 0: none (the pipeline's 0 is its default)
		AllowEmpty:       o.allowEmpty,
		BINRefreshAge:    o.binRefreshAge,
		InterchangeRates: rates,
		RetryLimits:      retryLimits,
		BNPLSessionAge:   o.bnplSessionAge,
		ChargebackShare:  o.chargebackShare,
		SettlementDays:   o.settlementDays,
		DisputeScope:     o.disputeScope,
		Version:          buildVersion(),
		Logger:           log,
		OnProgress:       o.hooks.onProgress,
		Memory:           watch,
	})
	if errors.Is(err, platform.ErrGroupsUnavailable) {
		return fmt.Errorf("%w; what to do: name the members with --merchants MID,MID (or --merchants @FILE, one per line), "+
			"which needs no group management; or, if the platform lists groups at another path, give it with --groups-path "+
			"(e.g. %s); or have Group Management enabled for the key (a user with the Groups Manage permission)", err, platform.DefaultGroupsPath)
	}
	if errors.Is(err, pipeline.ErrNoMembers) {
		return fmt.Errorf("%w; give --allow-empty if an organization without members is expected", err)
	}
	if err != nil {
		return err
	}
	o.hooks.res = res
	// The checks are done: the end of the run (package finish) checks the
	// alarms, reopens the database, publishes and sends the digests.
	published := time.Now()
	publication := res.Publication()
	publication.Version, publication.Shard, publication.SplitBy, publication.Source = buildVersion(), shard.String(), o.splitBy, runSource(o)
	publication.Settings = shardOptions(o, org, rates, retryLimits).Settings()
	fin, err := finish.Publish(ctx, db, publication, finish.Options{Out: o.out, Notice: notice, Log: log, Key: mleKey, Now: now,
		Published: func(run reports.Publication, pub *reports.Published) {
			o.hooks.published(pub)
			res.LogFinished(ctx, log, db, pub.Dir, time.Since(published), watch.Peak())
			printSummary(e, res, pub, o.db, runSource(o))
			reports.WriteAlarms(e.Stdout, run.Alarms)
		}})
	o.hooks.alarms = fin.Publication.Alarms
	o.hooks.deliveries = append(o.hooks.deliveries, fin.Deliveries...)
	if err != nil {
		return err
	}
	if res.Status == store.RunFailed {
		// Every member failed: nothing was reconciled, so not "partial" (3),
		// which tells a monitor that the rest was. The publication still
		// shows each member's error.
		return fmt.Errorf("every member failed (%d of %d), e.g. %s: %s", len(res.Failed), res.Members,
			res.Failed[0].MerchantID, res.Failed[0].Error)
	}
	if res.Status != store.RunOK {
		var parts []string
		if n := len(res.Failed); n > 0 {
			parts = append(parts, fmt.Sprintf("%d of %d members failed", n, res.Members))
		}
		if n := len(res.Problems); n > 0 {
			parts = append(parts, fmt.Sprintf("%d other problem(s): %s", n, res.Problems[0]))
		}
		return partialError{strings.Join(parts, "; ")}
	}
	return nil
}

// shardOptions is what the run's shards must share (shardset.Options): the
// settings of o, org as resolved.
func shardOptions(o runOptions, org string, rates *checks.RateTable, limits *checks.RetryLimitTable) shardset.Options {
	return shardset.Options{OrganizationID: org, GroupIDs: splitList(o.groups), Merchants: o.merchantList,
		Lookback: o.lookback, Journal: o.journal, InterchangeRates: rates, RetryLimits: limits,
		BNPLSessionAge: o.bnplSessionAge, BINRefreshAge: o.binRefreshAge, ChargebackShare: o.chargebackShare, SettlementDays: o.settlementDays,
		BaseURL: o.baseURL, SandboxSeed: o.sandboxSeed, SandboxScale: o.sandboxScale}
}

func printSummary(e Env, res *pipeline.Result, pub *reports.Published, db, source string) {
	counts := res.MemberCounts()
	earlier := ""
	if n := counts[pipeline.AlreadyDone]; n > 0 {
		earlier = fmt.Sprintf(" (%d by an earlier attempt of the date)", n)
	}
	fmt.Fprintf(e.Stdout, "run %s (%s): %d of %d members reconciled%s, %d requests, %d retries; source: %s\n",
		res.RunID, res.Status, counts[string(store.MemberOK)], res.Members, earlier, res.Requests, res.Retries, reports.SourceLabel(source))
	if a := res.RequestAccount(); a != nil && a.Total > 0 {
		fmt.Fprintln(e.Stdout, pipeline.RequestsLine(a))
	}
	for _, f := range res.Failed {
		fmt.Fprintf(e.Stdout, "  failed %s: %s\n", terminalLine(cardmask.MaskText(f.MerchantID)), terminalLine(f.Error))
	}
	fmt.Fprintf(e.Stdout, "findings: %d\n", sumKinds(res.Findings))
	if n := sumKinds(pub.Findings[string(store.FindingAcknowledged)]); n > 0 {
		fmt.Fprintf(e.Stdout, "  of which acknowledged: %d (not counted as new or open; reconcile ack --list)\n", n)
	}
	for _, k := range sortedKeys(res.Findings) {
		fmt.Fprintf(e.Stdout, "  %-32s %d\n", k, res.Findings[k])
	}
	fmt.Fprintf(e.Stdout, "workbook: %s\nmanifest: %s\nsnapshot: %s (also %s)\ndatabase: %s\n",
		pathText(pub.Workbook), pathText(pub.Manifest), pathText(pub.Snapshot), pathText(pub.Current), pathText(db))
	pub.WriteChanges(e.Stdout)
}

func sumKinds(byKind map[string]int64) int64 {
	var n int64
	for _, v := range byKind {
		n += v
	}
	return n
}

// paymentListsPerMember is how many payment lists one member pulls at once:
// a member's subscriptions are many small requests, so a little parallelism
// within the member keeps a slow platform's latency from serialising them.
const paymentListsPerMember = 4

// newRunClient is the platform client of a run (and of doctor, which
// must send what a run sends): the run's rate budget and connections,
// search time form and response key.
func newRunClient(o runOptions, e Env, baseURL string, creds platform.Credentials,
	form platform.SearchTimeForm, mleKey platform.ResponseMLEKey) (*platform.Client, error) {
	return platform.NewClient(baseURL, creds,
		platform.WithRateLimiter(pipeline.Limiter(o.rate, o.concurrency)),
		platform.WithConnections(o.concurrency*paymentListsPerMember),
		platform.WithUserAgent("reconcile/"+buildVersion()),
		platform.WithSearchTimeForm(form),
		platform.WithHTTPClient(e.HTTPClient),
		credentials.ResponseMLEOption(mleKey))
}

// credentialSettings are the credential flags of o (credentials.Settings).
func credentialSettings(o runOptions) credentials.Settings {
	return credentials.Settings{Auth: o.auth, KeyID: o.keyID, PortfolioID: o.portfolioID, SecretFile: o.secretFile,
		P12File: o.p12File, P12PasswordFile: o.p12PassFile, ResponseMLEKey: o.responseMLEKey,
		ResponseMLEPasswordFile: o.responseMLEPassFile, ResponseMLEKid: o.responseMLEKid}
}

// embeddedOptions are the embedded sandbox's settings of a run of o for
// date on db (nil for doctor, which has no database).
func embeddedOptions(o runOptions, date time.Time, db *store.Store) embedded.Options {
	return embedded.Options{Seed: o.sandboxSeed, Scale: o.sandboxScale, Date: date, Lookback: o.lookback, Out: o.out,
		DB: db, DBPath: o.db}
}

func firstNonEmpty(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}
