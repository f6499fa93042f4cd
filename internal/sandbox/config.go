package sandbox

import (
	"encoding/base64"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// The fixed test credentials of the sandbox. They are printed by
// `reconcile sandbox` at start and are the defaults of `reconcile run` when it
// starts the embedded sandbox, so that a first run needs no setup.
const (
	// DefaultOrganizationID is the organization (portfolio) that owns the
	// groups and the key.
	DefaultOrganizationID = "sbxorg"
	// DefaultKeyID is the key ID of the shared-secret key.
	DefaultKeyID = "sandbox-key"
	// DefaultSecret is the shared secret as base64: the 32 bytes
	// 0x00, 0x01, …, 0x1f. A test secret, documented on purpose.
	DefaultSecret = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="
)

// Limits of generated data. Resource ids embed the member number in 5 digits
// and a per-member sequence in 7 (see ids.go), which bounds both.
const (
	maxMembers       = 99999
	maxSubscriptions = 50000
	maxGroups        = 5000  // groups per organization (spec limit)
	maxGroupMembers  = 10000 // MIDs per group (spec limit)
)

// Config says what the sandbox generates and how it authenticates. The zero
// value of every field means its default (see New).
type Config struct {
	Seed           int64
	Scale          Scale
	OrganizationID string // default DefaultOrganizationID; also the portfolio that owns the key
	KeyID          string // default DefaultKeyID
	Secret         []byte // decoded shared secret; default = base64-decoded DefaultSecret
	// Certificates are the P12 certificates (their public keys) whose
	// JWTs the sandbox accepts, as the organization's portfolio user.
	// None by default: HTTP signatures only.
	Certificates []Certificate
	// ResponseMLE are the certificates of response MLE keys (mle.go): with
	// any, every answer after authentication is encrypted for the key the
	// JWT's v-c-response-mle-kid claim names, and an HTTP signature (which
	// cannot name one) is refused, as the platform does once it requires
	// encrypted responses. None by default: answers in the clear.
	ResponseMLE []Certificate
	// BusinessDate is the UTC midnight of the business day the data centres
	// on; zero means yesterday (UTC) by Now. A time that is not a UTC
	// midnight is truncated to its UTC day.
	BusinessDate time.Time
	// Lookback is the number of days re-read before BusinessDate: the ground
	// truth window is [BusinessDate-Lookback days, BusinessDate+1 day).
	// Zero means the default 3; a negative value means 0.
	Lookback int
	Faults   Faults
	// RateLimit limits each key's requests a second, answering 429 with
	// Retry-After beyond it (ratelimit.go); zero: no limit.
	RateLimit RateLimit
	// Now is the real clock, used only for the Date-header check and for
	// submitTimeUtc of list and search responses; default time.Now. The
	// data itself is as of BusinessDate+1 day 02:00 UTC whatever Now says.
	Now func() time.Time
	// Clock is where the data clock starts (clock.go); zero means the
	// instant the generated data is as of, BusinessDate+1 day 02:00 UTC. A
	// later start runs the billing engine from there; an earlier one is an
	// error, the data being generated as of that instant.
	Clock time.Time
}

// Scale is the size of the generated organization.
type Scale struct {
	Name                           string // "small", "medium", "large", or "" for a custom scale
	Members, Subscriptions, Groups int
}

var presetScales = []Scale{
	{Name: "small", Members: 6, Subscriptions: 20, Groups: 2},
	{Name: "medium", Members: 50, Subscriptions: 100, Groups: 5},
	{Name: "large", Members: 10000, Subscriptions: 100, Groups: 20},
}

// ParseScale reads "small" (6 members × 20 subscriptions, 2 groups),
// "medium" (50 × 100, 5 groups), "large" (10000 × 100, 20 groups), or
// "members=N,subscriptions=N,groups=N" where any key may be left out and
// takes its value from small.
func ParseScale(s string) (Scale, error) {
	s = strings.TrimSpace(s)
	for _, p := range presetScales {
		if strings.EqualFold(s, p.Name) {
			return p, nil
		}
	}
	sc := presetScales[0]
	sc.Name = ""
	if s == "" {
		return Scale{}, errors.New("scale: empty")
	}
	for _, part := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			return Scale{}, fmt.Errorf("scale %q: %q is not key=value (or use small, medium, large)", s, part)
		}
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			return Scale{}, fmt.Errorf("scale %q: %s: %w", s, k, err)
		}
		switch strings.ToLower(strings.TrimSpace(k)) {
		case "members":
			sc.Members = n
		case "subscriptions":
			sc.Subscriptions = n
		case "groups":
			sc.Groups = n
		default:
			return Scale{}, fmt.Errorf("scale %q: unknown key %q (members, subscriptions, groups)", s, k)
		}
	}
	if err := sc.validate(); err != nil {
		return Scale{}, err
	}
	return sc, nil
}

