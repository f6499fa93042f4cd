package notify

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net"
	"net/mail"
	"net/smtp"
	"net/textproto"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// ErrNoSTARTTLS is returned for a server that does not offer STARTTLS: the
// digest, and the password, are never sent in clear.
var ErrNoSTARTTLS = errors.New("the SMTP server does not offer STARTTLS; refusing to send in clear")

// sendEmail sends d to its recipients through e's server: STARTTLS
// (required, the server's certificate verified against e.RootCAs or the
// system's), then AUTH PLAIN when a username is set, then the message.
func sendEmail(ctx context.Context, e *Email, d Digest, timeout time.Duration) error {
	msg, err := buildMessage(e.From, d)
	if err != nil {
		return err
	}
	host, _, _ := net.SplitHostPort(e.Server)
	dialer := net.Dialer{Timeout: timeout}
	conn, err := dialer.DialContext(ctx, "tcp", e.Server)
	if err != nil {
		return fmt.Errorf("connect to %s: %w", e.Server, err)
	}
	defer conn.Close()
	deadline := time.Now().Add(timeout)
	if dl, ok := ctx.Deadline(); ok && dl.Before(deadline) {
		deadline = dl
	}
	conn.SetDeadline(deadline)
	c, err := smtp.NewClient(conn, host)
	if err != nil {
		return fmt.Errorf("%s: %w", e.Server, err)
	}
	defer c.Close()
	if err := c.Hello("localhost"); err != nil {
		return fmt.Errorf("%s: EHLO: %w", e.Server, err)
	}
	if ok, _ := c.Extension("STARTTLS"); !ok {
		return fmt.Errorf("%s: %w", e.Server, ErrNoSTARTTLS)
	}
	if err := c.StartTLS(&tls.Config{ServerName: host, RootCAs: e.RootCAs, MinVersion: tls.VersionTLS12}); err != nil {
		return fmt.Errorf("%s: STARTTLS: %w", e.Server, err)
	}
	if e.Username != "" {
		if err := c.Auth(smtp.PlainAuth("", e.Username, e.Password.Reveal(), host)); err != nil {
			return fmt.Errorf("%s: AUTH as %s: %w", e.Server, e.Username, err)
		}
	}
	if err := c.Mail(e.From.Address); err != nil {
		return fmt.Errorf("%s: MAIL FROM: %w", e.Server, err)
	}
	for _, to := range d.to {
		if err := c.Rcpt(to.Address); err != nil {
			return fmt.Errorf("%s: RCPT TO %s: %w", e.Server, to.Address, err)
		}
	}
	w, err := c.Data()
	if err != nil {
		return fmt.Errorf("%s: DATA: %w", e.Server, err)
	}
	if _, err := w.Write(msg); err != nil {
		return fmt.Errorf("%s: send the message: %w", e.Server, err)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("%s: the message was refused: %w", e.Server, err)
	}
	// The server has taken the message: a QUIT that fails now must not
	// make the caller send it again.
	c.Quit()
	return nil
}

// transientSMTP tells whether an SMTP failure may pass: a 4xx reply or the
// network, not a 5xx (a refused recipient, failed authentication) nor a
// server without STARTTLS.
func transientSMTP(err error) bool {
	var tp *textproto.Error
	if errors.As(err, &tp) {
		return tp.Code >= 400 && tp.Code < 500
	}
	var ne net.Error
	return errors.As(err, &ne) || errors.Is(err, os.ErrDeadlineExceeded)
}

