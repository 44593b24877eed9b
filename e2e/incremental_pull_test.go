package e2e

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/cli"
	"github.com/finops-oss/finops/internal/fetch/fetchtest"
	"github.com/finops-oss/finops/internal/proxytest"
	"github.com/finops-oss/finops/internal/publish/publishtest"
	"github.com/finops-oss/finops/internal/store"
)

// pullServer is a real object store behind a counting proxy, as the
// incremental pull tests see it.
type pullServer struct {
	name   string
	source string // the source to ingest: s3://billing/pull/, …
	url    string // what the database calls the object with key "pull/" + name: source + name
	config string // the finops config reaching the store through the proxy
	put    func(t testing.TB, key string, body []byte)
	reqs   *proxytest.Requests
	// isGet tells a download of an object from the other requests
	// (listings) of the store's API.
	isGet func(r *http.Request) bool
}

// gets counts the object downloads since the last call.
func (s *pullServer) gets() int {
	n := 0
	for _, r := range s.reqs.Take() {
		if r.Method == http.MethodGet && s.isGet(r) {
			n++
		}
	}
	return n
}

// startPullServers starts versitygw, Azurite and fake-gcs-server, each with
// a bucket (container) "billing" and a proxy counting requests in front;
// a server that is not installed is skipped with its install command
// (testenv: a failure in CI).
func startPullServers(t testing.TB) []*pullServer {
	t.Helper()
	proxy := func(target string) (*proxytest.Requests, string) {
		reqs := &proxytest.Requests{}
		p := proxytest.Start(t, strings.TrimPrefix(target, "http://"), reqs.Serve)
		return reqs, p.URL()
	}
	var out []*pullServer

	s3srv := publishtest.StartS3(t, testAccessKey, testSecretKey)
	s3srv.CreateBucket(t, "billing")
	reqs, u := proxy(s3srv.URL)
	setS3Env(t)
	out = append(out, &pullServer{name: "versitygw", source: "s3://billing/pull/", url: "s3://billing/pull/",
		config: fmt.Sprintf("publish:\n  s3:\n    region: us-east-1\n    endpoint: %s\n    path_style: true\n", u),
		put:    func(t testing.TB, key string, b []byte) { s3srv.Put(t, "billing", key, b) }, reqs: reqs,
		// GET /billing/<key>; a listing is GET /billing?list-type=2…
		isGet: func(r *http.Request) bool { return strings.Count(strings.Trim(r.URL.Path, "/"), "/") >= 1 }})

	az := fetchtest.StartAzurite(t)
	az.CreateContainer(t, "billing")
	host, _, _ := strings.Cut(strings.TrimPrefix(az.Endpoint, "http://"), "/")
	reqs, u = proxy(host)
	keyFile := filepath.Join(t.TempDir(), "azure-key")
	if err := os.WriteFile(keyFile, []byte(fetchtest.AzuriteKey+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out = append(out, &pullServer{name: "azurite", source: "az://billing/pull/", url: "az://devstoreaccount1/billing/pull/",
		config: "sources:\n  azure:\n    account: " + fetchtest.AzuriteAccount + "\n    endpoint: " + u + "/" + fetchtest.AzuriteAccount +
			"\n    account_key_file: " + keyFile + "\n",
		put: func(t testing.TB, key string, b []byte) { az.Put(t, "billing", key, b) }, reqs: reqs,
		// GET /devstoreaccount1/billing/<key>; a listing is GET /devstoreaccount1/billing?comp=list…
		isGet: func(r *http.Request) bool { return strings.Count(strings.Trim(r.URL.Path, "/"), "/") >= 2 }})

	gcs := fetchtest.StartFakeGCS(t)
	gcs.CreateBucket(t, "billing")
	reqs, u = proxy(gcs.URL)
	out = append(out, &pullServer{name: "fake-gcs-server", source: "gs://billing/pull/", url: "gs://billing/pull/",
		config: "sources:\n  gcs:\n    endpoint: " + u + "\n",
		put:    func(t testing.TB, key string, b []byte) { gcs.Put(t, "billing", key, b) }, reqs: reqs,
		// GET /storage/v1/b/billing/o/<name>?alt=media (or /download/…); a listing is GET /storage/v1/b/billing/o
		isGet: func(r *http.Request) bool {
			return r.URL.Query().Get("alt") == "media" || strings.Contains(r.URL.Path, "/o/")
		}})
	return out
}

// setS3Env points the AWS credential chain at the test's keys, as
// s3SourceConfig does.
func setS3Env(t testing.TB) {
	for k, v := range map[string]string{"AWS_ACCESS_KEY_ID": testAccessKey, "AWS_SECRET_ACCESS_KEY": testSecretKey,
		"AWS_SESSION_TOKEN": "", "AWS_PROFILE": "", "AWS_CONFIG_FILE": filepath.Join(t.TempDir(), "none"),
		"AWS_SHARED_CREDENTIALS_FILE": filepath.Join(t.TempDir(), "none"), "AWS_EC2_METADATA_DISABLED": "true"} {
		t.Setenv(k, v)
	}
}

// oneSampleLog is a one-sample nvidia-smi log of GPU i at utilization util: a
// file of its own per GPU, so no two objects share bytes or samples; its
// size does not depend on util below 10.
func oneSampleLog(i, util int) []byte {
	return fmt.Appendf(nil, "timestamp, name, uuid, utilization.gpu [%%]\n2026/11/20 10:00:00.000, NVIDIA H100 80GB HBM3, GPU-00000000-0000-0000-0000-%012d, %d %%\n", i, util)
}

// runIngest runs `finops ingest` in-process (finopsStdin, for benchmarks
// too) and returns the exit code, its output and error output together, and
// how long it took.
func runIngest(tb testing.TB, config, db string, args ...string) (int, string, time.Duration) {
	tb.Helper()
	start := time.Now()
	code, out, errOut := finopsStdin(tb, nil, append([]string{"--config", config, "--db", db, "ingest"}, args...)...)
	return code, out + errOut, time.Since(start)
}

// storedHashes is the set of sha256 sums of the imported files.
func storedHashes(t *testing.T, db string) map[string]bool {
	t.Helper()
	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rows, err := st.DB().Query(`SELECT sha256 FROM source_files`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out[s] = true
	}
	return out
}

func sum(b []byte) string { h := sha256.Sum256(b); return hex.EncodeToString(h[:]) }

// TestIncrementalPull (issue #35): on versitygw, Azurite and
// fake-gcs-server, counted at a proxy in front of each, a second pull of an
// unchanged prefix downloads no object and says so in one line; an object
// whose import failed is downloaded again, every time, until it imports; a
// changed object (the same size, other bytes) is downloaded once and its
// new bytes imported; -v names each object.
func TestIncrementalPull(t *testing.T) {
	const n = 40
	for _, s := range startPullServers(t) {
		t.Run(s.name, func(t *testing.T) {
			for i := range n {
				s.put(t, fmt.Sprintf("pull/gpu-%03d.csv", i), oneSampleLog(i, 5))
			}
			bad := []byte("this is no bill and no log\n")
			s.put(t, "pull/broken.csv", bad)
			cfg := writeConfig(t, t.TempDir(), "finops.yaml", s.config)
			db := filepath.Join(t.TempDir(), "f.db")
			step := func(name string, wantCode, wantGets int, wantLine string) string {
				t.Helper()
				code, out, took := runIngest(t, cfg, db, s.source)
				t.Logf("%s: %s in %v", s.name, name, took)
				if got := s.gets(); got != wantGets {
					t.Errorf("%s: %d objects downloaded, want %d\n%s", name, got, wantGets, out)
				}
				if code != wantCode || !strings.Contains(out, s.source+": "+wantLine+"\n") {
					t.Errorf("%s: exit %d, want %d, and the line %q:\n%s", name, code, wantCode, wantLine, out)
				}
				return out
			}
			// 41 objects: 40 logs and the broken file, which fails (exit 1).
			step("first pull", cli.ExitFailed, n+1, fmt.Sprintf("%d objects, %d new, 0 changed, %d downloaded", n+1, n+1, n+1))
			// Only the file whose import failed comes again, and fails again.
			out := step("second pull", cli.ExitFailed, 1, fmt.Sprintf("%d objects, 0 new, 0 changed, 1 not imported yet, 1 downloaded", n+1))
			if strings.Contains(out, "already imported") {
				t.Errorf("second pull: a line per unchanged object:\n%s", out)
			}
			step("third pull", cli.ExitFailed, 1, fmt.Sprintf("%d objects, 0 new, 0 changed, 1 not imported yet, 1 downloaded", n+1))

			// The broken file mended, and one log rewritten with the same
			// size: each downloaded once, and the new bytes imported.
			mended, changed := oneSampleLog(900, 7), oneSampleLog(3, 9)
			if len(changed) != len(oneSampleLog(3, 5)) {
				t.Fatalf("the changed log is %d bytes, the old one %d: not the same size", len(changed), len(oneSampleLog(3, 5)))
			}
			s.put(t, "pull/broken.csv", mended)
			s.put(t, "pull/gpu-003.csv", changed)
			step("after a change", cli.ExitOK, 2, fmt.Sprintf("%d objects, 0 new, 2 changed, 2 downloaded", n+1))
			h := storedHashes(t, db)
			for _, b := range [][]byte{mended, changed, oneSampleLog(0, 5)} {
				if !h[sum(b)] {
					t.Errorf("the bytes %q are not imported", b)
				}
			}
			out = step("after the change", cli.ExitOK, 0, fmt.Sprintf("%d objects, 0 new, 0 changed, 0 downloaded", n+1))
			if lines := strings.Count(out, "\n"); lines != 1 {
				t.Errorf("unchanged pull: %d lines, want the one summary:\n%s", lines, out)
			}

			// -v: a line per object, still no download.
			code, out, _ := runIngest(t, cfg, db, "-v", s.source)
			if s.gets() != 0 || code != cli.ExitOK || !strings.Contains(out, s.url+"gpu-003.csv: unchanged since its import, not downloaded\n") {
				t.Errorf("-v: exit %d:\n%s", code, out)
			}
			if got := strings.Count(out, ": unchanged since its import, not downloaded\n"); got != n+1 {
				t.Errorf("-v: %d lines of unchanged objects, want %d", got, n+1)
			}
		})
	}
}

// BenchmarkSecondPull (issue #35): the second pull of an unchanged
// 10,000-object prefix on versitygw, Azurite and fake-gcs-server — one
// listing, no download (checked at the proxy). The first pull (setup, not
// timed) imports one log and finds the other 9,999 objects the same bytes.
func BenchmarkSecondPull(b *testing.B) {
	const n = 10000
	for _, s := range startPullServers(b) {
		// Seeded and pulled once, outside b.Run, whose function runs more
		// than once (b.N = 1 first).
		body := oneSampleLog(1, 5)
		var wg sync.WaitGroup
		keys := make(chan string)
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for k := range keys {
					s.put(b, k, body)
				}
			}()
		}
		for i := range n {
			keys <- fmt.Sprintf("pull/%02d/gpu-%05d.csv", i%100, i)
		}
		close(keys)
		wg.Wait()
		cfg := writeConfig2(b, s.config)
		db := filepath.Join(b.TempDir(), "f.db")
		code, out, took := runIngest(b, cfg, db, s.source)
		if code != cli.ExitOK {
			b.Fatalf("first pull: exit %d\n%.2000s", code, out)
		}
		b.Logf("%s: first pull of %d objects in %v", s.name, n, took)
		s.gets()
		b.Run(s.name, func(b *testing.B) {
			for range b.N {
				cpu0 := cpuTime()
				code, out, took := runIngest(b, cfg, db, s.source)
				cpu := cpuTime() - cpu0
				want := fmt.Sprintf("%s: 10,000 objects, 0 new, 0 changed, 0 downloaded\n", s.source)
				if code != cli.ExitOK || out != want {
					b.Fatalf("second pull: exit %d\n%.2000s", code, out)
				}
				b.Logf("%s: second pull of %d objects in %v (finops's own CPU %v: the rest is the server's listing)", s.name, n, took, cpu)
			}
			if g := s.gets(); g != 0 {
				b.Errorf("second pulls downloaded %d objects, want none", g)
			}
		})
	}
}

// writeConfig2 is writeConfig for a benchmark.
func writeConfig2(tb testing.TB, body string) string {
	p := filepath.Join(tb.TempDir(), "finops.yaml")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		tb.Fatal(err)
	}
	return p
}
