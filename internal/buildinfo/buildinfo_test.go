package buildinfo

import (
	"runtime/debug"
	"testing"
)

// TestVersionFrom: one readable version whatever the build recorded, never
// Go's "(devel)" (a comment in a User-Agent), never the commit twice.
func TestVersionFrom(t *testing.T) {
	rev := debug.BuildSetting{Key: "vcs.revision", Value: "0123456789abcdef0123"}
	dirty := debug.BuildSetting{Key: "vcs.modified", Value: "true"}
	for _, c := range []struct {
		bi   *debug.BuildInfo
		want string
	}{
		{nil, "devel"},
		{&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "devel"},
		{&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{rev}}, "devel+0123456789ab"},
		{&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{rev, dirty}}, "devel+0123456789ab-dirty"},
		{&debug.BuildInfo{Main: debug.Module{Version: "v1.4.2"}, Settings: []debug.BuildSetting{rev}}, "v1.4.2"},
		{&debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261128120000-0123456789ab+dirty"}, Settings: []debug.BuildSetting{rev, dirty}},
			"v0.0.0-20261128120000-0123456789ab+dirty"},
	} {
		if got := versionFrom(c.bi); got != c.want {
			t.Errorf("versionFrom(%+v) = %q, want %q", c.bi, got, c.want)
		}
	}
}
