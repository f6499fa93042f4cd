package cli

import (
	"flag"

	"github.com/reconcile/reconcile/internal/finish"
	"github.com/reconcile/reconcile/internal/metrics"
)

// noticeOptions are the flags of what an operator is told of a
// publication, by `reconcile run` (and `schedule`) and by any command that
// publishes (a merge): --alarms, --notify and --metrics-push.
//
// A command loads them at its start (loadNotice) and hands them to the
// end of its run, package internal/finish, whose doc gives the order.
type noticeOptions struct {
	alarms      string
	notify      string
	metricsPush string
}

func (n *noticeOptions) register(fs *flag.FlagSet) {
	fs.StringVar(&n.alarms, "alarms", "", "YAML file of alarm thresholds; raised alarms are marked on the Summary sheet, in the manifest, the metrics and the digest's subject (docs/operations.md)")
	fs.StringVar(&n.notify, "notify", "", "YAML file saying who gets the digest of each run: e-mail (SMTP with STARTTLS) and webhooks, per group (docs/operations.md)")
	fs.StringVar(&n.metricsPush, "metrics-push", "", "Prometheus Pushgateway URL: push the run's metrics there too (job reconcile, grouped by shard)")
}

// loadNotice reads the --alarms and --notify files (finish.Load) and checks
// --metrics-push, so that a mistake fails the command before any work.
func loadNotice(o noticeOptions, getenv func(string) string) (*finish.Notice, error) {
	if o.metricsPush != "" {
		if _, err := metrics.PushURL(o.metricsPush, "0/1"); err != nil {
			return nil, err
		}
	}
	return finish.Load(o.alarms, o.notify, getenv)
}
