package doctor

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/reconcile/reconcile/internal/platform"
	"github.com/reconcile/reconcile/internal/safetext"
)

// Write prints the report for `reconcile doctor`: the account's checks
// (with keyLine, the response MLE key's status, when a key is given), a
// table of the members' families, the problems with their fixes, the
// verdict. Text from the platform or the operator is escaped for the
// terminal (safetext).
func (r *Report) Write(w io.Writer, baseURL, org, auth, keyLine string) {
	fmt.Fprintf(w, "reconcile doctor: %s, organization %s, auth %s\n\n", safetext.Line(baseURL), safetext.Line(org), auth)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	line := func(what string, c Check) {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", what, c.Outcome, safetext.Line(c.Detail))
	}
	line("clock", r.Clock)
	line("credentials", r.Credentials)
	line("discovery", r.Discovery)
	if keyLine != "" {
		fmt.Fprintf(tw, "response key\t\t%s\n", safetext.Line(keyLine))
	}
	tw.Flush()
	if len(r.Members) > 0 {
		fmt.Fprintf(w, "\nmembers: %d checked of %d\n", len(r.Members), r.MembersSeen)
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		head := []string{"MEMBER"}
		for _, f := range platform.Families {
			head = append(head, strings.ToUpper(string(f)))
		}
		fmt.Fprintln(tw, strings.Join(head, "\t"))
		for _, m := range r.Members {
			row := []string{safetext.Line(m.MerchantID)}
			for _, f := range platform.Families {
				row = append(row, string(m.Families[f].Outcome))
			}
			fmt.Fprintln(tw, strings.Join(row, "\t"))
		}
		tw.Flush()
	}
	if len(r.Scopes) > 0 {
		fmt.Fprintln(w, "\none search for every member (--search-scope):")
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, sc := range r.Scopes {
			fmt.Fprintf(tw, "%s %s\t%s\t%s\n", sc.Scope, safetext.Line(sc.ID), sc.Outcome, safetext.Line(sc.Detail))
		}
		tw.Flush()
	}
	if problems := r.Problems(); len(problems) > 0 {
		fmt.Fprintln(w, "\nproblems:")
		for _, p := range problems {
			fmt.Fprintf(w, "  - %s: %s\n    fix: %s\n", p.Outcome, safetext.Line(p.Detail), safetext.Line(p.Fix))
		}
	}
	if r.Ready() {
		fmt.Fprintln(w, "\nverdict: ready: a run would reconcile these members")
	} else {
		fmt.Fprintln(w, "\nverdict: not ready: a run would reconcile nothing")
	}
}
