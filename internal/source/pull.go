package source

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/finops-oss/finops/internal/amount"
	"github.com/finops-oss/finops/internal/ingest"
	"github.com/finops-oss/finops/internal/objstore"
)

// remoteLister is a bucket's or container's client as an incremental pull
// uses it: an objstore.Store (storeLister), or a test's fake bucket.
type remoteLister interface {
	// Listing lists every object under prefix, with its size, ETag, MD5
	// and modification time where the service gives them.
	Listing(ctx context.Context, prefix string) ([]objstore.Listed, error)
	// SaveListed downloads the objects of objs that accept takes into dir
	// (objstore.Saver.Save).
	SaveListed(ctx context.Context, objs []objstore.Listed, prefix string, accept func(string) bool, dir string) ([]objstore.Fetched, []error, error)
}

// storeLister is an objstore client (S3, Azure Blob, GCS) as a
// remoteLister: objstore.Fetch in its two halves.
type storeLister struct{ s objstore.Store }

func (l storeLister) Listing(ctx context.Context, prefix string) ([]objstore.Listed, error) {
	return objstore.Listing(ctx, l.s, prefix)
}

func (l storeLister) SaveListed(ctx context.Context, objs []objstore.Listed, prefix string, accept func(string) bool, dir string) ([]objstore.Fetched, []error, error) {
	return objstore.SaveListed(ctx, l.s, objs, prefix, accept, dir)
}

// pull is one incremental pull of a remote source: its listing, the
// database's records of it, and each object's state.
type pull struct {
	name, kind, base, prefix string
	match                    func(string) bool
	f                        remoteLister
	secrets                  []string
	verbose                  bool

	objs   []objstore.Listed // the listed objects Save would take, in listing order
	states []state
	gone   []string // URLs recorded but no longer listed
}

// pullPlan plans a remote source incrementally: one listing, then only the
// objects that are new, changed or not imported downloaded (see seen.go).
func (pl Planner) pullPlan(ctx context.Context, name, kind, base string, f remoteLister, prefix string, match func(string) bool,
	secrets []string) (*Plan, error) {
	u := &pull{name: name, kind: kind, base: base, prefix: prefix, match: match, f: f, secrets: secrets, verbose: pl.Verbose}
	listed, err := f.Listing(ctx, prefix)
	if err != nil {
		return nil, RedactErr(err, secrets...)
	}
	for _, o := range listed {
		if objstore.Wanted(o, prefix, match) {
			u.objs = append(u.objs, o)
		}
	}
	if len(u.objs) == 0 {
		return nil, fmt.Errorf("%s: no objects match (hidden names and folder markers are left out)", name)
	}
	recs, err := pl.Seen.SeenUnder(ctx, base+prefix)
	if err != nil {
		return nil, err
	}
	byURL := make(map[string]SeenObject, len(recs))
	for _, r := range recs {
		byURL[r.URL] = r
	}
	listedURL := make(map[string]bool, len(u.objs))
	manifests := false
	u.states = make([]state, len(u.objs))
	for i, o := range u.objs {
		listedURL[base+o.Key] = true
		rec, ok := byURL[base+o.Key]
		u.states[i] = classify(rec, ok, o)
		manifests = manifests || ingest.IsManifestName(o.Key)
	}
	manifestGone := false
	for _, r := range recs {
		key := strings.TrimPrefix(r.URL, base)
		if listedURL[r.URL] || !objstore.Wanted(objstore.Listed{Key: key}, prefix, match) {
			continue
		}
		u.gone = append(u.gone, r.URL)
		manifestGone = manifestGone || ingest.IsManifestName(key)
	}
	p := &Plan{base: base, urls: map[string]string{}, seen: pl.Seen, pending: map[string]SeenObject{}, forget: u.gone}
	var take []bool
	switch chooseMode(u.states, manifests, len(u.gone), manifestGone) {
	case pullNothing:
		p.DeliveryPlan = &ingest.DeliveryPlan{}
		take = make([]bool, len(u.objs))
	case pullLoose:
		take, err = u.loose(ctx, p)
	default:
		take, err = u.deliveries(ctx, p)
	}
	if err != nil {
		p.Close()
		return nil, err
	}
	p.Notes = append(u.summary(take), p.Notes...)
	return p, nil
}

// loose downloads the objects not imported, each a file of its own (no
// manifest is listed).
func (u *pull) loose(ctx context.Context, p *Plan) ([]bool, error) {
	take := make([]bool, len(u.objs))
	var set []objstore.Listed
	for i, o := range u.objs {
		if u.states[i] != isImported {
			take[i] = true
			set = append(set, o)
		}
	}
	p.DeliveryPlan = &ingest.DeliveryPlan{}
	if len(set) == 0 {
		return take, nil
	}
	if err := p.mkTemp(u.name, u.kind); err != nil {
		return nil, err
	}
	files, refused, err := u.save(ctx, set, p.tmp)
	if err != nil {
		return nil, err
	}
	u.pending(p, files)
	_, err = p.planFetched(u.name, files, refused)
	return take, err
}

