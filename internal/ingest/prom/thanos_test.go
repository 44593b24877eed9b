package prom

import (
	"encoding/json"
	"fmt"
	"net/http"
	neturl "net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/ingest/prom/promtest"
)

// hostFilter passes on the samples of the hosts it keeps: one shard's half
// of fleetHistory.
type hostFilter struct {
	h     history
	hosts []string
}

func (f hostFilter) Family(name string) { f.h.Family(name) }

func (f hostFilter) Sample(labels []string, at time.Time, v string) {
	for i := 0; i+1 < len(labels); i += 2 {
		if labels[i] == "Hostname" && slices.Contains(f.hosts, labels[i+1]) {
			f.h.Sample(labels, at, v)
			return
		}
	}
}

// gapFilter drops the samples in [from, to): a replica that was down.
type gapFilter struct {
	h        history
	from, to time.Time
}

func (f gapFilter) Family(name string) { f.h.Family(name) }

func (f gapFilter) Sample(labels []string, at time.Time, v string) {
	if at.Before(f.from) || !at.Before(f.to) {
		f.h.Sample(labels, at, v)
	}
}

// TestFetchDaysThanos: a fleet read through a Thanos querier, over Thanos
// sidecars beside real Prometheus servers, is read exactly as from one
// Prometheus holding all of it: the same days, samples and values, each
// GPU-minute once. Three layouts:
//   - sharded: two servers each hold half the hosts (external label shard);
//   - replicated: two servers hold the same fleet (external label replica,
//     0 and 1) and the querier deduplicates on replica (its default
//     algorithm, penalty): one series a GPU, not two;
//   - a replica restarted: replica 1 lacks two hours of day 1, and the
//     querier merges the replicas sample by sample (--deduplication.func=
//     chain), so replica 0 fills the gap. (The default penalty algorithm
//     drops samples where it switches replica; at a sample a minute, as
//     here, those minutes read as unmonitored: docs/SCALE.md.)
//
// Eight GPUs, two a host, so each shard has four; fleetHistory's values are
// checked by hand in checkFleet, for the single server and the querier.
func TestFetchDaysThanos(t *testing.T) {
	promtest.ThanosBinary(t)
	const gpus, days = 8, 3
	var whole promtest.OpenMetrics
	fleetHistory(&whole, gpus, days)
	single := fetchFleet(t, promtest.Start(t, whole.Bytes()).URL, days, 2)
	checkFleet(t, single, gpus, days)

	for _, tc := range []struct {
		name    string
		servers func(t *testing.T) []*promtest.Server
		flags   []string // the querier's
	}{
		{"sharded", func(t *testing.T) []*promtest.Server {
			var a, b promtest.OpenMetrics
			fleetHistory(hostFilter{&a, []string{"node-0", "node-1"}}, gpus, days)
			fleetHistory(hostFilter{&b, []string{"node-2", "node-3"}}, gpus, days)
			return []*promtest.Server{promtest.StartLabeled(t, a.Bytes(), "shard", "a"),
				promtest.StartLabeled(t, b.Bytes(), "shard", "b")}
		}, nil},
		{"replicated", func(t *testing.T) []*promtest.Server {
			return []*promtest.Server{promtest.StartLabeled(t, whole.Bytes(), "cluster", "lab", "replica", "0"),
				promtest.StartLabeled(t, whole.Bytes(), "cluster", "lab", "replica", "1")}
		}, []string{"--query.replica-label=replica"}},
		{"replica restarted", func(t *testing.T) []*promtest.Server {
			var restarted promtest.OpenMetrics
			down := day0.Add(24*time.Hour + 10*time.Hour)
			fleetHistory(gapFilter{&restarted, down, down.Add(2 * time.Hour)}, gpus, days)
			return []*promtest.Server{promtest.StartLabeled(t, whole.Bytes(), "cluster", "lab", "replica", "0"),
				promtest.StartLabeled(t, restarted.Bytes(), "cluster", "lab", "replica", "1")}
		}, []string{"--query.replica-label=replica", "--deduplication.func=chain"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := promtest.StartThanos(t, tc.servers(t), tc.flags...)
			// One series a GPU, whether the querier merged shards or
			// replicas: by hand, 8 (16 if replicas were not deduplicated).
			if n := seriesAt(t, q.URL, "DCGM_FI_DEV_GPU_UTIL", day0.Add(25*time.Hour)); n != gpus {
				t.Fatalf("the querier answers %d utilization series, want %d", n, gpus)
			}
			got := fetchFleet(t, q.URL, days, 2)
			checkFleet(t, got, gpus, days)
			sameDays(t, got, single)
		})
	}
}

// sameDays checks that two fetches kept the same samples, value for value.
func sameDays(t *testing.T, got, want []*Day) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d days, want %d", len(got), len(want))
	}
	for d := range want {
		g, w := replayed(t, got[d]), replayed(t, want[d])
		if len(g) != len(w) {
			t.Errorf("day %d: %d samples through Thanos, %d from one server", d, len(g), len(w))
			continue
		}
		for i := range w {
			if g[i] != w[i] {
				t.Errorf("day %d: through Thanos %s, from one server %s", d, g[i], w[i])
				break
			}
		}
	}
}

// replayed is a day's samples as sorted text: GPU, host, index, model, minute,
// utilization, memory used.
func replayed(t *testing.T, d *Day) []string {
	t.Helper()
	sink := &recSink{}
	if _, err := d.Replay(t.Context(), sink); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, s := range sink.samples {
		val := func(p *float64) string {
			if p == nil {
				return "-"
			}
			return fmt.Sprint(*p)
		}
		out = append(out, strings.Join([]string{s.UUID, s.Host, fmt.Sprint(s.Index), s.Model, s.Time.UTC().Format(time.RFC3339),
			val(s.Util), val(s.MemUsed)}, " "))
	}
	slices.Sort(out)
	return out
}

// seriesAt is how many series an instant query at t answers.
func seriesAt(t *testing.T, url, query string, at time.Time) int {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, url+"/api/v1/query?"+neturl.Values{
		"query": {query}, "time": {fmt.Sprint(at.Unix())}}.Encode(), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		Status string
		Data   struct{ Result []json.RawMessage }
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil || body.Status != "success" {
		t.Fatalf("instant query %s: status %q, %v", query, body.Status, err)
	}
	return len(body.Data.Result)
}
