package notify

import (
	"bytes"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/mail"
	"net/url"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Config is who is told of a run, and how: an --notify file.
//
//	email:
//	  server: smtp.example.com:587          # STARTTLS is required
//	  from: "Reconcile <reconcile@example.com>"
//	  to: [finance@example.com, payments-ops@example.com]
//	  username: reconcile                   # none: no AUTH
//	  password-file: /etc/reconcile/smtp-password   # mode 600; or RECONCILE_SMTP_PASSWORD
//	  ca-file: /etc/reconcile/smtp-ca.pem   # a private CA; default the system's
//	  attach-max: 5MB                       # attach the workbook up to this size; 0: never
//	webhook:
//	  url-file: /etc/reconcile/webhook-url  # mode 600; or RECONCILE_WEBHOOK_URL
//	groups:
//	  "1001":                               # this group's digest, to its owners
//	    to: [emea-finance@example.com]
//	    webhook-url-file: /etc/reconcile/webhook-1001-url
//
// The whole run's digest goes to email.to and the webhook; each group
// listed under groups gets its own digest, of its members only, at its own
// addresses (through email's server) and webhook.
type Config struct {
	Email   *Email           // nil: no e-mail
	Webhook *Webhook         // the whole run's; nil: none
	Groups  map[string]Route // by group ID
	// Timeout bounds one delivery (connect, TLS, send); default 30s.
	Timeout time.Duration
	// retryWait is the pause before the second attempt of a delivery that
	// failed for a reason that may pass (a 5xx, a 4xx SMTP reply, the
	// network).
	retryWait time.Duration
}

// Email is the SMTP server and the whole run's recipients.
type Email struct {
	Server    string // host:port
	From      *mail.Address
	To        []*mail.Address
	Username  string
	Password  Secret
	RootCAs   *x509.CertPool // nil: the system's
	AttachMax int64          // bytes; 0: never attach
}

// Route is where one group's digest goes.
type Route struct {
	To      []*mail.Address
	Webhook *Webhook
}

// Webhook is an incoming-webhook URL (Slack, Teams, or any receiver of
// JSON). Such a URL carries its own token, so it is a Secret: read from a
// file or the environment, never logged (Host is what logs name).
type Webhook struct {
	URL  Secret
	Host string
}

// Secret is a credential: it prints as REDACTED, so that a log record or an
// error that formats it shows nothing of it.
type Secret struct{ value string }

func (Secret) String() string   { return "REDACTED" }
func (Secret) GoString() string { return "REDACTED" }

// Reveal is the secret's value, for the one place that sends it.
func (s Secret) Reveal() string { return s.value }

// Environment variables read when the file names no file for a secret.
const (
	EnvSMTPPassword = "RECONCILE_SMTP_PASSWORD"
	EnvWebhookURL   = "RECONCILE_WEBHOOK_URL"
)

// DefaultAttachMax is the largest workbook attached by default: mail
// servers commonly refuse messages over 10-25 MB, and base64 adds a third.
const DefaultAttachMax = 5 << 20

// ReadSecret reads a file that holds a secret for setting (the file's key,
// e.g. "password-file"); the caller decides what a safe file is (mode
// 600, a size limit) and how its errors name it.
type ReadSecret func(setting, path string) ([]byte, error)

// fileConfig is the YAML of an --notify file.
type fileConfig struct {
	Email *struct {
		Server       string   `yaml:"server"`
		From         string   `yaml:"from"`
		To           []string `yaml:"to"`
		Username     string   `yaml:"username"`
		PasswordFile string   `yaml:"password-file"`
		CAFile       string   `yaml:"ca-file"`
		AttachMax    *string  `yaml:"attach-max"`
	} `yaml:"email"`
	Webhook *struct {
		URLFile string `yaml:"url-file"`
	} `yaml:"webhook"`
	Groups map[string]struct {
		To             []string `yaml:"to"`
		WebhookURLFile string   `yaml:"webhook-url-file"`
	} `yaml:"groups"`
	Timeout string `yaml:"timeout"`
}

// Load reads an --notify file; secrets come from the files it names, read
// with readSecret, or from the environment (getenv).
func Load(path string, readSecret ReadSecret, getenv func(string) string) (*Config, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--notify: %w", err)
	}
	c, err := Parse(b, readSecret, getenv)
	if err != nil {
		return nil, fmt.Errorf("--notify %s: %w", path, err)
	}
	return c, nil
}

