package notify

import (
	"crypto/tls"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"

	"github.com/reconcile/reconcile/internal/testcert"
)

// smtpServer is a real SMTP server (github.com/emersion/go-smtp) on a
// loopback port, offering STARTTLS with a test certificate and AUTH PLAIN
// only over TLS, that keeps every message it accepts.
type smtpServer struct {
	addr   string
	caFile string // the PEM the client must trust
	user   string
	pass   string
	mu     sync.Mutex
	got    []received
	auths  []string // the username of each successful AUTH
	noTLS  bool     // offer no STARTTLS
}

// received is one message as the server took it.
type received struct {
	from string
	to   []string
	tls  bool // the session was under TLS when the message came
	data []byte
}

func startSMTP(t *testing.T, noTLS bool) *smtpServer {
	t.Helper()
	s := &smtpServer{user: "reconcile", pass: "s3cret pass", noTLS: noTLS}
	srv := smtp.NewServer(smtp.BackendFunc(func(c *smtp.Conn) (smtp.Session, error) {
		return &session{srv: s, conn: c}, nil
	}))
	srv.Domain = "127.0.0.1"
	srv.ReadTimeout, srv.WriteTimeout = 10*time.Second, 10*time.Second
	srv.MaxMessageBytes = 32 << 20
	cert, pem := testcert.Server(t, "127.0.0.1")
	if !noTLS {
		srv.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert}}
	}
	s.caFile = filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(s.caFile, pem.PEM(), 0o600); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.addr = ln.Addr().String()
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return s
}

func (s *smtpServer) messages() []received {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]received(nil), s.got...)
}

type session struct {
	srv  *smtpServer
	conn *smtp.Conn
	auth bool
	msg  received
}

func (s *session) AuthMechanisms() []string { return []string{sasl.Plain} }

func (s *session) Auth(mech string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(identity, username, password string) error {
		if username != s.srv.user || password != s.srv.pass {
			return errors.New("invalid credentials")
		}
		s.auth = true
		s.srv.mu.Lock()
		s.srv.auths = append(s.srv.auths, username)
		s.srv.mu.Unlock()
		return nil
	}), nil
}

func (s *session) Mail(from string, _ *smtp.MailOptions) error {
	if !s.auth {
		return smtp.ErrAuthRequired
	}
	s.msg = received{from: from}
	return nil
}

func (s *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	s.msg.to = append(s.msg.to, to)
	return nil
}

func (s *session) Data(r io.Reader) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	_, s.msg.tls = s.conn.TLSConnectionState()
	s.msg.data = b
	s.srv.mu.Lock()
	s.srv.got = append(s.srv.got, s.msg)
	s.srv.mu.Unlock()
	return nil
}

func (s *session) Reset()        {}
func (s *session) Logout() error { return nil }

// hookReceiver is a local HTTP server that keeps the JSON posted to it and
// answers each post with the next status of answers (200 once they run out).
type hookReceiver struct {
	*httptest.Server
	mu      sync.Mutex
	posts   []map[string]any
	paths   []string
	answers []int
}

func startHook(t *testing.T, answers ...int) *hookReceiver {
	t.Helper()
	h := &hookReceiver{answers: answers}
	h.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		err := json.NewDecoder(r.Body).Decode(&body)
		h.mu.Lock()
		h.paths = append(h.paths, r.URL.Path)
		if err == nil && r.Header.Get("Content-Type") == "application/json; charset=utf-8" {
			h.posts = append(h.posts, body)
		}
		status := http.StatusOK
		if len(h.answers) > 0 {
			status, h.answers = h.answers[0], h.answers[1:]
		}
		h.mu.Unlock()
		w.WriteHeader(status)
		io.WriteString(w, "answer\x1b[2J")
	}))
	t.Cleanup(h.Close)
	return h
}

func (h *hookReceiver) received() ([]map[string]any, []string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]map[string]any(nil), h.posts...), append([]string(nil), h.paths...)
}
