package notify

import (
	"bytes"
	"fmt"
	"html/template"
	"strings"

	"github.com/reconcile/reconcile/internal/safetext"
	"github.com/reconcile/reconcile/reports"
)

// Subject is the digest's one line: raised alarms first, so that a mail
// client's list shows them, then the date, scope, status and the numbers.
// It holds no line break whatever the data (safetext.Line), so no header
// can be forged through it.
func (d Digest) Subject() string {
	var b strings.Builder
	if len(d.Alarms) > 0 {
		b.WriteString("[ALARM] ")
	}
	if d.Simulated {
		b.WriteString("[SIMULATED] ")
	}
	b.WriteString("reconcile " + d.BusinessDate + d.scope() + " " + d.Status)
	switch {
	case d.Error != "":
		b.WriteString(": " + safetext.Cut(d.Error, 100))
	default:
		fmt.Fprintf(&b, ": %s", plural(d.NewTotal, "new finding"))
		if d.FailedTotal > 0 {
			fmt.Fprintf(&b, ", %s failed", plural(d.FailedTotal, "member"))
		}
		if len(d.Alarms) > 0 {
			labels := make([]string, len(d.Alarms))
			for i, a := range d.Alarms {
				labels[i] = a.Label()
			}
			b.WriteString("; alarms: " + strings.Join(labels, ", "))
		}
	}
	return safetext.Cut(b.String(), 200)
}

// scope is " group 1001 (Region 1)" for a group's digest, "" for the run's.
func (d Digest) scope() string {
	if d.GroupID == "" {
		return ""
	}
	s := " group " + d.GroupID
	if d.GroupName != "" {
		s += " (" + d.GroupName + ")"
	}
	return s
}

