// Package deploy holds the files that run reconcile every night on a host
// (systemd/: a service and its timer) or on Kubernetes (kubernetes/: a
// CronJob for one process, the sharded Indexed Job and the merge), and
// reads back the reconcile command lines in them, so that a test can parse
// each with the real flag sets: a unit or manifest that names a flag
// reconcile does not have fails the build's tests, not a night.
package deploy

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"sigs.k8s.io/yaml"
)

// Files are the units and manifests, as shipped.
//
//go:embed systemd/*.service systemd/*.timer kubernetes/*.yaml
var Files embed.FS

// Command is one reconcile command line found in a file: Args are the
// arguments after the program name, with a shell's variables replaced by
// an example value (JOB_COMPLETION_INDEX by 0).
type Command struct {
	File string
	Args []string
}

// Commands returns every reconcile command line of the systemd units'
// ExecStart and the Kubernetes containers.
func Commands() ([]Command, error) {
	var out []Command
	err := fs.WalkDir(Files, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := Files.ReadFile(p)
		if err != nil {
			return err
		}
		var cmds [][]string
		switch path.Ext(p) {
		case ".service":
			cmds = execStarts(string(b))
		case ".yaml":
			if cmds, err = containerCommands(b); err != nil {
				return fmt.Errorf("%s: %w", p, err)
			}
		}
		for _, c := range cmds {
			out = append(out, Command{File: p, Args: c})
		}
		return nil
	})
	return out, err
}

// execStarts reads a unit's ExecStart lines whose program is reconcile.
func execStarts(unit string) [][]string {
	var out [][]string
	for _, line := range strings.Split(unit, "\n") {
		v, ok := strings.CutPrefix(strings.TrimSpace(line), "ExecStart=")
		if !ok {
			continue
		}
		f := strings.Fields(v)
		if len(f) > 0 && path.Base(f[0]) == "reconcile" {
			out = append(out, f[1:])
		}
	}
	return out
}

// containerCommands reads a manifest's containers: command ["reconcile"]
// with args, or a shell running "exec reconcile ...".
func containerCommands(manifest []byte) ([][]string, error) {
	var out [][]string
	for _, doc := range strings.Split(string(manifest), "\n---\n") {
		var m struct {
			Spec struct {
				JobTemplate struct {
					Spec struct {
						Template struct {
							Spec struct {
								Containers []struct {
									Command []string `json:"command"`
									Args    []string `json:"args"`
								} `json:"containers"`
							} `json:"spec"`
						} `json:"template"`
					} `json:"spec"`
				} `json:"jobTemplate"`
			} `json:"spec"`
		}
		if err := yaml.Unmarshal([]byte(doc), &m); err != nil {
			return nil, err
		}
		for _, c := range m.Spec.JobTemplate.Spec.Template.Spec.Containers {
			switch {
			case len(c.Command) == 1 && c.Command[0] == "reconcile":
				out = append(out, c.Args)
			case len(c.Command) == 2 && c.Command[1] == "-c" && len(c.Args) == 1:
				f := shellWords(c.Args[0])
				if len(f) > 2 && f[0] == "exec" && f[1] == "reconcile" {
					out = append(out, f[2:])
				}
			}
		}
	}
	return out, nil
}

// shellWords splits the manifests' simple shell lines: words, double
// quotes, and ${JOB_COMPLETION_INDEX} standing for an index.
func shellWords(s string) []string {
	s = strings.ReplaceAll(s, "${JOB_COMPLETION_INDEX}", "0")
	var words []string
	for _, w := range strings.Fields(s) {
		words = append(words, strings.Trim(w, `"'`))
	}
	return words
}
