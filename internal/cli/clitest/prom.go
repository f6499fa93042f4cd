package clitest

import (
	"bufio"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// PromSample is one parsed line of the text exposition format.
type PromSample struct {
	Name   string
	Labels map[string]string
	Value  float64
}

// ParseProm reads a metrics file strictly as node_exporter's textfile
// collector would: HELP and TYPE before a metric's samples, valid names and
// label syntax, float values, no metric declared twice, no duplicate series.
func ParseProm(t *testing.T, path string) []PromSample {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []PromSample
	typed := map[string]bool{}
	series := map[string]bool{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case promHelp.MatchString(line):
		case promType.MatchString(line):
			name := promType.FindStringSubmatch(line)[1]
			if typed[name] {
				t.Errorf("line %d: %s declared twice", n, name)
			}
			typed[name] = true
		default:
			m := promLine.FindStringSubmatch(line)
			if m == nil {
				t.Fatalf("line %d is not in the exposition format: %q", n, line)
			}
			if !typed[m[1]] {
				t.Errorf("line %d: sample of %s before its TYPE", n, m[1])
			}
			s := PromSample{Name: m[1], Labels: map[string]string{}}
			rest := m[3]
			for rest != "" {
				lm := promLabel.FindStringSubmatch(rest)
				if lm == nil || !strings.HasPrefix(rest, lm[0]) {
					t.Fatalf("line %d: bad labels %q", n, m[3])
				}
				s.Labels[lm[1]] = lm[2]
				rest = rest[len(lm[0]):]
			}
			if s.Value, err = strconv.ParseFloat(m[4], 64); err != nil {
				t.Fatalf("line %d: value %q: %v", n, m[4], err)
			}
			key := line[:strings.LastIndex(line, " ")]
			if series[key] {
				t.Errorf("line %d: series %s twice", n, key)
			}
			series[key] = true
			out = append(out, s)
		}
	}
	return out
}

// PromValue is the value of the sample name whose labels include the
// label/value pairs given, and whether there is one.
func PromValue(samples []PromSample, name string, labels ...string) (float64, bool) {
	for _, s := range samples {
		if s.Name != name {
			continue
		}
		ok := true
		for i := 0; i+1 < len(labels); i += 2 {
			ok = ok && s.Labels[labels[i]] == labels[i+1]
		}
		if ok {
			return s.Value, true
		}
	}
	return 0, false
}

var (
	promHelp  = regexp.MustCompile(`^# HELP ([a-zA-Z_:][a-zA-Z0-9_:]*) \S.*$`)
	promType  = regexp.MustCompile(`^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (gauge|counter|untyped)$`)
	promLine  = regexp.MustCompile(`^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$`)
	promLabel = regexp.MustCompile(`([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"(,|$)`)
)
