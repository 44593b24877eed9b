package store

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/internal/ingest"
)

// TestHashBesideMatchesHashFirst: an import whose digest is taken beside
// its parse (FileMeta.Hash) ends with the same result, the same error and
// the same database as one whose digest was known first (FileMeta.SHA256),
// however early or late the digest arrives. Generated sequences of
// imports go into two databases side by side: files drawn from a small
// pool of contents (so that the same bytes come again, under the same name
// or another), lone or as a delivery of a billing period (which replaces
// the period's earlier delivery), some with --replace, some whose parse
// fails part-way (as a newer parser may reject bytes an older one
// imported). In the second database each digest arrives at a drawn moment:
// at once, after the parse handed over a drawn number of records (often
// past a multiple of seenCheckEvery, where the parse looks), or only once
// the parse has ended. After every step the results and every table of
// the two databases are compared. It fails when a parse stopped for bytes
// seen before leaves a row behind, when the digest's checks do not wait
// for it, or when a source keeps the placeholder digest.
func TestHashBesideMatchesHashFirst(t *testing.T) {
	var seen besideSeen
	for seed := range uint64(3) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(35, seed))
			clock := func() time.Time { return utc(2026, 12, 1, 0, 0, 0) }
			first, beside := openTest(t), openTest(t)
			first.SetClock(clock)
			beside.SetClock(clock)
			contents := besideContents(rng)
			for step := range 45 {
				group := besideGroup(rng, contents)
				filesA, _ := group.files(nil, nil)
				resA, errA := first.ImportGroup(context.Background(), filesA)
				filesB, hows := group.files(rng, &seen)
				resB, errB := beside.ImportGroup(context.Background(), filesB)
				for i, how := range hows {
					switch {
					case errB == nil && resB[i].Duplicate && *how == "imported":
						seen.add("settled after a whole parse")
					case errB == nil && resB[i].Duplicate && *how == "failed":
						seen.add("settled after a failed parse")
					}
				}
				where := fmt.Sprintf("step %d (%s)", step, group)
				if fmt.Sprint(errA) != fmt.Sprint(errB) {
					t.Fatalf("%s: error with the digest first %v, beside the parse %v", where, errA, errB)
				}
				if !reflect.DeepEqual(resA, resB) {
					t.Fatalf("%s: results differ:\nfirst  %s\nbeside %s", where, besideResults(resA), besideResults(resB))
				}
				if a, b := dumpTables(t, first), dumpTables(t, beside); !slices.Equal(a, b) {
					t.Fatalf("%s: the databases differ:\nfirst  %v\nbeside %v", where, diffLines(a, b), diffLines(b, a))
				}
			}
		})
	}
	// The generated steps went through every way a digest meets its
	// parse, each way of settling seen bytes included.
	seen.mu.Lock()
	defer seen.mu.Unlock()
	for _, k := range []string{"at once", "mid-parse", "after the parse", "stopped early", "settled after a whole parse",
		"settled after a failed parse", "imported", "failed"} {
		if seen.ways[k] == 0 {
			t.Errorf("no import went %q: %v", k, seen.ways)
		}
	}
}

// besideContent is one file's bytes: its billing lines, and whether its
// parse fails (after fail lines), as a newer parser may reject them.
type besideContent struct {
	id    int
	lines []*finops.BillingLine
	fail  int // 0: parses
}

func (c besideContent) sha() string { return shaOf(fmt.Sprint("beside-", c.id)) }

// besideContents draws the pool: small files and files of more than
// seenCheckEvery lines (where a parse looks at its digest), over two
// accounts and overlapping charges, so that later files meet earlier ones'
// charges.
func besideContents(rng *rand.Rand) []besideContent {
	var out []besideContent
	for id := range 9 {
		n := 2 + rng.IntN(30)
		if id%3 == 0 {
			n = seenCheckEvery + rng.IntN(seenCheckEvery)
		}
		account := []string{"111", "222"}[rng.IntN(2)]
		var lines []*finops.BillingLine
		for i := range n {
			day := 1 + rng.IntN(28)
			l := usageLine(i+2, fmt.Sprintf("gpu-%03d", rng.IntN(150)), utc(2026, 11, day, 0, 0, 0), utc(2026, 11, day+1, 0, 0, 0),
				fmt.Sprintf("%d.%02d", rng.IntN(50), rng.IntN(100)))
			l.Provider, l.BillingAccount = "AWS", account
			lines = append(lines, l)
		}
		c := besideContent{id: id, lines: lines}
		if rng.IntN(5) == 0 {
			c.fail = 1 + rng.IntN(n)
		}
		out = append(out, c)
	}
	return out
}

// besideFile is one file of a step: a content under a name.
type besideFile struct {
	content besideContent
	name    string
	fail    bool // this step's parse rejects the bytes
}

// besideStep is one import: a lone file or a delivery's files.
type besideStep struct {
	parts    []besideFile
	period   string
	delivery string
	replace  bool
}

