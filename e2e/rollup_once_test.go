package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/cli"
)

// TestRollupCountsAShardOnce: `finops rollup` exits 2 (a usage error: the
// fix is in the files or flags given) for each case of issue 32, and
// writes nothing. A real shard's summary, reported by finops, is read: its
// parts add up to its totals to the cent (report.WriteJSON).
//
// eu is rollupBillEU's shard: cost ¥806.40 + ¥201.60 = ¥1,008.00.
func TestRollupCountsAShardOnce(t *testing.T) {
	root := t.TempDir()
	eudir := filepath.Join(root, "eu")
	if err := os.MkdirAll(eudir, 0o755); err != nil {
		t.Fatal(err)
	}
	rollupFiles(t, eudir, map[string]string{"finops.yaml": strings.Replace(rollupTeams, "%s", "0.2", 1), "bill.csv": rollupBillEU})
	eu := rollupReport(t, eudir, 0, "bill.csv")
	link := filepath.Join(root, "eu-link.json")
	if err := os.Symlink(eu, link); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(root, "cn.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(eu)
	if err != nil {
		t.Fatal(err)
	}
	twoCosts := filepath.Join(root, "twocosts.json")
	// The totals' "cost" given twice: encoding/json would read the second.
	rollupFiles(t, root, map[string]string{"twocosts.json": strings.Replace(string(b), `"cost": 1008,`, `"cost": 1008, "cost": 2016,`, 1)})
	if !strings.Contains(string(b), `"cost": 1008,`) {
		t.Fatalf("the eu summary has no total of 1008: %s", b)
	}
	// The same database reported again after another bill: other bytes,
	// one database and period. By hand its total is eu's ¥1,008.00 +
	// gpu-e's ¥201.60 = ¥1,209.60; summed with the first, eu would count twice.
	first := filepath.Join(root, "eu-first.json")
	if err := os.WriteFile(first, b, 0o644); err != nil {
		t.Fatal(err)
	}
	rollupFiles(t, eudir, map[string]string{"more.csv": "实例ID,实例名称,GPU型号,计费方式,开始时间,结束时间,应付金额,原价\n" +
		"gpu-e,推理机,RTX 4090 * 1,包周,2026-11-23 08:00:00,2026-11-30 08:00:00,¥201.60,¥201.60\n"})
	again := rollupReport(t, eudir, 0, "more.csv")
	if s := readSummary(t, again); cents(s.Totals.Cost) != 120960 {
		t.Fatalf("eu reported again: total %.2f, want 1209.60", s.Totals.Cost)
	}
	out := filepath.Join(root, "org")
	for _, c := range []struct {
		name string
		args []string
		want []string
	}{
		{"one file under two names", []string{"--name", "eu", "--name", "cn", eu, eu}, []string{"shards eu (" + eu + ") and cn (" + eu + ") are the same summary"}},
		{"a link", []string{"--name", "eu", "--name", "cn", eu, link}, []string{"shards eu (" + eu + ") and cn (" + link + ") are the same summary"}},
		{"one database twice", []string{"--name", "eu", "--name", "eu2", first, again},
			[]string{"shards eu (" + first + ") and eu2 (" + again + ") were both reported from database "}},
		{"a FIFO", []string{"--name", "eu", "--name", "cn", eu, fifo}, []string{"shard cn: " + fifo + " is a named pipe (FIFO), not a regular file"}},
		{"two cost keys", []string{twoCosts}, []string{`shard twocosts: key "cost" appears twice at totals.cost`}},
		{"a rate past float64", []string{"--rate", "USD/CNY=1e400", eu}, []string{`--rate "USD/CNY=1e400": the rate is not between`}},
		{"a rate of 0", []string{"--rate", "USD/CNY=0", eu}, []string{`--rate "USD/CNY=0": the rate is not a positive number`}},
		{"two rates for one pair", []string{"--rate", "USD/CNY=7.1", "--rate", "CNY/USD=0.15", eu},
			[]string{"--rate USD/CNY=7.1 and --rate CNY/USD=0.15 both give the rate between CNY and USD"}},
		// The rate is checked with the flags, before any shard is read.
		{"a bad rate, a missing shard", []string{"--rate", "USD/CNY=1e400", filepath.Join(root, "missing.json")}, []string{"USD/CNY=1e400"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			type result struct {
				code         int
				stdout, errs string
			}
			done := make(chan result, 1)
			go func() {
				code, stdout, errs := runFinops(t, append([]string{"rollup", "--out", out}, c.args...)...)
				done <- result{code, stdout, errs}
			}()
			var r result
			select {
			case r = <-done:
			case <-time.After(20 * time.Second):
				t.Fatal("finops rollup has not returned after 20 s")
			}
			if r.code != cli.ExitUsage {
				t.Fatalf("exit %d, want %d\n%s%s", r.code, cli.ExitUsage, r.stdout, r.errs)
			}
			for _, w := range c.want {
				if !strings.Contains(r.errs, w) {
					t.Errorf("stderr %q: want %q", r.errs, w)
				}
			}
		})
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("a refused rollup wrote %s", out)
	}
	// The first summary alone is read and counted once: ¥1,008.00.
	if code, stdout, errs := runFinops(t, "rollup", "--out", out, "--format", "json", first); code != 0 {
		t.Fatalf("eu alone: exit %d\n%s%s", code, stdout, errs)
	}
	if s := readSummary(t, filepath.Join(out, "finops-2026-W48.json")); cents(s.Totals.Cost) != 100800 {
		t.Errorf("eu alone: total %.2f, want 1008.00", s.Totals.Cost)
	}
}
