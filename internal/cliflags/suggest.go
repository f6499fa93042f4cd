package cliflags

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// Parse parses a command's flags. -h prints the command's whole help;
// a mistake (an unknown flag, a bad value) is one error naming it, with
// "did you mean --date?" when a flag of the command is close, and the
// command's usage line: the whole help (60 lines for run) buried the one
// line that said what was wrong.
func Parse(fs *flag.FlagSet, args []string) error {
	full, out := fs.Usage, fs.Output()
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	err := fs.Parse(args)
	fs.SetOutput(out)
	fs.Usage = full
	switch {
	case err == nil:
		return nil
	case errors.Is(err, flag.ErrHelp):
		full()
		return err
	}
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		msg = "unknown flag --" + strings.TrimPrefix(name, "-")
		if near := nearestFlag(fs, strings.TrimPrefix(name, "-")); near != "" {
			msg += fmt.Sprintf(" (did you mean --%s?)", near)
		}
	}
	command := strings.Fields(fs.Name())[0]
	return fmt.Errorf("%s\nusage: reconcile %s; every flag: reconcile help %s", msg, fs.Name(), command)
}

// nearestFlag is the flag of fs closest to name, if one is close enough to
// be the one meant: at most two edits away (one for short names), or name
// a prefix of it.
func nearestFlag(fs *flag.FlagSet, name string) string {
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	return nearest(name, names)
}

// nearest is the candidate closest to name by edit distance, or "" when
// none is within reach (see nearestFlag). Ties go to the first candidate.
func nearest(name string, candidates []string) string {
	name = strings.ToLower(name)
	best, bestDist := "", 0
	for _, c := range candidates {
		d := editDistance(name, c)
		if strings.HasPrefix(c, name) && len(name) >= 3 {
			d = min(d, 1)
		}
		reach := 2
		if len(name) <= 4 {
			reach = 1
		}
		if d <= reach && (best == "" || d < bestDist) {
			best, bestDist = c, d
		}
	}
	return best
}

// editDistance is the Damerau-Levenshtein distance (optimal string
// alignment) of a and b in bytes: flag names are ASCII, and a swapped pair
// of letters (--daet) is the commonest slip.
func editDistance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return 1 << 30 // not a flag name; no suggestion
	}
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

// ParseInterspersed parses flags wherever they stand among the positional
// arguments (the flag package stops at the first of these), and returns
// the positional arguments in order. After "--" every argument is
// positional.
func ParseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := Parse(fs, args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return positional, nil
		}
		if len(args) > len(rest) && args[len(args)-len(rest)-1] == "--" {
			return append(positional, rest...), nil
		}
		positional, args = append(positional, rest[0]), rest[1:]
	}
}