func (g besideStep) String() string {
	var parts []string
	for _, f := range g.parts {
		parts = append(parts, fmt.Sprintf("%s=content %d (%d lines, fails %v)", f.name, f.content.id, len(f.content.lines), f.fail))
	}
	return fmt.Sprintf("%s period %q delivery %q replace %v", strings.Join(parts, ", "), g.period, g.delivery, g.replace)
}

// besideGroup draws a step: most lone files, some deliveries of two or
// three files, a few with --replace.
func besideGroup(rng *rand.Rand, contents []besideContent) besideStep {
	var g besideStep
	n := 1
	if rng.IntN(4) == 0 {
		g.period, g.delivery = "aws-cur:111:2026-11", fmt.Sprint("run-", rng.IntN(4))
		n = 1 + rng.IntN(3)
	}
	g.replace = g.period == "" && rng.IntN(8) == 0
	for range n {
		c := contents[rng.IntN(len(contents))]
		f := besideFile{content: c, name: []string{"a.csv", "b.csv", "c.csv", StdinURI}[rng.IntN(4)]}
		// A content that fails, fails on most steps; another, rarely.
		f.fail = c.fail > 0 && rng.IntN(4) != 0 || rng.IntN(30) == 0
		g.parts = append(g.parts, f)
	}
	return g
}

// besideSeen counts how the imports of the second database went.
type besideSeen struct {
	mu   sync.Mutex
	ways map[string]int
}

func (s *besideSeen) add(way string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ways == nil {
		s.ways = map[string]int{}
	}
	s.ways[way]++
}

// files is the step's imports: with a nil rng, each digest known first;
// else each taken beside the parse, arriving at a moment drawn from rng.
// The second result says, per file, how its parse ended (when it ran).
func (g besideStep) files(rng *rand.Rand, seen *besideSeen) ([]FileImport, []*string) {
	var out []FileImport
	var hows []*string
	for _, f := range g.parts {
		meta := FileMeta{URI: f.name, Period: g.period, Delivery: g.delivery, Replace: g.replace}
		parse, delivered, ended, how := besideParse(f, seen)
		hows = append(hows, how)
		if rng == nil {
			meta.SHA256 = f.content.sha()
			out = append(out, FileImport{meta, parse})
			continue
		}
		// When the digest arrives: at once, once the parse handed over k
		// records (k around a multiple of seenCheckEvery, or anywhere), or
		// once the parse has ended.
		var gate <-chan struct{}
		way := "at once"
		draw := rng.IntN(4)
		if g.replace {
			draw = 0 // with --replace the store waits for the digest before the parse
		}
		switch draw {
		case 1:
			k := rng.IntN(len(f.content.lines) + 2)
			if rng.IntN(2) == 0 {
				k = max(0, seenCheckEvery*(1+rng.IntN(2))+rng.IntN(5)-2)
			}
			gate, way = delivered(k), "mid-parse"
		case 2, 3:
			gate, way = ended, "after the parse"
		}
		sha := f.content.sha()
		meta.Hash = func(ctx context.Context) (string, error) {
			seen.add(way)
			if gate != nil {
				select {
				case <-gate:
				case <-ctx.Done():
					return "", ctx.Err()
				}
			}
			return sha, nil
		}
		out = append(out, FileImport{meta, parse})
	}
	return out, hows
}

// besideParse is f's ParseFunc, and what tells when it has handed over k
// records (delivered), when it has ended (ended; also when it stops
// early), and how ("imported", "failed", "stopped early"; empty until it
// ends). Each way it ends is counted in seen (when not nil).
func besideParse(f besideFile, seen *besideSeen) (ParseFunc, func(k int) <-chan struct{}, <-chan struct{}, *string) {
	how := new(string)
	note := func(way string) {
		*how = way
		if seen != nil {
			seen.add(way)
		}
	}
	var mu sync.Mutex
	count, waits := 0, map[int]chan struct{}{}
	ended := make(chan struct{})
	var endOnce sync.Once
	end := func() {
		endOnce.Do(func() {
			close(ended)
			mu.Lock()
			defer mu.Unlock()
			for k, c := range waits {
				close(c)
				delete(waits, k)
			}
		})
	}
	delivered := func(k int) <-chan struct{} {
		mu.Lock()
		defer mu.Unlock()
		c := make(chan struct{})
		if count >= k {
			close(c)
		} else {
			waits[k] = c
		}
		return c
	}
	parse := func(ctx context.Context, sink ingest.Sink) (*ingest.Summary, error) {
		defer end()
		for i, l := range f.content.lines {
			if f.fail && i+1 == max(f.content.fail, 1) {
				note("failed")
				return nil, fmt.Errorf("%s:%d: rejected by this parser", f.name, l.Line)
			}
			if err := sink.Billing(l); err != nil {
				if errors.Is(err, errSeenBytes) {
					note("stopped early")
				}
				return nil, err
			}
			mu.Lock()
			count++
			if c, ok := waits[count]; ok {
				close(c)
				delete(waits, count)
			}
			mu.Unlock()
		}
		note("imported")
		return &ingest.Summary{Format: ingest.FormatFOCUS, Kind: ingest.KindBilling, Rows: len(f.content.lines)}, nil
	}
	return parse, delivered, ended, how
}

