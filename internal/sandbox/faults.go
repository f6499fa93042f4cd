package sandbox

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// The faults of Config.Faults that act on an answer: latency and jitter,
// the 429 and 503 rolls (serve applies them), and short listings.

func (s *Server) delay() time.Duration {
	f := &s.cfg.Faults
	d := f.Latency
	if f.Jitter > 0 {
		s.faultMu.Lock()
		d += time.Duration(s.faultRNG.Int64N(int64(f.Jitter)))
		s.faultMu.Unlock()
	}
	return d
}

func (s *Server) roll(rate float64) bool {
	if rate <= 0 {
		return false
	}
	if rate >= 1 {
		return true
	}
	s.faultMu.Lock()
	defer s.faultMu.Unlock()
	return s.faultRNG.Float64() < rate
}

// listingOf names the listing r reads (one of Listings) and the path of
// keys to its records in the answer; "" when r reads none.
func listingOf(r *http.Request) (string, []string) {
	p := r.URL.Path
	switch r.Method + " " + p {
	case "GET /rbs/v1/plans":
		return "plans", []string{"plans"}
	case "GET /rbs/v1/subscriptions":
		return "subscriptions", []string{"subscriptions"}
	case "POST /tss/v2/searches":
		return "transactions", []string{"_embedded", "transactionSummaries"}
	}
	if r.Method == http.MethodGet && strings.HasPrefix(p, "/rbs/v1/subscriptions/") && strings.HasSuffix(p, "/payments") {
		return "payments", []string{"subscriptionPayment"}
	}
	return "", nil
}

// shortenListing applies a ShortListing fault to a listing's page: the
// records at positions from Served on are dropped (and the page's count
// with them); totalCount is left as it was. An answer it cannot read is
// left alone.
func (s *Server) shortenListing(r *http.Request, ri *reqInfo, out []byte) []byte {
	name, keys := listingOf(r)
	if name == "" {
		return out
	}
	served := -1
	for _, sl := range s.cfg.Faults.ShortListings {
		if sl.Listing == name && (sl.MerchantID == "" || sl.MerchantID == ri.mid) {
			served = sl.Served
		}
	}
	if served < 0 {
		return out
	}
	var req struct {
		Offset int `json:"offset"`
	}
	if r.Method == http.MethodPost {
		_ = json.Unmarshal(ri.body, &req)
	} else {
		req.Offset, _ = strconv.Atoi(r.URL.Query().Get("offset"))
	}
	page, kept, err := trimRecords(out, keys, max(0, served-req.Offset))
	if err != nil {
		return out
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(page, &top); err != nil {
		return out
	}
	if _, ok := top["count"]; ok {
		top["count"] = json.RawMessage(strconv.Itoa(kept))
		if page, err = json.Marshal(top); err != nil {
			return out
		}
	}
	return page
}

// trimRecords keeps the first keep records of the array found by following
// keys into a JSON object, and says how many it kept.
func trimRecords(raw json.RawMessage, keys []string, keep int) (json.RawMessage, int, error) {
	if len(keys) == 0 {
		var recs []json.RawMessage
		if len(raw) > 0 {
			if err := json.Unmarshal(raw, &recs); err != nil {
				return nil, 0, err
			}
		}
		recs = append([]json.RawMessage{}, recs[:min(len(recs), keep)]...)
		b, err := json.Marshal(recs)
		return b, len(recs), err
	}
	obj := map[string]json.RawMessage{}
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &obj); err != nil {
			return nil, 0, err
		}
	}
	inner, kept, err := trimRecords(obj[keys[0]], keys[1:], keep)
	if err != nil {
		return nil, 0, err
	}
	obj[keys[0]] = inner
	b, err := json.Marshal(obj)
	return b, kept, err
}