// deliveries plans the listing as a full download would, with every
// manifest downloaded and every other object stood in for by an empty
// placeholder of its size and time (the planning reads manifests only),
// then downloads the files of each planned file or delivery not imported
// whole, and removes the placeholders left: no placeholder is ever
// imported.
func (u *pull) deliveries(ctx context.Context, p *Plan) ([]bool, error) {
	if err := p.mkTemp(u.name, u.kind); err != nil {
		return nil, err
	}
	take := make([]bool, len(u.objs))
	var mans []objstore.Listed
	for i, o := range u.objs {
		if ingest.IsManifestName(o.Key) {
			take[i] = true
			mans = append(mans, o)
		}
	}
	mfiles, mrefused, err := u.save(ctx, mans, p.tmp)
	if err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(p.tmp)
	if err != nil {
		return nil, fmt.Errorf("%s: a temporary folder for the download: %w", u.name, err)
	}
	defer root.Close()
	paths, index, holders := u.placeholders(root, p.tmp, mfiles, take)
	plan := ingest.PlanDeliveriesWithin(paths, p.tmp)
	keep := u.chooseUnits(plan.Files, index, take)
	var set []objstore.Listed
	for i, o := range u.objs {
		if take[i] && !ingest.IsManifestName(o.Key) {
			set = append(set, o)
		}
	}
	// Every placeholder goes before a byte is downloaded: those of the
	// objects to download make way for them, and no other may be left
	// where an import could read it.
	for _, rel := range holders {
		if err := root.Remove(rel); err != nil {
			return nil, fmt.Errorf("%s: remove a placeholder: %w", u.name, err)
		}
	}
	files, refused, err := u.save(ctx, set, p.tmp)
	if err != nil {
		return nil, err
	}
	u.pending(p, files)
	for _, f := range mfiles {
		p.urls[f.Path] = f.URL
	}
	u.leftOut(p, plan, mfiles, index)
	u.adopt(p, plan, files, append(mrefused, refused...), keep)
	return take, nil
}

// placeholders stands in for every listed object that is not a manifest
// with an empty placeholder under root (dir) of its size and time, and
// returns the paths to plan (the manifests of mfiles and the
// placeholders, sorted), each local path's object and each placeholder's
// relative name. An object that cannot have one (a key refused by name,
// or that is another's folder) is marked in take: a full download refuses
// it when saving, and so does this pull.
func (u *pull) placeholders(root *os.Root, dir string, mfiles []objstore.Fetched, take []bool) ([]string, map[string]int, map[string]string) {
	paths := make([]string, 0, len(u.objs))
	for _, f := range mfiles {
		paths = append(paths, f.Path)
	}
	index := map[string]int{}      // a local path → its object
	holders := map[string]string{} // a placeholder's path → its relative name
	for i, o := range u.objs {
		rel, err := objstore.LocalName(o.Key)
		if err != nil {
			take[i] = true // refused by name when saved, as a full download does
			continue
		}
		path := filepath.Join(dir, rel)
		index[path] = i
		if take[i] {
			continue // a manifest
		}
		if placeholder(root, rel, o) != nil {
			take[i] = true // a key that is another's folder: refused when saved
			continue
		}
		holders[path] = rel
		paths = append(paths, path)
	}
	sort.Strings(paths)
	return paths, index, holders
}

// adopt makes plan (planned over the manifests and placeholders) p's:
// only the objects downloaded (got; never a manifest or a placeholder)
// are planned, refused are its errors, and a delivery's notes are kept
// only for the deliveries taken (keep), or all with -v.
func (u *pull) adopt(p *Plan, plan *ingest.DeliveryPlan, got []objstore.Fetched, refused []error, keep map[string]bool) {
	saved := map[string]bool{}
	for _, f := range got {
		saved[f.Path] = true
		p.urls[f.Path] = f.URL
	}
	p.DeliveryPlan = &ingest.DeliveryPlan{Errs: refused}
	for _, f := range plan.Files {
		if saved[f.Path] {
			p.Files = append(p.Files, f)
		}
	}
	p.addRenamed(plan, func(n string) bool { return keep[strings.SplitN(n, ": ", 2)[0]] || u.verbose })
}

