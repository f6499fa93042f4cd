package main

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/reconcile/reconcile/internal/alarms"
	"github.com/reconcile/reconcile/internal/platform"
	"github.com/reconcile/reconcile/outputs"
)

// The response MLE key (docs/account.md, Authentication; docs/platform.md,
// "Response MLE"): the platform encrypts its answers for it once message-
// level encryption of responses is on for the merchant, mandatory from
// March 2027.

// responseMLEOption is platform.WithResponseMLE for a key given, else no
// option.
func responseMLEOption(k platform.ResponseMLEKey) platform.Option {
	if k.IsZero() {
		return nil
	}
	return platform.WithResponseMLE(k)
}

// ResponseMLEKeyStatus says how long the response MLE key has left, for
// the run's warning and `reconcile doctor`: its expiry (Known false for a
// PEM key without certificate), and one line for people. warn is set when
// it expires within alarms.DefaultResponseMLEKeyDays or has expired.
func ResponseMLEKeyStatus(k platform.ResponseMLEKey, now time.Time) (e platform.KeyExpiry, line string, warn bool) {
	e = k.Expiry(now)
	switch {
	case k.IsZero():
		return e, "no response MLE key configured (--response-mle-key)", false
	case !e.Known:
		return e, fmt.Sprintf("response MLE key %s: no certificate in the file, expiry unknown", e.KeyID), false
	case !e.NotAfter.After(now):
		return e, fmt.Sprintf("response MLE key %s EXPIRED on %s: the platform stops encrypting for it; generate a new \"REST – API Response MLE\" key in the merchant portal", e.KeyID, e.NotAfter.UTC().Format(time.DateOnly)), true
	}
	return e, fmt.Sprintf("response MLE key %s expires on %s, %d days left", e.KeyID, e.NotAfter.UTC().Format(time.DateOnly), e.DaysLeft),
		e.DaysLeft <= alarms.DefaultResponseMLEKeyDays
}

// keyed records the response MLE key's expiry for the metrics and warns
// when it is near or past: an expired key is used all the same (the
// platform, not its date, decides whether it still encrypts for it), but
// loudly.
func (h *runHooks) keyed(k platform.ResponseMLEKey, now time.Time, log *slog.Logger) {
	if k.IsZero() {
		return
	}
	e, line, warn := ResponseMLEKeyStatus(k, now)
	if h != nil && e.Known {
		h.mleNotAfter = e.NotAfter
	}
	if warn {
		log.Warn(line, "kid", e.KeyID, "not_after", e.NotAfter.UTC().Format(time.RFC3339), "days_left", e.DaysLeft)
	} else {
		log.Info(line, "kid", e.KeyID)
	}
}

// manifestKey is the key's entry of the manifest: its kid and expiry,
// nothing of the key itself.
func manifestKey(k platform.ResponseMLEKey, now time.Time) *outputs.ManifestKey {
	if k.IsZero() {
		return nil
	}
	e := k.Expiry(now)
	mk := &outputs.ManifestKey{KeyID: e.KeyID}
	if e.Known {
		mk.NotAfter = e.NotAfter.UTC().Format(time.RFC3339)
		d := e.DaysLeft
		mk.DaysLeft = &d
	}
	return mk
}
