// Package buildinfo is the version string of the reconcile binary, as
// every output states it (the manifest, the metrics, the workbook, the
// User-Agent of each request).
package buildinfo

import "runtime/debug"

// Version is set when the build set it (-ldflags "-X main.version=...",
// given here as set), else the version read from the build information
// (versionFrom).
func Version(set string) string {
	if set != "" {
		return set
	}
	bi, _ := debug.ReadBuildInfo()
	return versionFrom(bi)
}

// versionFrom reads a version from the build information: the module's
// version when it has one (go install ...@v1.2.3, or a pseudo-version that
// already names the commit), else "devel" with the commit when the build
// recorded it ("devel+0123456789ab", "-dirty" for uncommitted changes). It
// never returns Go's "(devel)": parentheses are a comment in a User-Agent.
func versionFrom(bi *debug.BuildInfo) string {
	if bi == nil {
		return "devel"
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	v := "devel"
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 12 {
			v += "+" + s.Value[:12]
		}
	}
	for _, s := range bi.Settings {
		if s.Key == "vcs.modified" && s.Value == "true" && v != "devel" {
			v += "-dirty"
		}
	}
	return v
}
