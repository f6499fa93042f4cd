package sandbox

import (
	"fmt"
	"time"
)

// Nights of one world. A sandbox is generated for one business date (its
// Config.BusinessDate); a reconciliation of a later date reads the same
// world further on, not another one generated for that date: the data
// clock stands at the later night's 02:00 UTC (Config.Clock, clock.go)
// and the billing engine (engine.go) has processed every payment, retry
// and missed cycle due by then. A second night then finds what changed
// since the first, as it would on the platform, and its ground truth
// (GroundTruthOn) and the merchants' journals (WriteJournalsOn) describe
// that night: the members as generated, moved by the engine to the
// night's clock, over the night's window.

// nightClock is the data clock of a night's reconciliation: the next day
// at 02:00 UTC, as the generated data's own as-of instant.
func nightClock(night time.Time) time.Time { return utcDay(night).Add(26 * time.Hour) }

// nightWindow is the window a reconciliation of night reads with the
// configured lookback: [night - lookback days, night + 1 day).
func (s *Server) nightWindow(night time.Time) (time.Time, time.Time) {
	return night.AddDate(0, 0, -s.cfg.Lookback), night.AddDate(0, 0, 1)
}

// checkNight returns night as a UTC day, refusing a day before the one the
// world was generated for: its data as of an earlier night is not known.
func (s *Server) checkNight(night time.Time) (time.Time, error) {
	night = utcDay(night)
	if night.Before(s.cfg.BusinessDate) {
		return time.Time{}, fmt.Errorf("night %s is before %s, the business date the sandbox's data was generated for",
			night.Format(time.DateOnly), s.cfg.BusinessDate.Format(time.DateOnly))
	}
	return night, nil
}

// withMemberOn runs fn on member idx as night finds it: on the world's
// own night, as withMember; on a later one, generated afresh (not cached:
// the cache holds the members as the API's requests moved them) and
// moved by the billing engine to the night's data clock. The engine
// reaches the same state in one step as in many (engine.go), so this is
// the member the platform serves at that clock when nothing wrote to it.
func (s *Server) withMemberOn(idx int, night time.Time, fn func(m *member)) {
	at := nightClock(night)
	if !at.After(s.gen.asOf) {
		s.withMember(idx, fn)
		return
	}
	m := s.gen.member(idx)
	m.mu.Lock()
	defer m.mu.Unlock()
	s.advance(m, at)
	fn(m)
}

// NightClock is the data clock at which a reconciliation of night reads
// the world: night + 1 day, 02:00 UTC. A server started with
// Config.Clock = NightClock(night) serves that night.
func NightClock(night time.Time) time.Time { return nightClock(night) }

// clockWindow is the window of the night the data clock stands at (the
// night whose nightly run it is: the day of the clock less 26 hours), never
// before the world's first night. The settlement reports plan their
// anomalies over it, as that night's ground truth does (GroundTruthOn), so
// a later night's reports and truth agree.
func (s *Server) clockWindow() (time.Time, time.Time) {
	night := utcDay(s.Clock().Add(-26 * time.Hour))
	if night.Before(s.cfg.BusinessDate) {
		night = s.cfg.BusinessDate
	}
	return s.nightWindow(night)
}
