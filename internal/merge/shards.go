package merge

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/reconcile/reconcile/groups"
	"github.com/reconcile/reconcile/outputs"
)

// publication is what one folder --from matched holds for the date: a
// shard's published output, or the reason it cannot be merged.
type publication struct {
	root     string // the folder matched: the shard's --out
	dir      string // root/<date>
	shard    groups.Shard
	known    bool // shard is read from its manifest
	manifest outputs.Manifest
	sha256   string // of manifest.json as read
	snapshot string // dir/reconcile-<date>.duckdb
	snapFile outputs.ManifestFile
	snapStat os.FileInfo // when it was hashed: the merge reads that file
	problem  string      // why it cannot be merged; "" when it can
}

func (p *publication) usable() bool { return p.known && p.problem == "" }

func (p *publication) String() string {
	if p.known {
		return "shard " + p.shard.String() + " (" + p.root + ")"
	}
	return p.root
}

// findPublications reads the publication of date in each folder the glob
// from matches. Only what the folder's manifest says is trusted as far as
// it can be checked: the manifest's own date, shard and status, and the
// snapshot it lists, a regular file of the size and hash it says (hashed
// later, by verifySnapshots). A folder without a publication of the date
// (its run failed, or has not finished) is kept with that problem.
func findPublications(from, date string) ([]*publication, error) {
	matches, err := filepath.Glob(from)
	if err != nil {
		return nil, fmt.Errorf("--from %q: %w", from, err)
	}
	var pubs []*publication
	for _, root := range matches {
		if info, err := os.Stat(root); err != nil || !info.IsDir() {
			continue
		}
		p := &publication{root: root, dir: filepath.Join(root, date)}
		p.read(date)
		pubs = append(pubs, p)
	}
	if len(pubs) == 0 {
		return nil, fmt.Errorf("--from %q matches no folder: give the shards' output folders (their --out), e.g. 'out/shard=*'", from)
	}
	return pubs, nil
}

// read fills p from its manifest, or says why it cannot.
func (p *publication) read(date string) {
	m, sum, err := outputs.ReadManifest(p.dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		p.problem = "no publication for " + date + " (its run failed or has not finished)"
		return
	case err != nil:
		p.problem = err.Error()
		return
	}
	p.manifest, p.sha256 = m, sum
	if m.Shard == "" {
		if len(m.Shards) > 0 {
			p.problem = "it holds a merged publication, not a shard's"
		} else {
			p.problem = "its manifest names no shard (published by an older version): run it again with this one"
		}
		return
	}
	if p.shard, err = groups.ParseShard(m.Shard); err != nil {
		p.problem = "its manifest's " + err.Error()
		return
	}
	p.known = true
	if m.BusinessDate != date {
		p.problem = fmt.Sprintf("its manifest is for %q, not %s", m.BusinessDate, date)
		return
	}
	if m.Status != "ok" && m.Status != "partial" {
		p.problem = fmt.Sprintf("its run's status is %q", m.Status)
		return
	}
	name := "reconcile-" + date + ".duckdb"
	f, ok := m.File(name)
	if !ok {
		p.problem = "its manifest lists no snapshot " + name
		return
	}
	p.snapshot, p.snapFile = filepath.Join(p.dir, name), f
	if info, err := os.Lstat(p.snapshot); err != nil {
		p.problem = err.Error()
	} else if !info.Mode().IsRegular() {
		p.problem = p.snapshot + " is not a regular file"
	}
}

// plan decides which publications to merge and which shards are missing.
// Shards of different n, a shard published twice, and shards run with
// different settings, version or source are refused whatever allowPartial
// says: their union would be no run at all. A missing shard (no usable
// publication) is refused unless allowPartial; then it is listed, with
// its reason, as missing.
func plan(pubs []*publication, allowPartial bool, date string) (use []*publication, shards []outputs.ManifestShard, err error) {
	var known []*publication
	for _, p := range pubs {
		if p.known {
			known = append(known, p)
		}
	}
	if len(known) == 0 {
		return nil, nil, fmt.Errorf("no shard publication of %s to merge:%s", date, listProblems(pubs))
	}
	n := known[0].shard.Count
	for _, p := range known[1:] {
		if p.shard.Count != n {
			return nil, nil, fmt.Errorf("the shards of %s were split differently (%s): merge the shards of one n only", date, shardList(known))
		}
	}
	byIndex := map[int]*publication{}
	for _, p := range known {
		if q, dup := byIndex[p.shard.Index]; dup {
			return nil, nil, fmt.Errorf("shard %s of %s is published twice, in %s and %s: keep one", p.shard, date, q.root, p.root)
		}
		byIndex[p.shard.Index] = p
	}
	for _, p := range known {
		if p.usable() {
			use = append(use, p)
		}
	}
	if err := agree(use); err != nil {
		return nil, nil, fmt.Errorf("the shards of %s cannot be merged: %w", date, err)
	}
	verifySnapshots(use)
	use = slices.DeleteFunc(use, func(p *publication) bool { return !p.usable() })
	var missing []string
	for i := range n {
		p := byIndex[i]
		if p != nil && p.usable() {
			shards = append(shards, outputs.ManifestShard{
				Shard: p.shard.String(), Status: p.manifest.Status, Folder: p.dir, Members: p.manifest.Members,
				FinishedAt: p.manifest.FinishedAt, PreviousRun: p.manifest.PreviousRun,
				Version: p.manifest.Versions["reconcile"], ManifestSHA256: p.sha256,
			})
			continue
		}
		s := groups.Shard{Index: i, Count: n}
		reason := "no publication for " + date + " among the folders matched (its run failed, has not finished, or its folder is elsewhere)"
		if p != nil {
			reason = p.problem
		}
		shards = append(shards, outputs.ManifestShard{Shard: s.String(), Status: StatusMissing, Reason: reason})
		missing = append(missing, s.String()+": "+reason)
	}
	if len(use) == 0 {
		return nil, nil, fmt.Errorf("no shard publication of %s to merge:%s", date, listProblems(pubs))
	}
	if len(missing) > 0 && !allowPartial {
		return nil, nil, fmt.Errorf("shards missing for %s, so nothing was published:\n  %s%s\ngive --allow-partial to publish the other shards, marked partial, with the missing shards' members as failed",
			date, strings.Join(missing, "\n  "), listProblems(unknown(pubs)))
	}
	return use, shards, nil
}

