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

// control wraps a control handler with the portfolio-key check.
func (s *Server) control(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ri := info(r)
		if ri.user.Kind != UserPortfolio {
			s.writeError(w, ri, http.StatusForbidden, "FORBIDDEN", "NOT_AUTHORIZED", "the sandbox control endpoints need the portfolio key")
			return
		}
		h(w, r)
	}
}

func (s *Server) getSettings(w http.ResponseWriter, r *http.Request) {
	mid := r.PathValue("mid")
	st, err := s.MerchantSettings(mid)
	if err != nil {
		s.writeError(w, info(r), http.StatusNotFound, "NOT_FOUND", "INVALID_DATA", err.Error())
		return
	}
	s.writeJSON(w, http.StatusOK, st)
}

func (s *Server) putSettings(w http.ResponseWriter, r *http.Request) {
	mid := r.PathValue("mid")
	st, err := s.MerchantSettings(mid)
	if err != nil {
		s.writeError(w, info(r), http.StatusNotFound, "NOT_FOUND", "INVALID_DATA", err.Error())
		return
	}
	if !s.decodeBody(w, r, &st) {
		return
	}
	if err := s.SetMerchantSettings(mid, st); err != nil {
		s.writeError(w, info(r), http.StatusNotFound, "NOT_FOUND", "INVALID_DATA", err.Error())
		return
	}
	s.writeJSON(w, http.StatusOK, st)
}