// chooseUnits marks in take the objects of each planned file, or of each
// planned delivery, that is not imported whole: a delivery imports all its
// files together or none (importer.Run), so one changed file brings its
// whole delivery. It returns the manifests of the deliveries taken.
func (u *pull) chooseUnits(files []ingest.PlannedFile, index map[string]int, take []bool) map[string]bool {
	units := map[string][]int{}
	var order []string
	for i, f := range files {
		k := "\x00" + strconv.Itoa(i) // a file of its own
		if f.Delivery != "" {
			k = f.Manifest + "\x00" + f.Delivery
		}
		if _, ok := units[k]; !ok {
			order = append(order, k)
		}
		i, ok := index[f.Path]
		if !ok {
			continue // not an object of the listing: never planned from a placeholder
		}
		units[k] = append(units[k], i)
	}
	manifests := map[string]bool{}
	for _, k := range order {
		whole := true
		for _, i := range units[k] {
			whole = whole && u.states[i] == isImported
		}
		if whole {
			continue
		}
		for _, i := range units[k] {
			take[i] = true
		}
		if m, _, _ := strings.Cut(k, "\x00"); m != "" {
			manifests[m] = true
		}
	}
	return manifests
}

// leftOut records what the planning left out of the listing: the
// manifests (unless the planning refused one: it is tried again next
// time) and the files of older deliveries not imported before.
func (u *pull) leftOut(p *Plan, plan *ingest.DeliveryPlan, mfiles []objstore.Fetched, index map[string]int) {
	if len(plan.Errs) == 0 {
		for _, f := range mfiles {
			if i, ok := index[f.Path]; ok {
				p.leftOut = append(p.leftOut, seenOf(f.URL, u.objs[i], f.SHA256, LeftOut))
			}
		}
	}
	for _, s := range plan.Skipped {
		// A file imported before and left out now (a later delivery
		// came) keeps its import's record: should the later delivery go,
		// the import still stands.
		if i, ok := index[s]; ok && u.states[i] != isImported {
			p.leftOut = append(p.leftOut, seenOf(u.base+u.objs[i].Key, u.objs[i], "", LeftOut))
		}
	}
}

// placeholder creates rel under root: empty, o's size (sparse) and time.
func placeholder(root *os.Root, rel string, o objstore.Listed) error {
	if d := filepath.Dir(rel); d != "." {
		if err := root.MkdirAll(d, 0o700); err != nil {
			return err
		}
	}
	f, err := root.OpenFile(rel, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	err = f.Truncate(max(o.Size, 0))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && !o.LastModified.IsZero() {
		err = root.Chtimes(rel, o.LastModified, o.LastModified)
	}
	if err != nil {
		root.Remove(rel)
	}
	return err
}

// save downloads objs into dir, every error without the source's secrets.
func (u *pull) save(ctx context.Context, objs []objstore.Listed, dir string) ([]objstore.Fetched, []error, error) {
	if len(objs) == 0 {
		return nil, nil, nil
	}
	files, refused, err := u.f.SaveListed(ctx, objs, u.prefix, u.match, dir)
	if err != nil {
		return nil, nil, RedactErr(err, u.secrets...)
	}
	for i, e := range refused {
		refused[i] = RedactErr(e, u.secrets...)
	}
	return files, refused, nil
}

// pending keeps each downloaded file's record, written once its import
// succeeds (Plan.Imported).
func (u *pull) pending(p *Plan, files []objstore.Fetched) {
	byKey := make(map[string]objstore.Listed, len(u.objs))
	for _, o := range u.objs {
		byKey[o.Key] = o
	}
	for _, f := range files {
		p.pending[f.Path] = seenOf(f.URL, byKey[f.Key], f.SHA256, "")
	}
}

// summary is the pull's one line ("10,000 objects, 0 new, 0 changed, 0
// downloaded"), and with -v a line per object.
func (u *pull) summary(take []bool) []string {
	var n [isLeftOut + 1]int
	got := 0
	var lines []string
	for i, s := range u.states {
		n[s]++
		if take[i] {
			got++
		}
		if u.verbose {
			what := "not downloaded"
			if take[i] {
				what = "downloaded"
			}
			lines = append(lines, fmt.Sprintf("%s%s: %s, %s", u.base, u.objs[i].Key, stateWords[s], what))
		}
	}
	objects := "objects"
	if len(u.objs) == 1 {
		objects = "object"
	}
	line := fmt.Sprintf("%s: %s %s, %s new, %s changed", u.name, count(len(u.objs)), objects, count(n[isNew]), count(n[isChanged]))
	if n[isRetry] > 0 {
		line += fmt.Sprintf(", %s not imported yet", count(n[isRetry]))
	}
	line += fmt.Sprintf(", %s downloaded", count(got))
	if len(u.gone) > 0 {
		line += fmt.Sprintf(" (%s seen before are gone)", count(len(u.gone)))
	}
	return append([]string{line}, lines...)
}

var stateWords = [...]string{
	isNew:      "new",
	isChanged:  "changed since its last import",
	isRetry:    "seen before but not imported",
	isImported: "unchanged since its import",
	isLeftOut:  "unchanged, left out before (a manifest, or an older delivery's file)",
}

// count writes n with comma thousands separators (10,000), as amounts are
// written.
func count(n int) string { return amount.Group(float64(n), 0) }