// String gives the preset name when the scale is a preset, else the
// key=value form that ParseScale reads back.
func (s Scale) String() string {
	for _, p := range presetScales {
		if s.Name == p.Name && s.Members == p.Members && s.Subscriptions == p.Subscriptions && s.Groups == p.Groups {
			return p.Name
		}
	}
	return fmt.Sprintf("members=%d,subscriptions=%d,groups=%d", s.Members, s.Subscriptions, s.Groups)
}

func (s Scale) validate() error {
	switch {
	case s.Members < 1 || s.Members > maxMembers:
		return fmt.Errorf("scale %s: members must be 1..%d", s, maxMembers)
	case s.Subscriptions < 0 || s.Subscriptions > maxSubscriptions:
		return fmt.Errorf("scale %s: subscriptions must be 0..%d", s, maxSubscriptions)
	case s.Groups < 1 || s.Groups > maxGroups:
		return fmt.Errorf("scale %s: groups must be 1..%d", s, maxGroups)
	case (s.Members+s.Groups-1)/s.Groups+(s.Members+9)/10 > maxGroupMembers:
		return fmt.Errorf("scale %s: more than %d members per group", s, maxGroupMembers)
	}
	return nil
}

// Faults switches on fault injection, so a client's reliability is tested
// against a real HTTP server. The zero value injects nothing.
type Faults struct {
	Latency, Jitter time.Duration // every response delayed Latency + rand[0,Jitter)
	ErrorRate       float64       // fraction of requests answered 503 with an error body
	RateLimitRate   float64       // fraction answered 429 with Retry-After
	RetryAfter      time.Duration // Retry-After sent with 429 (whole seconds, min 1); default 1s
	TruncateRate    float64       // fraction of 2xx answers whose body is cut in half (Content-Length of the full body)
	// FailMembers maps a merchant ID to the HTTP status (403 or 500)
	// answered to every request acting for it (v-c-merchant-id).
	FailMembers map[string]int
	// ShortListings make listings stop early, as a platform that loses
	// pages would (ShortListing).
	ShortListings []ShortListing
	// GroupsUnavailable, when 403 or 404, answers every group management
	// request with it, saying Group Management is not enabled (404 in the
	// vendor's not-available shape, 403 in the standard one): a key or
	// account without the product. 0: group management answers.
	GroupsUnavailable int
}

// Listings a ShortListing may name, each a paged list the client reads in
// full and whose pages carry totalCount. The group list is not among them:
// the spec's list has no totalCount, so a short one cannot be told from a
// whole one.
var Listings = []string{"plans", "subscriptions", "payments", "transactions"}

// ShortListing makes one listing stop early: its pages serve the records
// at positions before Served, then no more (pages come back empty, or cut
// short), while totalCount still counts every record. A client that trusts
// an empty page as the end sees a complete-looking, short list.
type ShortListing struct {
	Listing string // one of Listings; payments is every subscription's payment list
	// MerchantID limits the fault to requests acting for this merchant
	// (v-c-merchant-id); empty: every merchant's. The group listing acts
	// for the organization.
	MerchantID string
	Served     int // records served; 0 serves none
}

// ParseFailMembers reads "mid1:403,mid2:500". An empty string is no member.
func ParseFailMembers(s string) (map[string]int, error) {
	out := map[string]int{}
	s = strings.TrimSpace(s)
	if s == "" {
		return out, nil
	}
	for _, part := range strings.Split(s, ",") {
		mid, st, ok := strings.Cut(strings.TrimSpace(part), ":")
		if !ok || mid == "" {
			return nil, fmt.Errorf("fail members %q: %q is not mid:status", s, part)
		}
		code, err := strconv.Atoi(st)
		if err != nil {
			return nil, fmt.Errorf("fail members %q: status of %s: %w", s, mid, err)
		}
		if code != 403 && code != 500 {
			return nil, fmt.Errorf("fail members %q: status of %s must be 403 or 500", s, mid)
		}
		out[mid] = code
	}
	return out, nil
}

