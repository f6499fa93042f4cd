package sandbox

import (
	"net/http"
)

// Control endpoints of the sandbox itself, under /sandbox/v1: not part of
// the platform, signed like every other call, and open to the portfolio
// key only.
//
//	GET  /sandbox/v1/clock                       {"clock": …, "dataAsOf": …}
//	POST /sandbox/v1/clock                       {"advance": "36h"} or {"to": "2026-11-22T02:00:00Z"}
//	GET  /sandbox/v1/merchants/{mid}/settings    MerchantSettings
//	PUT  /sandbox/v1/merchants/{mid}/settings    MerchantSettings (fields left out keep their value)
//	GET  /sandbox/v1/merchants/{mid}/notifications  the emails sent to its customers

func (s *Server) getSettings(x *exchange, _ noBody) answer {
	st, err := s.MerchantSettings(x.r.PathValue("mid"))
	if err != nil {
		return x.notFound(err.Error())
	}
	return reply(http.StatusOK, st)
}

// putSettings changes the settings the body names; the others keep their
// value (the body is decoded over the current settings).
func (s *Server) putSettings(x *exchange, _ noBody) answer {
	mid := x.r.PathValue("mid")
	st, err := s.MerchantSettings(mid)
	if err != nil {
		return x.notFound(err.Error())
	}
	if refused := x.decode(&st); refused != nil {
		return *refused
	}
	if err := s.SetMerchantSettings(mid, st); err != nil {
		return x.notFound(err.Error())
	}
	return reply(http.StatusOK, st)
}