// Text is the digest as plain text (the e-mail's text part, and the body
// of the webhook's).
func (d Digest) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "reconcile %s%s: %s\n", d.BusinessDate, d.scope(), d.Status)
	if d.Simulated {
		fmt.Fprintf(&b, "Data: %s\n", reports.SourceLabel(reports.SourceSandbox))
	}
	if d.Error != "" {
		fmt.Fprintf(&b, "\nThe run failed before it published anything:\n  %s\n", d.Error)
		return b.String()
	}
	if len(d.Alarms) > 0 {
		fmt.Fprintf(&b, "\nALARMS (%d)\n", len(d.Alarms))
		for _, a := range d.Alarms {
			fmt.Fprintf(&b, "  - [%s] %s\n", a.Name, a.Message)
		}
	}
	fmt.Fprintf(&b, "\nMembers: %d of %d reconciled, %d failed\n", d.MembersOK, d.Members, d.FailedTotal)
	for _, m := range d.Failed {
		fmt.Fprintf(&b, "  %s: %s\n", m.MerchantID, m.Error)
	}
	if more := d.FailedTotal - int64(len(d.Failed)); more > 0 {
		fmt.Fprintf(&b, "  and %d more (the workbook's Summary lists them)\n", more)
	}
	fmt.Fprintf(&b, "\nNew today: %d\n", d.NewTotal)
	for _, k := range d.New {
		line := fmt.Sprintf("  %-40s %6d  %s", k.Kind, k.Count, strings.Join(k.Amounts, ", "))
		b.WriteString(strings.TrimRight(line, " ") + "\n")
	}
	fmt.Fprintf(&b, "Still open: %d\n", d.Open)
	if d.PreviousRun != "" {
		fmt.Fprintf(&b, "Resolved since %s: %d\n", d.PreviousRun, d.Resolved)
	} else {
		fmt.Fprintf(&b, "Resolved: %d (no earlier run to compare with)\n", d.Resolved)
	}
	fmt.Fprintf(&b, "Acknowledged: %d\n", d.Acknowledged)
	if d.Workbook != "" {
		fmt.Fprintf(&b, "\nWorkbook: %s", d.Workbook)
		if d.AttachNote != "" {
			fmt.Fprintf(&b, " (%s)", d.AttachNote)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// htmlPage is the e-mail's HTML part. html/template escapes every value
// for where it stands, so a merchant's or the platform's text is shown,
// never run.
var htmlPage = template.Must(template.New("digest").Funcs(template.FuncMap{
	"join": strings.Join, "label": reports.SourceLabel,
}).Parse(`<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>{{.Subject}}</title></head>
<body style="font-family: sans-serif">
<h2>reconcile {{.BusinessDate}}{{.Scope}}: {{.Status}}</h2>
{{if .Simulated}}<p><strong>{{label "sandbox"}}</strong></p>{{end}}
{{if .Error}}<p>The run failed before it published anything:</p><pre>{{.Error}}</pre>{{else}}
{{if .Alarms}}<h3 style="color: #b00020">Alarms ({{len .Alarms}})</h3><ul>
{{range .Alarms}}<li>[{{.Name}}] {{.Message}}</li>
{{end}}</ul>{{end}}
<p>Members: {{.MembersOK}} of {{.Members}} reconciled, {{.FailedTotal}} failed</p>
{{if .Failed}}<table border="1" cellpadding="4" style="border-collapse: collapse">
<tr><th>Merchant ID</th><th>Reason</th></tr>
{{range .Failed}}<tr><td>{{.MerchantID}}</td><td>{{.Error}}</td></tr>
{{end}}</table>{{if .MoreFailed}}<p>and {{.MoreFailed}} more (the workbook's Summary lists them)</p>{{end}}{{end}}
<h3>New today: {{.NewTotal}}</h3>
{{if .New}}<table border="1" cellpadding="4" style="border-collapse: collapse">
<tr><th>Kind</th><th>Findings</th><th>Amount</th></tr>
{{range .New}}<tr><td>{{.Kind}}</td><td align="right">{{.Count}}</td><td>{{join .Amounts ", "}}</td></tr>
{{end}}</table>{{end}}
<p>Still open: {{.Open}}<br>
{{if .PreviousRun}}Resolved since {{.PreviousRun}}: {{.Resolved}}{{else}}Resolved: {{.Resolved}} (no earlier run to compare with){{end}}<br>
Acknowledged: {{.Acknowledged}}</p>
{{if .Workbook}}<p>Workbook: <code>{{.Workbook}}</code>{{if .AttachNote}} ({{.AttachNote}}){{end}}</p>{{end}}
{{end}}</body></html>
`))

// HTML is the digest as an HTML page (the e-mail's HTML part).
func (d Digest) HTML() (string, error) {
	var b bytes.Buffer
	err := htmlPage.Execute(&b, struct {
		Digest
		Subject, Scope string
		MoreFailed     int64
	}{d, d.Subject(), d.scope(), d.FailedTotal - int64(len(d.Failed))})
	return b.String(), err
}

// slackText is s for the text of a Slack or Teams message: &, < and > are
// written as entities, so that no text of the data becomes a link or a
// mention (<!channel>).
func slackText(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}

// webhookPayload is the JSON a webhook receives: text, the field Slack's
// and Teams' incoming webhooks show, and the same numbers as fields, for
// a receiver that is a program.
type webhookPayload struct {
	Text      string        `json:"text"`
	Reconcile webhookDigest `json:"reconcile"`
}

type webhookDigest struct {
	BusinessDate  string   `json:"businessDate"`
	Group         string   `json:"group,omitempty"`
	Status        string   `json:"status"`
	Simulated     bool     `json:"simulated"`
	Error         string   `json:"error,omitempty"`
	Members       int64    `json:"members"`
	MembersFailed int64    `json:"membersFailed"`
	New           int64    `json:"newFindings"`
	Open          int64    `json:"openFindings"`
	Resolved      int64    `json:"resolvedFindings"`
	Acknowledged  int64    `json:"acknowledgedFindings"`
	Alarms        []string `json:"alarms"`
	Workbook      string   `json:"workbook,omitempty"`
}

func (d Digest) payload() webhookPayload {
	alarms := []string{}
	for _, a := range d.Alarms {
		alarms = append(alarms, a.Label())
	}
	return webhookPayload{
		Text: "*" + slackText(d.Subject()) + "*\n" + slackText(d.Text()),
		Reconcile: webhookDigest{BusinessDate: d.BusinessDate, Group: d.GroupID, Status: d.Status, Simulated: d.Simulated,
			Error: d.Error, Members: d.Members, MembersFailed: d.FailedTotal, New: d.NewTotal, Open: d.Open,
			Resolved: d.Resolved, Acknowledged: d.Acknowledged, Alarms: alarms, Workbook: d.Workbook},
	}
}

func plural(n int64, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
