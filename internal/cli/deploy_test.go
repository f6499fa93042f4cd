package cli

import (
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reconcile/reconcile/deploy"
)

// TestDeployCommandLinesParse parses every reconcile command line of the
// systemd units and Kubernetes manifests with the command's own flags (the
// configuration they name replaced by reconcile.example.yaml, which is
// parsed too): a renamed flag fails here, not on the first night.
func TestDeployCommandLinesParse(t *testing.T) {
	cmds, err := deploy.Commands()
	if err != nil {
		t.Fatal(err)
	}
	example, err := filepath.Abs("../../reconcile.example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, c := range cmds {
		if len(c.Args) == 0 {
			t.Fatalf("%s: a reconcile command line without a command", c.File)
		}
		args := make([]string, 0, len(c.Args))
		for _, a := range c.Args[1:] {
			a = strings.ReplaceAll(a, "/etc/reconcile/reconcile.yaml", example)
			args = append(args, a)
		}
		var stderr strings.Builder
		e := Env{Stdout: io.Discard, Stderr: &stderr, Getenv: func(string) string { return "" }}
		switch c.Args[0] {
		case "run":
			_, err = parseRunFlags("run", "", "", "", args, e, nil)
		case "merge":
			_, err = parseMergeFlags(args, e)
		default:
			t.Fatalf("%s: reconcile %s: not a command the deploy files should run", c.File, c.Args[0])
		}
		if err != nil {
			t.Errorf("%s: reconcile %s: %v\n%s", c.File, strings.Join(c.Args, " "), err, stderr.String())
		}
		seen[c.File] = true
	}
	for _, f := range []string{"systemd/reconcile.service", "kubernetes/cronjob.yaml", "kubernetes/shards.yaml", "kubernetes/merge.yaml"} {
		if !seen[f] {
			t.Errorf("no reconcile command line read from %s", f)
		}
	}
}
