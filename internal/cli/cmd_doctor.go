package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/reconcile/reconcile/groups"
	"github.com/reconcile/reconcile/internal/alarms"
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
func cmdDoctor(ctx context.Context, args []string, e Env) error {
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
	if o.merchantList, err = groups.ReadMerchants(o.merchants); err != nil {
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
		if creds, err = credentials.Load(credentialSettings(o), e.Getenv); err != nil {
			return err
		}
		if mleKey, err = credentials.LoadResponseMLE(credentialSettings(o), e.Getenv, creds.Mode); err != nil {
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
	rep := doctor.Run(ctx, doctor.Options{Client: client, BaseURL: baseURL, HTTPClient: e.HTTPClient,
		OrganizationID: org, GroupsPath: o.groupsPath, Merchants: o.merchantList, Sample: sampleN,
		SearchScope: scope, ScopeID: o.searchScopeID})
	if ctx.Err() != nil {
		return ctx.Err()
	}
	keyLine := ""
	if _, text, _ := alarms.ResponseMLEKeyStatus(mleKey, now); !mleKey.IsZero() {
		keyLine = text
	}
	rep.Write(e.Stdout, baseURL, org, string(creds.Mode), keyLine)
	if !rep.Ready() {
		return errors.New("a run would reconcile nothing: see the problems above")
	}
	return nil
}
