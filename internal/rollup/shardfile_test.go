package rollup

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/analysis"
)

// loadWithin runs Load on its own goroutine and fails the test if it has
// not returned within d: a FIFO that blocks the open must fail the test,
// not hang it until go test's own timeout.
func loadWithin(t *testing.T, d time.Duration, paths, names []string) ([]Shard, error) {
	t.Helper()
	type result struct {
		s   []Shard
		err error
	}
	done := make(chan result, 1)
	go func() {
		s, err := Load(context.Background(), paths, names)
		done <- result{s, err}
	}()
	select {
	case r := <-done:
		return r.s, r.err
	case <-time.After(d):
		t.Fatalf("Load(%q) has not returned after %s: it blocks", paths, d)
		return nil, nil
	}
}

// TestLoadRefusesWhatIsNotARegularFile: a shard is a regular file (a link
// to one is followed) under MaxShardBytes; a FIFO returns at once with a
// refusal rather than waiting for a writer, a folder and a device are
// refused, and a file over the cap is refused from its size, unread (a
// sparse file: its 64 MiB are never written).
func TestLoadRefusesWhatIsNotARegularFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "eu.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatalf("mkfifo: %v", err)
	}
	big := filepath.Join(dir, "big.json")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	// 64 MiB + 1 byte: the cap is 64 MiB (docs/ROLLUP.md), written here
	// as a number, not as MaxShardBytes, so that the test pins the cap.
	if err := f.Truncate(64<<20 + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	atCap := filepath.Join(dir, "atcap.json")
	if err := os.WriteFile(atCap, summaryBytes(t, euShard()), 0o644); err != nil {
		t.Fatal(err)
	}
	linkToFIFO := filepath.Join(dir, "link.json")
	if err := os.Symlink(fifo, linkToFIFO); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, path string
		want       []string
	}{
		{"a FIFO", fifo, []string{"shard eu:", "is a named pipe (FIFO), not a regular file", "give the file `finops report --format json` wrote"}},
		{"a link to a FIFO", linkToFIFO, []string{"shard link:", "is a named pipe (FIFO), not a regular file"}},
		{"a folder", dir, []string{"is a folder, not a regular file"}},
		{"a device", "/dev/null", []string{"shard null:", "is a character device, not a regular file"}},
		{"over the cap", big, []string{"shard big:", "is 64.0 MiB, over the 64 MiB a shard may be", "check that it is the file"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.path == "/dev/null" {
				if _, err := os.Stat(c.path); err != nil {
					t.Fatalf("this system has no /dev/null: %v", err)
				}
			}
			_, err := loadWithin(t, 5*time.Second, []string{c.path}, nil)
			if err == nil || !IsRefusal(err) {
				t.Fatalf("err %v: want a refusal", err)
			}
			containsAll(t, "error", err.Error(), c.want...)
		})
	}
	// A summary well under the cap, and a link to it, are read.
	link := filepath.Join(dir, "eu-link.json")
	if err := os.Symlink(atCap, link); err != nil {
		t.Fatal(err)
	}
	if s, err := loadWithin(t, 5*time.Second, []string{link}, nil); err != nil || len(s) != 1 || s[0].Result.Totals.Cost != 100 {
		t.Errorf("a link to a summary: %v, %v; want it read (cost 100)", s, err)
	}
}

