package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/reconcile/reconcile/internal/credentials"
	"github.com/reconcile/reconcile/internal/doctor"
	"github.com/reconcile/reconcile/internal/embedded"
	"github.com/reconcile/reconcile/internal/platform"
)

const doctorExamples = `  reconcile doctor --base-url https://apitest.cybersource.com --organization-id myorg \
      --key-id 1a2b3c --secret-file key.b64          # every member
  reconcile doctor --config /etc/reconcile/reconcile.yaml --sample 20
  reconcile doctor                                    # the embedded sandbox
`

const doctorExitCodes = "Exit codes: 0 a run would reconcile something, 1 it would not (each problem is printed with its fix)."

// cmdDoctor answers "will a run work with my account?" in a few requests,
// read-only: the same flags and credentials as run (a config file works
// as is), plus --sample.
func cmdDoctor(ctx context.Context, args []string, e env) error {
	var sampleN int
	o, err := parseRunFlags("doctor [flags]",
		"Check, read-only and in a few requests, that a run would work: the clock, the credentials, which group-management path answers and how many members it lists, and which endpoint families answer for each member.",
		doctorExamples, doctorExitCodes, args, e, func(fs *flag.FlagSet) {
			fs.IntVar(&sampleN, "sample", 0, "doctor only: probe this many members, spread over the list (0: every member)")
		})
	if err != nil {
		return err
	}
	if sampleN < 0 {
		return fmt.Errorf("--sample %d: want a number of members, or 0 for all", sampleN)
	}
	now := time.Now().UTC()
	if o.merchantList, err = readMerchants(o.merchants); err != nil {
		return err
	}
	if o.groupsPath != "" {
		if err := platform.CheckGroupsPath(o.groupsPath); err != nil {
			return fmt.Errorf("--groups-path: %w", err)
		}
	}
	form, err := platform.ParseSearchTimeForm(o.searchTimeForm)
	if err != nil {
		return fmt.Errorf("--search-time-form: %w", err)
	}
	log, err := newLogger(io.Discard, "error")
	if err != nil {
		return err
	}
	creds, baseURL, org := platform.Credentials{}, o.baseURL, o.organizationID
	var mleKey platform.ResponseMLEKey
	if baseURL == "" {
		// The embedded sandbox, its journals in a folder of its own.
		auth, err := embedded.Auth(o.auth, o.organizationID)
		if err != nil {
			return err
		}
		if o.out, err = os.MkdirTemp("", "reconcile-doctor-"); err != nil {
			return err
		}
		defer os.RemoveAll(o.out)
		sb, err := embedded.Start(ctx, embeddedOptions(o, now.AddDate(0, 0, -1), nil), auth, log) // no database: a world of its own
		if err != nil {
			return err
		}
		defer sb.Close()
		baseURL, creds, org = sb.URL, sb.Creds, firstNonEmpty(org, sb.OrganizationID)
	} else {
		if creds, err = credentials.Load(credentialSettings(o), e.getenv); err != nil {
			return err
		}
		if mleKey, err = credentials.LoadResponseMLE(credentialSettings(o), e.getenv, creds.Mode); err != nil {
			return err
		}
		if org == "" && len(o.merchantList) == 0 {
			return errors.New("--organization-id is required with --base-url (or name the members with --merchants)")
		}
	}
	if creds.PortfolioID == "" {
		creds.PortfolioID = org
	}
	client, err := newRunClient(o, e, baseURL, creds, form, mleKey)
	if err != nil {
		return err
	}
	scope, err := platform.ParseSearchScope(o.searchScope)
	if err != nil {
		return fmt.Errorf("--search-scope: %w", err)
	}
	rep := doctor.Run(ctx, doctor.Options{Client: client, BaseURL: baseURL, HTTPClient: e.httpClient,
		OrganizationID: org, GroupsPath: o.groupsPath, Merchants: o.merchantList, Sample: sampleN,
		SearchScope: scope, ScopeID: o.searchScopeID})
	if ctx.Err() != nil {
		return ctx.Err()
	}
	printDoctor(e.stdout, rep, baseURL, org, string(creds.Mode), mleKey, now)
	if !rep.Ready() {
		return errors.New("a run would reconcile nothing: see the problems above")
	}
	return nil
}

// printDoctor writes the report: the account's checks, a table of the
// members' families, the problems with their fixes, the verdict.
func printDoctor(w io.Writer, r *doctor.Report, baseURL, org, auth string, mleKey platform.ResponseMLEKey, now time.Time) {
	fmt.Fprintf(w, "reconcile doctor: %s, organization %s, auth %s\n\n", terminalLine(baseURL), terminalLine(org), auth)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	line := func(what string, c doctor.Check) {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", what, c.Outcome, terminalLine(c.Detail))
	}
	line("clock", r.Clock)
	line("credentials", r.Credentials)
	line("discovery", r.Discovery)
	if _, text, _ := ResponseMLEKeyStatus(mleKey, now); !mleKey.IsZero() {
		fmt.Fprintf(tw, "response key\t\t%s\n", terminalLine(text))
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
			row := []string{terminalLine(m.MerchantID)}
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
			fmt.Fprintf(tw, "%s %s\t%s\t%s\n", sc.Scope, terminalLine(sc.ID), sc.Outcome, terminalLine(sc.Detail))
		}
		tw.Flush()
	}
	if problems := r.Problems(); len(problems) > 0 {
		fmt.Fprintln(w, "\nproblems:")
		for _, p := range problems {
			fmt.Fprintf(w, "  - %s: %s\n    fix: %s\n", p.Outcome, terminalLine(p.Detail), terminalLine(p.Fix))
		}
	}
	if r.Ready() {
		fmt.Fprintln(w, "\nverdict: ready: a run would reconcile these members")
	} else {
		fmt.Fprintln(w, "\nverdict: not ready: a run would reconcile nothing")
	}
}
