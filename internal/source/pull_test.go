package source

import (
	"bytes"
	"context"
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/ingest"
	"github.com/finops-oss/finops/internal/objstore"
)

// fakeBucket is an object store in memory that lists as S3 does (size, an
// MD5 ETag, a modification time that moves with every write) and counts
// each object's downloads; it saves through the real objstore.Saver.
type fakeBucket struct {
	objs  map[string]fakeObject
	gets  map[string]int
	clock time.Time
}

type fakeObject struct {
	body []byte
	mod  time.Time
}

func newFakeBucket() *fakeBucket {
	return &fakeBucket{objs: map[string]fakeObject{}, gets: map[string]int{}, clock: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)}
}

// put writes an object, a second after the last write.
func (b *fakeBucket) put(key string, body []byte) {
	b.clock = b.clock.Add(time.Second)
	b.objs[key] = fakeObject{body: slices.Clone(body), mod: b.clock}
}

func (b *fakeBucket) Listing(_ context.Context, prefix string) ([]objstore.Listed, error) {
	var out []objstore.Listed
	for k, o := range b.objs {
		if strings.HasPrefix(k, prefix) {
			sum := md5.Sum(o.body)
			out = append(out, objstore.Listed{Key: k, LastModified: o.mod, Size: int64(len(o.body)), ETag: `"` + hex.EncodeToString(sum[:]) + `"`})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out, nil
}

func (b *fakeBucket) SaveListed(ctx context.Context, objs []objstore.Listed, prefix string, accept func(string) bool, dir string) ([]objstore.Fetched, []error, error) {
	s := objstore.Saver{Pkg: "test", URL: func(k string) string { return "s3://b/" + k }, Copy: func(_ context.Context, o objstore.Listed, w io.Writer) (string, error) {
		b.gets[o.Key]++
		body := b.objs[o.Key].body
		if _, err := w.Write(body); err != nil {
			return "", err
		}
		return sha(body), nil
	}}
	return s.Save(ctx, objs, prefix, accept, dir)
}

// takeGets returns the keys downloaded since the last call, sorted, one
// entry per download.
func (b *fakeBucket) takeGets() []string {
	var out []string
	for k, n := range b.gets {
		for range n {
			out = append(out, k)
		}
	}
	clear(b.gets)
	sort.Strings(out)
	return out
}

func sha(b []byte) string { h := sha256.Sum256(b); return hex.EncodeToString(h[:]) }

// memSeen is the database in memory: the seen objects, and the sha256
// sums of the imported bytes (held).
type memSeen struct {
	rows map[string]SeenObject
	held map[string]bool
}

func newMemSeen() *memSeen { return &memSeen{rows: map[string]SeenObject{}, held: map[string]bool{}} }

func (m *memSeen) SeenUnder(_ context.Context, prefix string) ([]SeenObject, error) {
	var out []SeenObject
	for u, r := range m.rows {
		if strings.HasPrefix(u, prefix) {
			r.Held = r.SHA256 != "" && m.held[r.SHA256]
			out = append(out, r)
		}
	}
	return out, nil
}

func (m *memSeen) RecordSeen(_ context.Context, objs []SeenObject, forget []string) error {
	for _, o := range objs {
		o.Held = false
		m.rows[o.URL] = o
	}
	for _, u := range forget {
		delete(m.rows, u)
	}
	return nil
}

// pullOnce plans s3://b/<prefix> incrementally and "imports" its files as
// importer.Run would: a delivery all together, a file whose bytes start
// with "bad" failing (and its delivery with it); the rest are stored.
// It returns the plan's summary line, the planned files' URLs and the error.
func pullOnce(t *testing.T, b *fakeBucket, seen *memSeen, prefix string) (string, []string, error) {
	t.Helper()
	ctx := context.Background()
	match := func(k string) bool { return strings.HasPrefix(k, prefix) }
	p, err := Planner{Seen: seen}.pullPlan(ctx, "s3://b/"+prefix, "test", "s3://b/", b, prefix, match, nil)
	if err != nil {
		return "", nil, err
	}
	defer p.Close()
	var urls []string
	units := map[string][]string{}
	for _, f := range p.Files {
		body, err := os.ReadFile(f.Path)
		if err != nil {
			t.Fatalf("planned file %s: %v", f.Path, err)
		}
		u := p.URI(f.Path)
		urls = append(urls, u)
		// Every planned file is a download of the object it names, never
		// a placeholder.
		if want := b.objs[strings.TrimPrefix(u, "s3://b/")].body; !bytes.Equal(body, want) {
			t.Fatalf("planned file %s holds %q, the object %q", u, body, want)
		}
		k := f.Manifest + "\x00" + f.Delivery
		if f.Delivery == "" {
			k = f.Path
		}
		units[k] = append(units[k], f.Path)
	}
	for _, paths := range units {
		ok := true
		for _, path := range paths {
			body, _ := os.ReadFile(path)
			ok = ok && !bytes.HasPrefix(body, []byte("bad"))
		}
		if !ok {
			continue
		}
		for _, path := range paths {
			body, _ := os.ReadFile(path)
			seen.held[sha(body)] = true
			p.Imported(path, true)
		}
	}
	if err := p.Record(ctx); err != nil {
		t.Fatal(err)
	}
	return p.Notes[0], urls, nil
}

// TestPullInvariantGenerated checks the invariant of incremental pulls
// (seen.go) over seeded random sequences of listings: objects added,
// rewritten with the same size and other bytes, with the same bytes, with
// another size, deleted, broken ones whose import fails, and imported
// bytes the database loses (a stored record no longer held). An
// independent model — for each key the version now in the bucket and the
// last version imported — says which objects each pull must download:
// exactly those whose current version was never imported. It also says the
// summary's counts: new (no record: never downloaded, or gone since),
// changed (another version downloaded before), not imported yet (this
// version downloaded, its import failed).
func TestPullInvariantGenerated(t *testing.T) {
	for seed := int64(1); seed <= 60; seed++ {
		seen := newMemSeen()
		m := &invModel{r: rand.New(rand.NewSource(seed)), b: newFakeBucket(), version: map[string]int{}, imported: map[string]int{},
			downloaded: map[string]int{}, keys: []string{"p/a.csv", "p/b.csv", "p/c/d.csv", "p/c/e.csv", "p/f.csv", "p/g.csv", "q/outside.csv"},
			seen: seen}
		for step := 0; step < 25; step++ {
			m.mutate()
			w := m.expect()
			line, _, err := pullOnce(t, m.b, seen, "p/")
			if msg := w.check(line, m.b.takeGets(), err); msg != "" {
				t.Fatalf("seed %d step %d: %s", seed, step, msg)
			}
			m.advance(w)
		}
	}
}

// invModel is TestPullInvariantGenerated's bucket and its independent
// model of it.
type invModel struct {
	r          *rand.Rand
	b          *fakeBucket
	version    map[string]int // the bucket's version of each key; absent: no object
	imported   map[string]int // the version last imported
	downloaded map[string]int // the version last downloaded, while the key was listed
	next       int
	keys       []string
	seen       *memSeen // the database: its imported bytes can be lost
}

// body is a new version's bytes of k, broken ("bad …") or not, at least
// size bytes.
func (m *invModel) body(k string, bad bool, size int) []byte {
	s := fmt.Sprintf("%s v%d ", k, m.next)
	if bad {
		s = "bad " + s
	}
	for len(s) < size {
		s += "."
	}
	return []byte(s)
}

// mutate changes up to three random objects of the bucket, and the
// model's versions with them.
func (m *invModel) mutate() {
	r, b := m.r, m.b
	for range r.Intn(4) {
		k := m.keys[r.Intn(len(m.keys))]
		m.next++
		switch op := r.Intn(10); {
		case op < 3: // add, or rewrite with other bytes of another size
			b.put(k, m.body(k, r.Intn(5) == 0, 40+r.Intn(20)))
		case op < 5 && m.version[k] > 0: // the same size, other bytes
			old := b.objs[k].body
			nb := m.body(k, bytes.HasPrefix(old, []byte("bad")) && r.Intn(2) == 0, len(old))
			nb = nb[:len(old)]
			nb[len(nb)-1] = byte('a' + m.next%26)
			b.put(k, nb)
		case op < 6 && m.version[k] > 0: // the same bytes again: a new modification time
			b.put(k, b.objs[k].body)
		case op < 8: // deleted
			delete(b.objs, k)
			delete(m.version, k)
			continue
		case op < 9 && m.version[k] > 0 && m.imported[k] == m.version[k]:
			// The database loses the imported bytes (a file removed from
			// it): its import no longer counts, and the object, listed
			// unchanged, must come again.
			delete(m.seen.held, sha(b.objs[k].body))
			delete(m.imported, k)
			continue
		default:
			continue
		}
		m.version[k] = m.next
	}
}

// invWant is what the model expects of one pull.
type invWant struct {
	keys                           []string // downloaded, sorted
	nNew, nChanged, nRetry, listed int
}

// expect is the model's expectation, from its own state only.
func (m *invModel) expect() invWant {
	var w invWant
	for k, v := range m.version {
		if !strings.HasPrefix(k, "p/") {
			continue
		}
		w.listed++
		if m.imported[k] != v {
			w.keys = append(w.keys, k)
		}
		switch d, ok := m.downloaded[k]; {
		case !ok:
			w.nNew++
		case d != v:
			w.nChanged++
		case m.imported[k] != v:
			w.nRetry++
		}
	}
	sort.Strings(w.keys)
	return w
}

// check compares a pull (its line, downloads and error) with w; "" when
// they agree.
func (w invWant) check(line string, got []string, err error) string {
	if w.listed == 0 {
		if err == nil || !strings.Contains(err.Error(), "no objects match") {
			return fmt.Sprintf("empty prefix: err %v", err)
		}
	} else if err != nil {
		return err.Error()
	}
	if !slices.Equal(got, w.keys) {
		return fmt.Sprintf("downloaded %q, want %q", got, w.keys)
	}
	if w.listed == 0 {
		return ""
	}
	wantLine := fmt.Sprintf("s3://b/p/: %d object%s, %d new, %d changed", w.listed, map[bool]string{true: "", false: "s"}[w.listed == 1], w.nNew, w.nChanged)
	if w.nRetry > 0 {
		wantLine += fmt.Sprintf(", %d not imported yet", w.nRetry)
	}
	wantLine += fmt.Sprintf(", %d downloaded", len(w.keys))
	if !strings.HasPrefix(line, wantLine) {
		return fmt.Sprintf("line %q, want %q", line, wantLine)
	}
	return ""
}

// advance moves the model on: what was downloaded, and what of it
// imported (no bytes starting "bad"); keys gone are forgotten once a pull
// has listed without them.
func (m *invModel) advance(w invWant) {
	for _, k := range w.keys {
		m.downloaded[k] = m.version[k]
		if !bytes.HasPrefix(m.b.objs[k].body, []byte("bad")) {
			m.imported[k] = m.version[k]
		}
	}
	for k := range m.downloaded {
		if _, ok := m.version[k]; !ok && w.listed > 0 {
			delete(m.downloaded, k)
		}
	}
}

// putTree copies a folder of testdata into the bucket under prefix.
func putTree(t *testing.T, b *fakeBucket, dir, prefix string) {
	t.Helper()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		body, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		b.put(prefix+filepath.ToSlash(rel), body)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestPullDeliveries: with export manifests in the prefix, manifests still
// decide deliveries. The first pull downloads the manifests and the latest
// delivery of each month, never an older delivery's files; an unchanged
// prefix downloads nothing; one rewritten file of a delivery brings the
// whole delivery (it imports all together or not at all) and the
// manifests, and a delivery whose import failed comes again until it
// imports. A new delivery of a month brings its files, not the month's
// older ones.
func TestPullDeliveries(t *testing.T) {
	b, seen := newFakeBucket(), newMemSeen()
	putTree(t, b, filepath.Join("..", "..", "testdata", "ingest", "aws", "delivery"), "x/")
	const (
		jan = "x/cur/gpu-report/20260101-20260201/"
		feb = "x/cur/gpu-report/20260201-20260301/"
	)
	manifests := []string{jan + "aaaa-1111/gpu-report-Manifest.json", jan + "bbbb-2222/gpu-report-Manifest.json",
		jan + "gpu-report-Manifest.json", feb + "gpu-report-Manifest.json"}
	janFiles := []string{jan + "bbbb-2222/gpu-report-1.csv.gz", jan + "bbbb-2222/gpu-report-2.csv.gz"}
	febFiles := []string{feb + "cccc-3333/gpu-report-1.csv.gz"}
	sorted := func(lists ...[]string) []string {
		var out []string
		for _, l := range lists {
			out = append(out, l...)
		}
		sort.Strings(out)
		return out
	}
	urls := func(keys []string) []string {
		var out []string
		for _, k := range keys {
			out = append(out, "s3://b/"+k)
		}
		sort.Strings(out)
		return out
	}
	pull := func(name string, wantGets, wantPlanned []string) {
		t.Helper()
		_, planned, err := pullOnce(t, b, seen, "x/")
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		sort.Strings(planned)
		if got := b.takeGets(); !slices.Equal(got, wantGets) {
			t.Errorf("%s: downloaded %q, want %q", name, got, wantGets)
		}
		if !slices.Equal(planned, urls(wantPlanned)) {
			t.Errorf("%s: planned %q, want %q", name, planned, urls(wantPlanned))
		}
	}
	pull("first pull", sorted(manifests, janFiles, febFiles), sorted(janFiles, febFiles))
	pull("unchanged", nil, nil)

	// One file of January's delivery broken: the delivery fails, and
	// comes again whole until it imports.
	good := b.objs[janFiles[1]].body
	b.put(janFiles[1], append([]byte("bad"), good[3:]...))
	pull("a file broken", sorted(manifests, janFiles), janFiles)
	pull("still broken", sorted(manifests, janFiles), janFiles)
	b.put(janFiles[1], good)
	pull("mended", sorted(manifests, janFiles), janFiles)
	pull("unchanged again", nil, nil)

	// February delivered again: dddd-4444, and the month's manifest
	// rewritten to name it. cccc-3333 is left out, never downloaded.
	dddd := feb + "dddd-4444/gpu-report-1.csv.gz"
	b.put(dddd, b.objs[febFiles[0]].body)
	m := strings.ReplaceAll(string(b.objs[feb+"gpu-report-Manifest.json"].body), "cccc-3333", "dddd-4444")
	b.put(feb+"dddd-4444/gpu-report-Manifest.json", []byte(m))
	b.put(feb+"gpu-report-Manifest.json", []byte(m))
	pull("a new delivery", sorted(manifests, []string{feb + "dddd-4444/gpu-report-Manifest.json", dddd}), []string{dddd})
	pull("unchanged at last", nil, nil)
}

// TestPullDeliveriesGenerated checks incremental pulls of a prefix holding
// Azure-style export runs (a manifest and its part files per run, several
// runs a month) and loose files, over seeded random sequences: new runs,
// parts rewritten (the same size or not, some broken so that their
// delivery fails), manifests and parts deleted, loose files added, changed
// and deleted. The oracle is the delivery planning of a full download
// (ingest.PlanDeliveriesWithin over a complete copy of the bucket, as
// before incremental pulls) and a model of which version of each key was
// last imported: each pull must plan exactly the planned files and
// deliveries of the full download that are not imported whole at their
// current versions, download every one of them, and download nothing else
// but manifests.
func TestPullDeliveriesGenerated(t *testing.T) {
	for seed := int64(1); seed <= 15; seed++ {
		m := &delModel{r: rand.New(rand.NewSource(seed)), b: newFakeBucket(), version: map[string]int{}, imported: map[string]int{}}
		seen := newMemSeen()
		for step := 0; step < 20; step++ {
			for range 1 + m.r.Intn(3) {
				m.mutate()
			}
			if len(m.version) == 0 {
				continue
			}
			units := oracleUnits(t, m.b)
			want, manifests := oraclePlan(m.b, units, m.imported, m.version)
			_, planned, err := pullOnce(t, m.b, seen, "x/")
			if err != nil {
				t.Fatalf("seed %d step %d: %v", seed, step, err)
			}
			if msg := checkDeliveryPull(want, manifests, planned, m.b.takeGets()); msg != "" {
				t.Fatalf("seed %d step %d: %s", seed, step, msg)
			}
			m.importUnits(units, want)
		}
	}
}

// delModel is TestPullDeliveriesGenerated's bucket and its model of which
// write of each key was last imported.
type delModel struct {
	r        *rand.Rand
	b        *fakeBucket
	version  map[string]int // the current write of each key
	imported map[string]int // the write last imported
	next     int
	runs     int
}

func (m *delModel) put(k string, body []byte) { m.next++; m.b.put(k, body); m.version[k] = m.next }
func (m *delModel) del(k string)              { delete(m.b.objs, k); delete(m.version, k) }

// part is a part file's bytes, broken ("bad …") or not, at least size
// bytes.
func (m *delModel) part(bad bool, size int) []byte {
	s := fmt.Sprintf("part %d ", m.next)
	if bad {
		s = "bad " + s
	}
	return []byte(s + strings.Repeat(".", max(size-len(s), 0)))
}

// newRun writes an export run: one or two parts and the manifest naming
// them, in January or February.
func (m *delModel) newRun() {
	r := m.r
	m.runs++
	month := 1 + r.Intn(2)
	folder := fmt.Sprintf("x/exp/2026%02d01-2026%02d28/run%02d/", month, month, m.runs)
	var blobs []string
	for i := range 1 + r.Intn(2) {
		k := fmt.Sprintf("%spart_%d.csv", folder, i)
		m.put(k, m.part(r.Intn(6) == 0, 30+r.Intn(10)))
		blobs = append(blobs, fmt.Sprintf(`{"blobName":%q,"byteCount":%d}`, k, len(m.b.objs[k].body)))
	}
	m.put(folder+"manifest.json", fmt.Appendf(nil, `{"manifestVersion":"2024-04-01","exportConfig":{"exportName":"exp",`+
		`"resourceId":"/subscriptions/s","type":"ActualCost"},"runInfo":{"runId":"run%02d","submittedTime":"2026-%02d-%02dT06:00:00Z",`+
		`"startDate":"2026-%02d-01T00:00:00"},"blobs":[%s]}`, m.runs, month, 1+m.runs%27, month, strings.Join(blobs, ",")))
}

// pick is a random key that want takes, "" when none does.
func (m *delModel) pick(want func(string) bool) string {
	var ks []string
	for k := range m.version {
		if want(k) {
			ks = append(ks, k)
		}
	}
	if len(ks) == 0 {
		return ""
	}
	sort.Strings(ks)
	return ks[m.r.Intn(len(ks))]
}

func isPart(k string) bool { return strings.Contains(k, "/part_") }

// mutate makes one random change: a new run, a part rewritten (the same
// size or not, maybe broken), a part or manifest deleted, a loose file
// written or deleted.
func (m *delModel) mutate() {
	r := m.r
	switch op := r.Intn(10); {
	case op < 3:
		m.newRun()
	case op < 5:
		if k := m.pick(isPart); k != "" {
			size := len(m.b.objs[k].body)
			if r.Intn(3) == 0 {
				size += 1 + r.Intn(3) // the manifest's byteCount no longer matches
			}
			m.put(k, m.part(r.Intn(3) == 0, size))
		}
	case op < 6:
		if k := m.pick(func(k string) bool { return isPart(k) || ingest.IsManifestName(k) }); k != "" {
			m.del(k)
		}
	case op < 8:
		k := fmt.Sprintf("x/loose/f%d.csv", r.Intn(4))
		m.put(k, m.part(r.Intn(5) == 0, 20+r.Intn(5)))
	default:
		if k := m.pick(func(k string) bool { return strings.HasPrefix(k, "x/loose/") }); k != "" {
			m.del(k)
		}
	}
}

// checkDeliveryPull compares a pull's planned URLs and downloads with the
// oracle's keys (want) and the listed manifests; "" when they agree.
func checkDeliveryPull(want []string, manifests map[string]bool, planned, got []string) string {
	sort.Strings(planned)
	var wantURLs []string
	for _, k := range want {
		wantURLs = append(wantURLs, "s3://b/"+k)
	}
	if !slices.Equal(planned, wantURLs) {
		return fmt.Sprintf("planned %q, want %q", planned, wantURLs)
	}
	for _, k := range got {
		if !slices.Contains(want, k) && !manifests[k] {
			return fmt.Sprintf("downloaded %s, neither planned nor a manifest", k)
		}
	}
	for _, k := range want {
		if !slices.Contains(got, k) {
			return fmt.Sprintf("%s planned but not downloaded", k)
		}
	}
	return ""
}

// importUnits moves the model on: a planned file or delivery without a
// broken file imports, all of it.
func (m *delModel) importUnits(units [][]string, want []string) {
	for _, u := range units {
		if !slices.Contains(want, u[0]) {
			continue
		}
		ok := true
		for _, k := range u {
			ok = ok && !bytes.HasPrefix(m.b.objs[k].body, []byte("bad"))
		}
		if !ok {
			continue
		}
		for _, k := range u {
			m.imported[k] = m.version[k]
		}
	}
}

// oracleUnits plans a full copy of the bucket under x/ as a full download
// was planned before incremental pulls, and returns the planned units —
// a file of its own, or a delivery's files — as bucket keys.
func oracleUnits(t *testing.T, b *fakeBucket) [][]string {
	t.Helper()
	dir := t.TempDir()
	var paths []string
	for k, o := range b.objs {
		p := filepath.Join(dir, filepath.FromSlash(k))
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, o.body, 0o600); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(p, o.mod, o.mod)
		paths = append(paths, p)
	}
	sort.Strings(paths)
	plan := ingest.PlanDeliveriesWithin(paths, dir)
	byUnit := map[string][]string{}
	var order []string
	for _, f := range plan.Files {
		rel, _ := filepath.Rel(dir, f.Path)
		u := f.Path
		if f.Delivery != "" {
			u = f.Manifest + "\x00" + f.Delivery
		}
		if _, ok := byUnit[u]; !ok {
			order = append(order, u)
		}
		byUnit[u] = append(byUnit[u], filepath.ToSlash(rel))
	}
	var out [][]string
	for _, u := range order {
		out = append(out, byUnit[u])
	}
	return out
}

// oraclePlan is what an incremental pull must plan: the keys of each
// oracle unit (oracleUnits) not imported whole at its current versions, sorted; and the
// listed manifests, which it may download.
func oraclePlan(b *fakeBucket, units [][]string, imported, version map[string]int) ([]string, map[string]bool) {
	var want []string
	for _, u := range units {
		whole := true
		for _, k := range u {
			whole = whole && imported[k] == version[k]
		}
		if !whole {
			want = append(want, u...)
		}
	}
	sort.Strings(want)
	manifests := map[string]bool{}
	for k := range b.objs {
		if ingest.IsManifestName(k) {
			manifests[k] = true
		}
	}
	return want, manifests
}