// Parse reads the YAML of an --notify file. Every address is parsed as
// RFC 5322 (a line break in one is refused, so none can add a header);
// an unknown setting is an error; a file that sends nowhere is too.
func Parse(b []byte, readSecret ReadSecret, getenv func(string) string) (*Config, error) {
	var f fileConfig
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, errors.New("empty: give email, webhook or groups")
		}
		return nil, err
	}
	c := &Config{Timeout: 30 * time.Second, retryWait: 2 * time.Second, Groups: map[string]Route{}}
	if f.Timeout != "" {
		d, err := time.ParseDuration(f.Timeout)
		if err != nil || d <= 0 {
			return nil, fmt.Errorf("timeout %q: want a duration such as 30s", f.Timeout)
		}
		c.Timeout = d
	}
	if e := f.Email; e != nil {
		em := &Email{Server: e.Server, Username: e.Username, AttachMax: DefaultAttachMax}
		if _, port, err := net.SplitHostPort(e.Server); err != nil || port == "" {
			return nil, fmt.Errorf("email: server %q: want host:port, e.g. smtp.example.com:587", e.Server)
		}
		var err error
		if em.From, err = parseAddress("email: from", e.From); err != nil {
			return nil, err
		}
		if em.To, err = parseAddresses("email: to", e.To); err != nil {
			return nil, err
		}
		if e.Username != "" {
			if strings.ContainsAny(e.Username, "\r\n\x00") {
				return nil, errors.New("email: username holds a line break")
			}
			pw, err := secret("email: password-file", e.PasswordFile, EnvSMTPPassword, readSecret, getenv)
			if err != nil {
				return nil, err
			}
			em.Password = Secret{strings.TrimRight(pw, "\r\n")}
		} else if e.PasswordFile != "" {
			return nil, errors.New("email: password-file without a username")
		}
		if e.CAFile != "" {
			pem, err := os.ReadFile(e.CAFile)
			if err != nil {
				return nil, fmt.Errorf("email: ca-file: %w", err)
			}
			em.RootCAs = x509.NewCertPool()
			if !em.RootCAs.AppendCertsFromPEM(pem) {
				return nil, fmt.Errorf("email: ca-file %s: no PEM certificate in it", e.CAFile)
			}
		}
		if e.AttachMax != nil {
			if em.AttachMax, err = parseSize(*e.AttachMax); err != nil {
				return nil, fmt.Errorf("email: attach-max: %w", err)
			}
		}
		c.Email = em
	}
	if w := f.Webhook; w != nil {
		hook, err := webhook("webhook: url-file", w.URLFile, EnvWebhookURL, readSecret, getenv)
		if err != nil {
			return nil, err
		}
		c.Webhook = hook
	}
	ids := make([]string, 0, len(f.Groups))
	for id := range f.Groups {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		g := f.Groups[id]
		where := fmt.Sprintf("groups: %q", id)
		var r Route
		var err error
		if r.To, err = parseAddresses(where+": to", g.To); err != nil {
			return nil, err
		}
		if len(r.To) > 0 && c.Email == nil {
			return nil, fmt.Errorf("%s: to needs the email section (its server and from)", where)
		}
		if g.WebhookURLFile != "" {
			if r.Webhook, err = webhook(where+": webhook-url-file", g.WebhookURLFile, "", readSecret, getenv); err != nil {
				return nil, err
			}
		}
		if len(r.To) == 0 && r.Webhook == nil {
			return nil, fmt.Errorf("%s: neither to nor webhook-url-file", where)
		}
		c.Groups[id] = r
	}
	if (c.Email == nil || len(c.Email.To) == 0) && c.Webhook == nil && len(c.Groups) == 0 {
		return nil, errors.New("sends nowhere: give email with to, webhook, or groups")
	}
	return c, nil
}

// secret reads the value of a secret from the file path (read with
// readSecret), else from the environment variable env.
func secret(setting, path, env string, readSecret ReadSecret, getenv func(string) string) (string, error) {
	if path != "" {
		b, err := readSecret(setting, path)
		if err != nil {
			return "", err
		}
		return string(b), nil
	}
	if env != "" && getenv(env) != "" {
		return getenv(env), nil
	}
	if env == "" {
		return "", fmt.Errorf("%s: missing", setting)
	}
	return "", fmt.Errorf("%s: missing, and %s is not set", setting, env)
}

// webhook reads a webhook URL: http or https, with a host. An error never
// shows the URL, which may carry a token.
func webhook(setting, path, env string, readSecret ReadSecret, getenv func(string) string) (*Webhook, error) {
	raw, err := secret(setting, path, env, readSecret, getenv)
	if err != nil {
		return nil, err
	}
	raw = strings.TrimSpace(raw)
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, fmt.Errorf("%s: not an http(s) URL with a host (not shown: it may hold a token)", setting)
	}
	return &Webhook{URL: Secret{raw}, Host: u.Host}, nil
}

func parseAddress(setting, s string) (*mail.Address, error) {
	if strings.ContainsAny(s, "\r\n") {
		return nil, fmt.Errorf("%s: %q holds a line break", setting, s)
	}
	a, err := mail.ParseAddress(s)
	if err != nil {
		return nil, fmt.Errorf("%s: %q: %w", setting, s, err)
	}
	return a, nil
}

func parseAddresses(setting string, list []string) ([]*mail.Address, error) {
	var out []*mail.Address
	for _, s := range list {
		a, err := parseAddress(setting, s)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}

var sizePattern = regexp.MustCompile(`^([0-9]+)\s*(B|KB|MB|GB)?$`)

// parseSize reads a size: bytes, or a number of KB, MB or GB (of 1,024).
func parseSize(s string) (int64, error) {
	m := sizePattern.FindStringSubmatch(strings.ToUpper(strings.TrimSpace(s)))
	if m == nil {
		return 0, fmt.Errorf("%q: want bytes, or a number with KB, MB or GB", s)
	}
	n, err := strconv.ParseInt(m[1], 10, 64)
	if err != nil || n > 1<<40 {
		return 0, fmt.Errorf("%q: too large", s)
	}
	return n << map[string]int{"": 0, "B": 0, "KB": 10, "MB": 20, "GB": 30}[m[2]], nil
}
