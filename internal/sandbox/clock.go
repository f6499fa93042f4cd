package sandbox

import (
	"errors"
	"fmt"
	"net/http"
	"time"
)

// The data clock is the sandbox's "now" for everything the platform
// records: when payments fall due, the submitTimeUtc of payments made
// through the API, date math in searches, the 2-hour cut-off and plan
// expiry. It does not tick by itself: by default it stands at the instant
// the generated data is as of, BusinessDate+1 day 02:00 UTC (the nightly
// run), so nothing a reconciliation reads changes unless a test or an
// operator moves it forward (Server.AdvanceClock, POST /sandbox/v1/clock,
// or --clock at start). Moving it runs the billing engine (engine.go).
//
// The Date header of a request is checked against the real clock
// (Config.Now), as the platform checks it against its own.

// Clock returns the data clock.
func (s *Server) Clock() time.Time {
	s.clockMu.Lock()
	defer s.clockMu.Unlock()
	return s.clock
}

// AdvanceClock moves the data clock forward by d (d ≥ 0) and returns the
// new time. Members catch up lazily, on their next request.
func (s *Server) AdvanceClock(d time.Duration) (time.Time, error) {
	if d < 0 {
		return time.Time{}, fmt.Errorf("advance clock by %s: the clock only moves forward", d)
	}
	s.clockMu.Lock()
	defer s.clockMu.Unlock()
	s.clock = s.clock.Add(d)
	return s.clock, nil
}

// SetClock moves the data clock to t, which must not be before it.
func (s *Server) SetClock(t time.Time) error {
	s.clockMu.Lock()
	defer s.clockMu.Unlock()
	if t.Before(s.clock) {
		return fmt.Errorf("set clock to %s: before the current %s; the clock only moves forward", ts(t), ts(s.clock))
	}
	s.clock = t.UTC()
	return nil
}

// DataAsOf is the instant the generated data is as of: BusinessDate+1 day
// 02:00 UTC. The ground truth and the journals describe the data then.
func (s *Server) DataAsOf() time.Time { return s.gen.asOf }

// clockNow is the data clock as the platform writes submitTimeUtc.
func (s *Server) clockNow() string { return ts(s.Clock()) }

// clockJSON is the body of /sandbox/v1/clock.
type clockJSON struct {
	Clock    string `json:"clock"`
	DataAsOf string `json:"dataAsOf"`
}

// getClock answers GET /sandbox/v1/clock.
func (s *Server) getClock(x *exchange, _ noBody) answer {
	return reply(http.StatusOK, clockJSON{Clock: s.clockNow(), DataAsOf: ts(s.gen.asOf)})
}

// clockRequest is the body of POST /sandbox/v1/clock. It is an unnamed
// struct type, as it always was, so that a decoding error names its
// fields as before (".advance").
type clockRequest = struct {
	Advance string `json:"advance"`
	To      string `json:"to"`
}

// setClock answers POST /sandbox/v1/clock with {"advance": "36h"} or
// {"to": "2026-11-22T02:00:00Z"}.
func (s *Server) setClock(x *exchange, req clockRequest) answer {
	var err error
	switch {
	case req.Advance != "" && req.To != "":
		err = errors.New("give advance or to, not both")
	case req.Advance != "":
		var d time.Duration
		if d, err = time.ParseDuration(req.Advance); err == nil {
			_, err = s.AdvanceClock(d)
		}
	case req.To != "":
		var t time.Time
		if t, err = time.Parse(time.RFC3339, req.To); err == nil {
			err = s.SetClock(t)
		}
	default:
		err = errors.New("advance (a Go duration such as 36h) or to (RFC 3339) is required")
	}
	if err != nil {
		return x.invalid(err.Error())
	}
	return s.getClock(x, noBody{})
}