// StatusMissing is a shard's status in a merged publication's manifest
// when the merge was allowed to leave it out (--allow-partial).
const StatusMissing = "missing"

// agree checks that the shards were run alike: the same source, version
// and settings (outputs.Manifest.Settings: lookback, the rate table's
// hash, ...). It names each setting that differs and which shards had
// which value.
func agree(pubs []*publication) error {
	if len(pubs) == 0 {
		return nil
	}
	values := func(p *publication) map[string]string {
		v := map[string]string{"source": p.manifest.Source, "version": p.manifest.Versions["reconcile"],
			"run ID": p.manifest.RunID}
		for k, s := range p.manifest.Settings {
			v["--"+k] = s
		}
		return v
	}
	keys := map[string]bool{}
	all := make([]map[string]string, len(pubs))
	for i, p := range pubs {
		all[i] = values(p)
		for k := range all[i] {
			keys[k] = true
		}
	}
	var differ []string
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		by := map[string][]string{}
		for i, p := range pubs {
			v, ok := all[i][k]
			if !ok {
				v = "(not recorded)"
			}
			by[v] = append(by[v], p.shard.String())
		}
		if len(by) == 1 {
			continue
		}
		var parts []string
		for _, v := range slices.Sorted(maps.Keys(by)) {
			parts = append(parts, fmt.Sprintf("%q in %s", v, strings.Join(by[v], ", ")))
		}
		differ = append(differ, k+": "+strings.Join(parts, "; "))
	}
	if len(differ) > 0 {
		return fmt.Errorf("they were run with different settings (run every shard of a date with the same config and version):\n  %s",
			strings.Join(differ, "\n  "))
	}
	return nil
}

// verifySnapshots hashes each snapshot and compares it with its manifest:
// a copy cut short (a sync to shared storage still under way) or replaced
// makes that shard unusable, as if it were missing.
func verifySnapshots(pubs []*publication) {
	for _, p := range pubs {
		info, err := os.Stat(p.snapshot)
		if err == nil {
			err = outputs.CheckFile(p.snapshot, p.snapFile)
		}
		if err != nil {
			p.problem = "its snapshot does not match its manifest: " + err.Error()
			continue
		}
		p.snapStat = info
	}
}

// unchanged fails when a snapshot was replaced after it was hashed (the
// shard was published again while the merge read it).
func (p *publication) unchanged() error {
	info, err := os.Stat(p.snapshot)
	if err != nil || !os.SameFile(info, p.snapStat) || info.Size() != p.snapStat.Size() || !info.ModTime().Equal(p.snapStat.ModTime()) {
		return fmt.Errorf("shard %s was published again while the merge read it (%s): merge again", p.shard, p.snapshot)
	}
	return nil
}

// outsideShards refuses an output folder that is, or is inside, a folder
// --from matched: the merge never writes into a shard's folder.
func outsideShards(out string, pubs []*publication) error {
	o, err := realPath(out)
	if err != nil {
		return fmt.Errorf("--out %s: %w", out, err)
	}
	for _, p := range pubs {
		r, err := realPath(p.root)
		if err != nil {
			return fmt.Errorf("%s: %w", p.root, err)
		}
		if rel, err := filepath.Rel(r, o); err == nil && (rel == "." || !strings.HasPrefix(rel, "..")) {
			return fmt.Errorf("--out %s is inside %s, a folder --from matched: the merge never writes into a shard's folder; give another --out", out, p.root)
		}
	}
	return nil
}

// realPath is path made absolute with its symbolic links resolved, as far
// as it exists (an output folder may not yet).
func realPath(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	var rest []string
	for p := abs; ; p = filepath.Dir(p) {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(append([]string{r}, rest...)...), nil
		}
		if filepath.Dir(p) == p {
			return abs, nil
		}
		rest = append([]string{filepath.Base(p)}, rest...)
	}
}

func unknown(pubs []*publication) []*publication {
	var out []*publication
	for _, p := range pubs {
		if !p.known {
			out = append(out, p)
		}
	}
	return out
}

// listProblems lists the folders that cannot be merged and why, one per
// line (each after a newline), or nothing.
func listProblems(pubs []*publication) string {
	var b strings.Builder
	for _, p := range pubs {
		if p.problem != "" {
			fmt.Fprintf(&b, "\n  %s: %s", p, p.problem)
		}
	}
	return b.String()
}

func shardList(pubs []*publication) string {
	var s []string
	for _, p := range pubs {
		s = append(s, p.shard.String()+" in "+p.root)
	}
	return strings.Join(s, ", ")
}
