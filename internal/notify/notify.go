// Package notify tells people what a run found, where they already look:
// a short digest by e-mail (SMTP with STARTTLS; text and HTML, the
// workbook attached when small enough) and by webhook (JSON whose text
// field Slack and Teams show), for the whole run and, routed to their
// owners, for each group (Config).
//
// A digest says the run's status, the members that failed and why, the
// findings new today per kind with their amounts per currency, those still
// open, resolved since the previous run and acknowledged, the alarms it
// raised (package alarms), and where the workbook is. It is read from the
// working database after the publish step, so the same call serves a run
// and a merged publication:
//
//	deliveries := notify.Send(ctx, db, cfg, run, pub)
//
// where run is the reports.Publication that was published (its Alarms set) and pub
// what reports.Publish returned. A run that failed before publishing sends
// notify.FailedRun's digest instead, through Deliver.
//
// Delivery never fails a run: Send returns each attempt's outcome for the
// caller to log and count. Nothing of a finding's detail is read, so no
// card data can reach a message; outside text (member IDs, the platform's
// errors, group names) is escaped for each format (see Digest).
package notify

import (
	"context"
	"fmt"
	"time"

	"github.com/reconcile/reconcile/reports"
)

// Delivery is the outcome of sending one digest over one channel.
type Delivery struct {
	Channel string // "email", "webhook", or "digest" when it could not be read
	Group   string // "" for the whole run's digest
	To      string // the recipients, or the webhook's host (never its URL)
	Subject string
	Err     error
}

// Channels of a Delivery.
const (
	ChannelEmail   = "email"
	ChannelWebhook = "webhook"
	ChannelDigest  = "digest"
)

// Send collects the digests of a published run (Collect) and delivers
// them (Deliver). When the database cannot be read, the one outcome says
// so (channel "digest").
func Send(ctx context.Context, q Querier, cfg *Config, run reports.Publication, pub *reports.Published) []Delivery {
	digests, err := Collect(ctx, q, cfg, run, pub)
	if err != nil {
		return []Delivery{{Channel: ChannelDigest, Err: err}}
	}
	return Deliver(ctx, cfg, digests)
}

// Deliver sends each digest to its recipients and webhook, one after the
// other, each within cfg.Timeout; a delivery that fails for a reason that
// may pass is tried once more.
func Deliver(ctx context.Context, cfg *Config, digests []Digest) []Delivery {
	var out []Delivery
	for _, d := range digests {
		if len(d.to) > 0 && cfg.Email != nil {
			m := d // the e-mail's copy says whether the workbook goes with it
			m.attachment(cfg.Email.AttachMax)
			err := retry(ctx, cfg.retryWait, transientSMTP, func() error { return sendEmail(ctx, cfg.Email, m, cfg.Timeout) })
			out = append(out, Delivery{Channel: ChannelEmail, Group: d.GroupID,
				To: fmt.Sprintf("%d recipient(s) via %s", len(d.to), cfg.Email.Server), Subject: d.Subject(), Err: err})
		}
		if d.webhook != nil {
			err := retry(ctx, cfg.retryWait, transientWebhook, func() error { return postWebhook(ctx, d.webhook, d, cfg.Timeout) })
			out = append(out, Delivery{Channel: ChannelWebhook, Group: d.GroupID, To: d.webhook.Host, Subject: d.Subject(), Err: err})
		}
	}
	return out
}

// retry runs send, and once more after wait when it failed and transient
// says the failure may pass.
func retry(ctx context.Context, wait time.Duration, transient func(error) bool, send func() error) error {
	err := send()
	if err == nil || !transient(err) {
		return err
	}
	select {
	case <-ctx.Done():
		return err
	case <-time.After(wait):
	}
	if err2 := send(); err2 != nil {
		return fmt.Errorf("%w (and again: %v)", err, err2)
	}
	return nil
}