// withDefaults returns cfg with every default applied and checks it.
func (cfg Config) withDefaults() (Config, error) {
	var err error
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Scale.Members == 0 && cfg.Scale.Subscriptions == 0 && cfg.Scale.Groups == 0 {
		// The zero scale, or a preset named without its numbers.
		name := cfg.Scale.Name
		cfg.Scale = presetScales[0]
		if name != "" {
			sc, err := ParseScale(name)
			if err != nil {
				return Config{}, err
			}
			cfg.Scale = sc
		}
	}
	if err := cfg.Scale.validate(); err != nil {
		return Config{}, err
	}
	if cfg.OrganizationID == "" {
		cfg.OrganizationID = DefaultOrganizationID
	}
	if cfg.KeyID == "" {
		cfg.KeyID = DefaultKeyID
	}
	for i, c := range cfg.ResponseMLE {
		if c.SerialNumber == "" || c.Key == nil {
			return Config{}, fmt.Errorf("response MLE certificate %d: a serial number (kid) and an RSA public key are needed", i)
		}
	}
	for i, c := range cfg.Certificates {
		if c.SerialNumber == "" || c.Key == nil {
			return Config{}, fmt.Errorf("certificate %d: a serial number and an RSA public key are needed", i)
		}
	}
	if len(cfg.Secret) == 0 {
		b, err := base64.StdEncoding.DecodeString(DefaultSecret)
		if err != nil {
			return Config{}, fmt.Errorf("default secret: %w", err)
		}
		cfg.Secret = b
	} else {
		cfg.Secret = append([]byte(nil), cfg.Secret...)
	}
	if cfg.BusinessDate.IsZero() {
		cfg.BusinessDate = utcDay(cfg.Now()).AddDate(0, 0, -1)
	} else {
		cfg.BusinessDate = utcDay(cfg.BusinessDate)
	}
	asOf := cfg.BusinessDate.Add(26 * time.Hour)
	switch {
	case cfg.Clock.IsZero():
		cfg.Clock = asOf
	case cfg.Clock.Before(asOf):
		return Config{}, fmt.Errorf("clock %s is before %s, the instant the data is generated as of", cfg.Clock.UTC().Format(time.RFC3339), asOf.Format(time.RFC3339))
	default:
		cfg.Clock = cfg.Clock.UTC()
	}
	switch {
	case cfg.Lookback == 0:
		cfg.Lookback = 3
	case cfg.Lookback < 0:
		cfg.Lookback = 0
	}
	if cfg.RateLimit, err = cfg.RateLimit.withDefaults(); err != nil {
		return Config{}, err
	}
	f := &cfg.Faults
	for _, r := range []struct {
		name string
		v    float64
	}{{"error rate", f.ErrorRate}, {"rate-limit rate", f.RateLimitRate}, {"truncate rate", f.TruncateRate}} {
		if r.v < 0 || r.v > 1 || math.IsNaN(r.v) {
			return Config{}, fmt.Errorf("faults: %s %v not in [0,1]", r.name, r.v)
		}
	}
	if f.Latency < 0 || f.Jitter < 0 {
		return Config{}, errors.New("faults: negative latency or jitter")
	}
	if f.RetryAfter <= 0 {
		f.RetryAfter = time.Second
	}
	if f.RetryAfter%time.Second != 0 {
		f.RetryAfter = f.RetryAfter.Truncate(time.Second) + time.Second
	}
	fm := make(map[string]int, len(f.FailMembers))
	mids := make([]string, 0, len(f.FailMembers))
	for mid := range f.FailMembers {
		mids = append(mids, mid)
	}
	sort.Strings(mids)
	for _, mid := range mids {
		st := f.FailMembers[mid]
		if st != 403 && st != 500 {
			return Config{}, fmt.Errorf("faults: member %s: status %d, want 403 or 500", mid, st)
		}
		fm[mid] = st
	}
	f.FailMembers = fm
	for _, sl := range f.ShortListings {
		if !slices.Contains(Listings, sl.Listing) || sl.Served < 0 {
			return Config{}, fmt.Errorf("faults: short listing %+v: want a listing of %s and Served >= 0", sl, strings.Join(Listings, ", "))
		}
	}
	f.ShortListings = slices.Clone(f.ShortListings)
	if g := f.GroupsUnavailable; g != 0 && g != 403 && g != 404 {
		return Config{}, fmt.Errorf("faults: groups unavailable status %d, want 403, 404 or 0", g)
	}
	return cfg, nil
}

// utcDay is the UTC midnight of t's UTC day.
func utcDay(t time.Time) time.Time {
	y, m, d := t.UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// withoutRecurringBilling reports whether member idx of an organization of
// members lacks Recurring Billing: the last member, in every organization
// of two members or more (member 1 carries the forced plantings), so that
// every scale has one (docs/sandbox.md). Its /rbs/v1 calls answer "not
// enabled" (MerchantSettings.RecurringBillingDisabled).
func withoutRecurringBilling(idx, members int) bool { return members >= 2 && idx == members-1 }

// MembersWithoutRecurringBilling lists the generated members whose account
// lacks Recurring Billing (withoutRecurringBilling).
func (s *Server) MembersWithoutRecurringBilling() []string {
	var out []string
	for i := 0; i < s.cfg.Scale.Members; i++ {
		if withoutRecurringBilling(i, s.cfg.Scale.Members) {
			out = append(out, memberID(i))
		}
	}
	return out
}

// memberCurrency is the currency member idx of an organization of members
// bills its plans in when it is not the drawn USD, EUR or GBP: in every
// organization of five members or more, the third trades in KWD (three
// decimals: amounts like 12.345) and the fourth in JPY (none), so that
// amounts of each minor unit reach the client at every preset scale
// (docs/sandbox.md). "" for the others.
func memberCurrency(idx, members int) string {
	if members < 5 {
		return ""
	}
	switch idx {
	case 2:
		return "KWD"
	case 3:
		return "JPY"
	}
	return ""
}

// MemberCurrencies maps each generated member that bills in a currency of
// its own (memberCurrency) to that currency.
func (s *Server) MemberCurrencies() map[string]string {
	out := map[string]string{}
	for i := 0; i < s.cfg.Scale.Members; i++ {
		if cur := memberCurrency(i, s.cfg.Scale.Members); cur != "" {
			out[memberID(i)] = cur
		}
	}
	return out
}
