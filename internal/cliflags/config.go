// Package cliflags owns how reconcile's commands read their settings: the
// flags of the command line, then the environment (RECONCILE_<FLAG>), then
// a YAML config file, then the defaults (ApplyLayers); flag mistakes told
// in one line with the flag most likely meant (Parse); and flags that may
// stand among positional arguments (ParseInterspersed). It knows no
// command: internal/cli declares the flags.
package cliflags

import (
	"flag"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// ApplyLayers gives each flag not set on the command line its value from
// the environment (RECONCILE_<FLAG_IN_UPPER_SNAKE>), else from the config
// file (keys are flag names), else its default: flag > env > file > default.
func ApplyLayers(fs *flag.FlagSet, getenv func(string) string, configPath string) error {
	file := map[string]string{}
	if configPath != "" {
		var err error
		if file, err = ReadConfig(configPath); err != nil {
			return err
		}
		var unknown []string
		for k := range file {
			if fs.Lookup(k) == nil {
				if near := nearestFlag(fs, k); near != "" {
					k += " (did you mean " + near + "?)"
				}
				unknown = append(unknown, k)
			}
		}
		if len(unknown) > 0 {
			sort.Strings(unknown)
			return fmt.Errorf("config %s: unknown setting(s) %s", configPath, strings.Join(unknown, ", "))
		}
	}
	onCommandLine := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { onCommandLine[f.Name] = true })
	var err error
	fs.VisitAll(func(f *flag.Flag) {
		if err != nil || onCommandLine[f.Name] || f.Name == "config" {
			return
		}
		if v := getenv(EnvName(f.Name)); v != "" {
			err = setLayered(fs, f.Name, v, "environment "+EnvName(f.Name))
			return
		}
		if v, ok := file[f.Name]; ok {
			err = setLayered(fs, f.Name, v, "config "+configPath+": "+f.Name)
		}
	})
	return err
}

// setLayered sets flag name to v, which came from source (an environment
// variable, a config file's key). An error names the source and shows the
// value, unless the setting may hold a secret or say where one is: then
// the value is never shown (a slip can put the secret itself where its
// file's path belongs).
func setLayered(flags *flag.FlagSet, name, v, source string) error {
	err := flags.Set(name, v)
	switch {
	case err == nil:
		return nil
	case IsSecretSetting(name):
		return fmt.Errorf("%s: invalid value (not shown: it may be a secret)", source)
	}
	return fmt.Errorf("%s=%q: %w", source, v, err)
}

// secretSettings are the settings known to hold a secret or where one is;
// IsSecretSetting also takes any setting whose name says so, so a new one
// is covered without being listed.
var secretSettings = map[string]bool{"secret-file": true}

var secretWords = []string{"secret", "password", "passphrase", "token", "private-key", "key-file", "p12"}

func IsSecretSetting(name string) bool {
	if secretSettings[name] {
		return true
	}
	for _, w := range secretWords {
		if strings.Contains(name, w) {
			return true
		}
	}
	return false
}

// EnvName is RECONCILE_ and the flag name in upper snake case.
func EnvName(flagName string) string {
	return "RECONCILE_" + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

// ReadConfig reads a YAML file of flag-name: value pairs. Lists become
// comma-separated values (e.g. groups: [1001, 1002]).
func ReadConfig(path string) (map[string]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	var raw map[string]any
	if err := yaml.Unmarshal(b, &raw); err != nil {
		return nil, fmt.Errorf("config %s: %w", path, err)
	}
	out := map[string]string{}
	for k, v := range raw {
		switch x := v.(type) {
		case nil:
		case []any:
			parts := make([]string, len(x))
			for i, p := range x {
				parts[i] = fmt.Sprint(p)
			}
			out[k] = strings.Join(parts, ",")
		case time.Time: // YAML reads an unquoted 2026-11-20 as a timestamp
			if x.Equal(x.Truncate(24 * time.Hour)) {
				out[k] = x.Format("2006-01-02")
			} else {
				out[k] = x.Format(time.RFC3339)
			}
		case map[string]any:
			return nil, fmt.Errorf("config %s: %s: want a value, not a mapping", path, k)
		default:
			out[k] = fmt.Sprint(x)
		}
	}
	return out, nil
}

// Layered is the value of the setting name for a command that reads it
// outside a flag set (ack's db): from the environment, else from the
// config file at configPath ("" for none); ok is false when neither sets
// it, and the caller keeps its default.
func Layered(name string, getenv func(string) string, configPath string) (v string, ok bool, err error) {
	if v := getenv(EnvName(name)); v != "" {
		return v, true, nil
	}
	if configPath == "" {
		return "", false, nil
	}
	cfg, err := ReadConfig(configPath)
	if err != nil {
		return "", false, err
	}
	v, ok = cfg[name]
	return v, ok, nil
}