// dumpTables is every row of every table, sorted within each table, as
// quote() writes its values; meta's database_id, drawn for each database,
// is left out.
func dumpTables(t *testing.T, s *Store) []string {
	t.Helper()
	tables := tableRows(t, s.db, `SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`)
	var out []string
	for _, name := range tables {
		name = strings.Trim(name, "[]")
		cols := tableRows(t, s.db, `SELECT name FROM pragma_table_info('`+name+`') ORDER BY cid`)
		for i, c := range cols {
			cols[i] = "quote(" + strings.Trim(c, "[]") + ")"
		}
		rows := tableRows(t, s.db, `SELECT `+strings.Join(cols, ", ")+` FROM `+name)
		slices.Sort(rows) // some tables have no rowid; every row carries its id
		for _, r := range rows {
			if name == "meta" && strings.HasPrefix(r, "['database_id' ") {
				continue // drawn when the database is created
			}
			out = append(out, name+" "+r)
		}
	}
	return out
}

// diffLines is the lines of a that b lacks (at most ten).
func diffLines(a, b []string) []string {
	in := map[string]bool{}
	for _, l := range b {
		in[l] = true
	}
	var out []string
	for _, l := range a {
		if !in[l] && len(out) < 10 {
			out = append(out, l)
		}
	}
	return out
}

// besideResults prints results for a failure message.
func besideResults(rs []*ImportResult) string {
	var parts []string
	for _, r := range rs {
		parts = append(parts, fmt.Sprintf("%+v", *r))
	}
	return strings.Join(parts, "; ")
}

// TestHashBesideStopsEveryKind: telemetry samples and task runs, not only
// billing lines, look at the digest every seenCheckEvery records: the same
// bytes imported again under another name stop their parse long before
// its end, and both imports end as with the digest known first (results
// and every table). Each file has 3 × seenCheckEvery records.
func TestHashBesideStopsEveryKind(t *testing.T) {
	n := 3 * seenCheckEvery
	var samples []*finops.GPUSample
	var runs []*finops.TaskRun
	for i := range n {
		at := coldDay.Add(time.Duration(i) * time.Minute)
		samples = append(samples, &finops.GPUSample{UUID: "GPU-A", Index: -1, Time: at, Util: new(float64(i % 100))})
		runs = append(runs, &finops.TaskRun{Line: i + 2, Task: fmt.Sprint("task-", i%7), Team: "ml", Kind: "training",
			Resource: "i-1", Start: at, End: at.Add(time.Minute)})
	}
	for _, kind := range []struct {
		name    string
		sum     *ingest.Summary
		samples []*finops.GPUSample
		runs    []*finops.TaskRun
	}{
		{"samples", &ingest.Summary{Format: "nvidia-smi", Kind: ingest.KindUtilization, Rows: n}, samples, nil},
		{"task runs", &ingest.Summary{Kind: ingest.KindTasks, Rows: n}, nil, runs},
	} {
		t.Run(kind.name, func(t *testing.T) {
			clock := func() time.Time { return utc(2026, 12, 1, 0, 0, 0) }
			first, beside := openTest(t), openTest(t)
			first.SetClock(clock)
			beside.SetClock(clock)
			sha := shaOf(kind.name)
			for _, name := range []string{"a.log", "b.log"} {
				// The parse waits for the digest before the first check
				// (the record before the seenCheckEvery-th), so that the
				// check finds it whatever the scheduler does: under a
				// loaded make test the hash's goroutine had not run by the
				// last check, and the parse went to its end.
				delivered, hashed := 0, make(chan struct{})
				counting := func(ctx context.Context, sink ingest.Sink) (*ingest.Summary, error) {
					return feed(kind.sum, nil, kind.samples, kind.runs)(ctx, countingSink{sink, func() {
						if delivered++; delivered == seenCheckEvery-1 {
							<-hashed
							time.Sleep(20 * time.Millisecond) // the hash's goroutine closes done after it returns
						}
					}})
				}
				hash := func(context.Context) (string, error) {
					defer close(hashed)
					return sha, nil
				}
				resA, errA := first.Import(context.Background(), FileMeta{URI: name, SHA256: sha}, feed(kind.sum, nil, kind.samples, kind.runs))
				resB, errB := beside.Import(context.Background(), FileMeta{URI: name, Hash: hash}, counting)
				if errA != nil || errB != nil {
					t.Fatalf("%s: errors %v, %v", name, errA, errB)
				}
				if !reflect.DeepEqual(resA, resB) {
					t.Fatalf("%s: results differ:\nfirst  %+v\nbeside %+v", name, *resA, *resB)
				}
				if a, b := dumpTables(t, first), dumpTables(t, beside); !slices.Equal(a, b) {
					t.Fatalf("%s: the databases differ:\nfirst  %v\nbeside %v", name, diffLines(a, b), diffLines(b, a))
				}
				if name == "b.log" && (!resB.Duplicate || delivered >= seenCheckEvery) {
					t.Errorf("%s: duplicate %v after %d of %d records handed over, want a duplicate stopped early", name, resB.Duplicate, delivered, n)
				}
			}
		})
	}
}
