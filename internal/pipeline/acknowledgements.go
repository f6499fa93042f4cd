package pipeline

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/reconcile/reconcile/internal/cardmask"
	"github.com/reconcile/reconcile/internal/checks"
	"github.com/reconcile/reconcile/internal/store"
)

// SyncAcknowledgements makes the acknowledgements of a run's file (path,
// its entries acks; checks.SyncAcknowledgementFile) in db, as by, before
// the run of date applies them in its checks, and logs what changed and
// the entries that acknowledge nothing any more.
func SyncAcknowledgements(ctx context.Context, db *store.Store, path string, acks []checks.Acknowledgement, date time.Time,
	by string, log *slog.Logger) error {
	runID := RunID(date)
	// The source is stored in the acknowledgements' history: the path
	// masked, as the journal files' are (ingest.JournalImport.File).
	c := checks.Change{By: by, At: time.Now().UTC(), Source: "file " + cardmask.MaskText(path)}
	sync, err := checks.SyncAcknowledgementFile(ctx, db, acks, date, c, runID)
	if err != nil {
		return fmt.Errorf("acknowledgements file %s: %w", path, err)
	}
	log.Info("acknowledgements file", "file", path, "entries", len(acks), "made_or_changed", sync.Changed, "revoked", sync.Revoked)
	for _, a := range sync.Past {
		log.Warn("acknowledgement past its date, ignored: remove it from the file", "file", path, "kind", a.Kind,
			"merchant_id", a.MerchantID, "entity_id", a.EntityID, "until", a.Until.Format(time.DateOnly))
	}
	for _, a := range sync.Reopened {
		log.Warn("acknowledgement reopened because its finding's amount changed; change the entry to acknowledge the new amount",
			"file", path, "kind", a.Kind, "merchant_id", a.MerchantID, "entity_id", a.EntityID)
	}
	return nil
}