// TestLoadRefusesTheSameShardTwice: one summary under two --name flags, the
// same path twice, a link to it and a copy of it under another name are
// each refused, naming both shards and files: summed, it would count twice
// (13.08 → 26.16 USD in issue 32).
func TestLoadRefusesTheSameShardTwice(t *testing.T) {
	dir := t.TempDir()
	eu := writeFile(t, dir, "eu.json", summaryBytes(t, euShard()))
	cn := writeFile(t, dir, "cn.json", summaryBytes(t, cnShard()))
	link := filepath.Join(dir, "eu-link.json")
	if err := os.Symlink(eu, link); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(eu)
	if err != nil {
		t.Fatal(err)
	}
	other := t.TempDir()
	renamed := writeFile(t, other, "emea.json", b)
	for _, c := range []struct {
		name  string
		paths []string
		names []string
		want  []string
	}{
		{"two names, one file", []string{eu, cn, eu}, []string{"eu", "cn", "europe"},
			[]string{"shards eu (" + eu + ") and europe (" + eu + ") are the same summary", "a shard counts once"}},
		// Two files of one name are named by their folder (defaultNames).
		{"one path twice, no names", []string{eu, eu}, nil, []string{"shards " + filepath.Base(dir) + " (" + eu + ") and " +
			filepath.Base(dir) + " (" + eu + ") are the same summary"}},
		{"a link", []string{eu, link}, nil, []string{"shards eu (" + eu + ") and eu-link (" + link + ") are the same summary"}},
		{"a copy under another name", []string{renamed, cn, eu}, nil,
			[]string{"shards emea (" + renamed + ") and eu (" + eu + ") are the same summary"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			shards, err := Load(context.Background(), c.paths, c.names)
			if err != nil {
				t.Fatalf("load: %v", err)
			}
			res, err := Combine(context.Background(), shards, Options{Currency: "USD", Rates: []Rate{mustRate(t, "CNY/USD=0.14")}})
			if err == nil {
				t.Fatalf("combined (cost %.2f): want a refusal", res.Totals.Cost)
			}
			if !IsRefusal(err) {
				t.Fatalf("err %v: want a refusal", err)
			}
			containsAll(t, "error", err.Error(), c.want...)
		})
	}
}

func mustRate(t *testing.T, s string) Rate {
	t.Helper()
	r, err := ParseRate(s)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestCombineRefusesOneDatabaseTwice: two summaries of one database
// (source.database_id) and period are refused naming both, though their
// bytes differ (a team's slice and its fleet, or one reported again after
// an ingest); of one database and two periods, the periods are what is
// refused; of two databases, or with no source, they are combined.
func TestCombineRefusesOneDatabaseTwice(t *testing.T) {
	const idA, idB = "0123456789abcdef0123456789abcdef", "fedcba9876543210fedcba9876543210"
	withSource := func(r func() analysis.Result, id string) []byte {
		return edited(t, r(), func(d map[string]any) {
			if id != "" {
				d["source"] = map[string]any{"database_id": id}
			}
		})
	}
	cnUSD := func() analysis.Result { r := cnShard(); r.Currency = "USD"; return r }
	nextWeek := func() analysis.Result {
		r := cnUSD()
		r.Period.Start, r.Period.End, r.Period.Label = r.Period.Start.AddDate(0, 0, 7), r.Period.End.AddDate(0, 0, 7), "2026-W49"
		return r
	}
	for _, c := range []struct {
		name   string
		eu, cn []byte
		want   []string
	}{
		{"one database, one period", withSource(euShard, idA), withSource(cnUSD, idA),
			[]string{"shards eu (", ") and cn (", ") were both reported from database " + idA + " for 2026-W48", "a shard counts once"}},
		{"one database, two periods", withSource(euShard, idA), withSource(nextWeek, idA), []string{"a rollup combines one period"}},
		{"two databases", withSource(euShard, idA), withSource(cnUSD, idB), nil},
		{"no source", withSource(euShard, ""), withSource(cnUSD, ""), nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			shards, err := load(t, map[string][]byte{"eu": c.eu, "cn": c.cn}, "eu", "cn")
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range shards {
				if len(s.Dropped) != 0 {
					t.Errorf("shard %s: dropped %q: source is read, not dropped", s.Name, s.Dropped)
				}
			}
			res, err := Combine(context.Background(), shards, Options{})
			if c.want == nil {
				// By hand: eu 100.00 + cn 500.00 (in USD here) = 600.00.
				if err != nil || res.Totals.Cost != 600 {
					t.Fatalf("err %v: want the two combined, 600.00", err)
				}
				return
			}
			if err == nil || !IsRefusal(err) {
				t.Fatalf("err %v: want a refusal", err)
			}
			containsAll(t, "error", err.Error(), c.want...)
		})
	}
}
