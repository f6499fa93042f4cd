// Package notifytest runs the receivers of package notify's tests and of the
// command's: a real SMTP server (github.com/emersion/go-smtp) offering
// STARTTLS with a throwaway certificate and AUTH PLAIN, and a local HTTP
// receiver of webhooks. It is for tests only.
package notifytest

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
type SMTPServer struct {
	Addr   string // host:port
	CAFile string // the PEM file of its certificate, for the client to trust
	User   string // the one account AUTH accepts
	Pass   string
	mu     sync.Mutex
	got    []Message
	auths  []string // the username of each successful AUTH
}

// Message is one message as the server took it.
type Message struct {
	From string
	To   []string
	TLS  bool // the session was under TLS when the message came
	Data []byte
}

// StartSMTP starts the server on a loopback port until the test ends. It
// offers STARTTLS unless noTLS, accepts AUTH only under TLS, and the
// message only after AUTH as User with Pass ("reconcile", "s3cret pass").
func StartSMTP(t *testing.T, noTLS bool) *SMTPServer {
	t.Helper()
	s := &SMTPServer{User: "reconcile", Pass: "s3cret pass"}
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
	s.CAFile = filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(s.CAFile, pem.PEM(), 0o600); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.Addr = ln.Addr().String()
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return s
}

// Messages are the messages accepted so far, in order.
func (s *SMTPServer) Messages() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Message(nil), s.got...)
}

type session struct {
	srv  *SMTPServer
	conn *smtp.Conn
	auth bool
	msg  Message
}

func (s *session) AuthMechanisms() []string { return []string{sasl.Plain} }

func (s *session) Auth(mech string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(identity, username, password string) error {
		s.srv.mu.Lock()
		ok := username == s.srv.User && password == s.srv.Pass
		s.srv.mu.Unlock()
		if !ok {
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
	s.msg = Message{From: from}
	return nil
}

func (s *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	s.msg.To = append(s.msg.To, to)
	return nil
}

func (s *session) Data(r io.Reader) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	_, s.msg.TLS = s.conn.TLSConnectionState()
	s.msg.Data = b
	s.srv.mu.Lock()
	s.srv.got = append(s.srv.got, s.msg)
	s.srv.mu.Unlock()
	return nil
}

// Auths are the usernames of the successful AUTHs so far.
func (s *SMTPServer) Auths() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.auths...)
}

// SetPassword changes the password AUTH accepts.
func (s *SMTPServer) SetPassword(p string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.Pass = p
}

func (s *session) Reset()        {}
func (s *session) Logout() error { return nil }

// HookReceiver is a local HTTP server that keeps the JSON posted to it and
// answers each post with the next status of answers (200 once they run out).
type HookReceiver struct {
	*httptest.Server
	mu      sync.Mutex
	posts   []map[string]any
	paths   []string
	answers []int
}

// StartHook starts the receiver until the test ends.
func StartHook(t *testing.T, answers ...int) *HookReceiver {
	t.Helper()
	h := &HookReceiver{answers: answers}
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

// Received are the JSON bodies posted so far (with the right Content-Type),
// and the path of every request.
func (h *HookReceiver) Received() ([]map[string]any, []string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]map[string]any(nil), h.posts...), append([]string(nil), h.paths...)
}
