package alarms

import (
	"fmt"
	"time"

	"github.com/reconcile/reconcile/internal/platform"
	"github.com/reconcile/reconcile/reports"
)

// ResponseMLEKeyExpiry is the alarm on the response MLE key (docs/platform.md,
// "Response MLE"): the portal's keys are valid for three years, and once
// one expires the platform stops encrypting for it, so every request of
// every member fails until a new key is generated and configured. It is
// raised when the key's certificate expires within ResponseMLEKeyDays days
// (or has expired).
const ResponseMLEKeyExpiry = "response_mle_key_expiry"

// DefaultResponseMLEKeyDays is how many days ahead the key's expiry
// raises the alarm unless the --alarms file says response-mle-key-days.
const DefaultResponseMLEKeyDays = 60

// KeyExpiry checks the response MLE key kid, valid until notAfter, at now:
// Value is the whole days left (negative once expired), Limit the days
// ahead it is raised. It is checked whenever --alarms is given and a key
// is configured, whatever else the file holds.
func (r *Rules) KeyExpiry(kid string, notAfter, now time.Time) reports.Alarm {
	days := DefaultResponseMLEKeyDays
	if r != nil && r.ResponseMLEKeyDays != nil {
		days = *r.ResponseMLEKeyDays
	}
	left := int(notAfter.Sub(now).Hours() / 24)
	a := reports.Alarm{Name: ResponseMLEKeyExpiry, Value: float64(left), Limit: float64(days), Raised: left <= days}
	date := notAfter.UTC().Format(time.DateOnly)
	switch {
	case !notAfter.After(now):
		a.Message = fmt.Sprintf("the response MLE key %s expired on %s: the platform stops encrypting for it; generate a new \"REST – API Response MLE\" key in the merchant portal and give it to --response-mle-key", kid, date)
	case a.Raised:
		a.Message = fmt.Sprintf("the response MLE key %s expires on %s, in %s (limit %d): generate a new \"REST – API Response MLE\" key in the merchant portal and give it to --response-mle-key", kid, date, plural(left, "day"), days)
	default:
		a.Message = fmt.Sprintf("the response MLE key %s expires on %s, in %s (limit %d)", kid, date, plural(left, "day"), days)
	}
	return a
}

// ResponseMLEKeyStatus says how long the response MLE key has left, for
// the run's warning and `reconcile doctor`: its expiry (Known false for a
// PEM key without certificate), and one line for people. warn is set when
// it expires within DefaultResponseMLEKeyDays or has expired.
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
		e.DaysLeft <= DefaultResponseMLEKeyDays
}
