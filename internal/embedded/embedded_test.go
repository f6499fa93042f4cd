package embedded

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/reconcile/reconcile/internal/platform"
)

// TestCloseEndsConnectionsAtOnce: Close leaves no connection open, not even
// one the client dialled and never sent a request on (a pooled dial a run
// leaves most times). http.Server.Shutdown would keep such a connection up
// to 5 s, and the run's process waited that long before it exited.
func TestCloseEndsConnectionsAtOnce(t *testing.T) {
	sb, err := Start(context.Background(), Options{Seed: 7, Scale: "small",
		Date: time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC), Lookback: 3, Out: t.TempDir()},
		platform.Credentials{}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.Dial("tcp", strings.TrimPrefix(sb.URL, "http://"))
	if err != nil {
		sb.Close()
		t.Fatal(err)
	}
	defer conn.Close()
	sb.Close()
	// Closed by the time Close returns, the connection reads io.EOF at
	// once; the deadline only ends the read of one left open (the server's
	// header timeout would close it after 10 s).
	if err := conn.SetReadDeadline(time.Now().Add(3 * time.Second)); err != nil {
		t.Fatal(err)
	}
	_, err = conn.Read(make([]byte, 1))
	if !errors.Is(err, io.EOF) {
		t.Fatalf("a connection dialled before Close: read %v, want io.EOF (closed by the server)", err)
	}
}