// buildMessage writes d as an RFC 5322 message: multipart/alternative text
// and HTML, inside multipart/mixed with the workbook when d.Attachment
// names one. Every header value is built from parsed addresses and the
// one-line subject, Q-encoded, so no data can add a header.
func buildMessage(from *mail.Address, d Digest) ([]byte, error) {
	html, err := d.HTML()
	if err != nil {
		return nil, err
	}
	var attachment []byte
	if d.Attachment != "" {
		if attachment, err = os.ReadFile(d.Attachment); err != nil {
			return nil, fmt.Errorf("attach the workbook: %w", err)
		}
	}
	to := make([]string, len(d.to))
	for i, a := range d.to {
		to[i] = a.String()
	}
	var b bytes.Buffer
	header := func(k, v string) { fmt.Fprintf(&b, "%s: %s\r\n", k, fold(len(k)+2, v)) }
	header("From", from.String())
	header("To", strings.Join(to, ", "))
	header("Subject", mime.QEncoding.Encode("utf-8", d.Subject()))
	header("Date", time.Now().UTC().Format(time.RFC1123Z))
	header("Message-ID", messageID(from))
	header("MIME-Version", "1.0")
	header("Auto-Submitted", "auto-generated") // RFC 3834: no auto-replies to it

	altType, alt, err := alternative(d.Text(), html)
	if err != nil {
		return nil, err
	}
	if attachment == nil {
		header("Content-Type", altType)
		b.WriteString("\r\n")
		b.Write(alt)
		return b.Bytes(), nil
	}
	mixed := multipart.NewWriter(&b)
	header("Content-Type", mime.FormatMediaType("multipart/mixed", map[string]string{"boundary": mixed.Boundary()}))
	b.WriteString("\r\n")
	part, err := mixed.CreatePart(textproto.MIMEHeader{"Content-Type": {altType}})
	if err != nil {
		return nil, err
	}
	if _, err := part.Write(alt); err != nil {
		return nil, err
	}
	part, err = mixed.CreatePart(textproto.MIMEHeader{
		"Content-Type":              {"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"},
		"Content-Transfer-Encoding": {"base64"},
		"Content-Disposition":       {mime.FormatMediaType("attachment", map[string]string{"filename": filepath.Base(d.Attachment)})},
	})
	if err != nil {
		return nil, err
	}
	if err := writeBase64(part, attachment); err != nil {
		return nil, err
	}
	if err := mixed.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// fold breaks a header value at its spaces so that no line of the header
// (the name's used columns first) is longer than 78 characters where it can
// be helped (RFC 5322 2.1.1): an encoded subject of a long non-ASCII name
// would otherwise pass the hard limit of 998.
func fold(used int, v string) string {
	var b strings.Builder
	line := used
	for i, word := range strings.Split(v, " ") {
		switch {
		case i == 0:
		case line+1+len(word) > 78:
			b.WriteString("\r\n")
			line = 0
			fallthrough
		default:
			b.WriteByte(' ')
			line++
		}
		b.WriteString(word)
		line += len(word)
	}
	return b.String()
}

// alternative is the text and the HTML part as a multipart/alternative
// body, and its Content-Type (with the boundary).
func alternative(text, html string) (string, []byte, error) {
	var b bytes.Buffer
	alt := multipart.NewWriter(&b)
	for _, p := range []struct{ typ, body string }{{"text/plain", text}, {"text/html", html}} {
		part, err := alt.CreatePart(textproto.MIMEHeader{
			"Content-Type":              {mime.FormatMediaType(p.typ, map[string]string{"charset": "utf-8"})},
			"Content-Transfer-Encoding": {"quoted-printable"},
		})
		if err != nil {
			return "", nil, err
		}
		qp := quotedprintable.NewWriter(part)
		if _, err := qp.Write([]byte(strings.ReplaceAll(p.body, "\n", "\r\n"))); err != nil {
			return "", nil, err
		}
		if err := qp.Close(); err != nil {
			return "", nil, err
		}
	}
	if err := alt.Close(); err != nil {
		return "", nil, err
	}
	return mime.FormatMediaType("multipart/alternative", map[string]string{"boundary": alt.Boundary()}), b.Bytes(), nil
}

// writeBase64 writes b in base64 lines of 76 characters (RFC 2045).
func writeBase64(w io.Writer, b []byte) error {
	enc := base64.StdEncoding.EncodeToString(b)
	for len(enc) > 0 {
		n := min(76, len(enc))
		if _, err := fmt.Fprintf(w, "%s\r\n", enc[:n]); err != nil {
			return err
		}
		enc = enc[n:]
	}
	return nil
}

func messageID(from *mail.Address) string {
	var r [12]byte
	rand.Read(r[:])
	domain := "reconcile.invalid"
	if _, d, ok := strings.Cut(from.Address, "@"); ok && d != "" {
		domain = d
	}
	return "<" + hex.EncodeToString(r[:]) + "@" + domain + ">"
}
