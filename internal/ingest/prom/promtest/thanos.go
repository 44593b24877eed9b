package promtest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/proctest"
)

// ThanosVersion is the release .ci/run builds.
const ThanosVersion = "0.39.2"

// ThanosInstall is how a machine gets thanos: its go.mod has replace
// directives, so `go install` refuses it and .ci/run builds it from the
// module's source.
const ThanosInstall = "the Thanos step of .ci/run (thanos v" + ThanosVersion + " built from source into $(go env GOPATH)/bin)"

// ThanosBinary returns the path of thanos, on PATH or in $(go env
// GOPATH)/bin, failing the test in CI and skipping it elsewhere when it is
// missing.
func ThanosBinary(tb testing.TB) string {
	tb.Helper()
	return proctest.Binary(tb, "thanos", ThanosInstall)
}

// StartLabeled is Start with external labels (k, v pairs), as every
// Prometheus behind a Thanos sidecar must have: the sidecar refuses to
// start without them and adds them to each series it serves.
func StartLabeled(tb testing.TB, openMetrics []byte, externalLabels ...string) *Server {
	tb.Helper()
	in := filepath.Join(tb.TempDir(), "history.om")
	if err := os.WriteFile(in, openMetrics, 0o600); err != nil {
		tb.Fatal(err)
	}
	return startFile(tb, in, externalLabels)
}

// StartThanos starts a Thanos sidecar beside each Prometheus in proms
// (started by StartLabeled) and a Thanos querier over their StoreAPIs, and
// returns the querier once it lists every sidecar as healthy. queryFlags go
// to the querier: --query.replica-label=L deduplicates series that differ
// only in L, --deduplication.func picks how. The sidecars serve
// Prometheus' blocks, the backfilled ones too, through its remote-read API;
// nothing is uploaded. Everything is stopped at cleanup.
func StartThanos(tb testing.TB, proms []*Server, queryFlags ...string) *Server {
	tb.Helper()
	bin := ThanosBinary(tb)
	args := []string{"query", "--log.level=warn"}
	for _, p := range proms {
		grpcAddr, httpAddr := freeAddr(tb), freeAddr(tb)
		// Ready once it has read Prometheus' external labels.
		run(tb, "http://"+httpAddr, p.Dir, "/-/ready", exec.Command(bin, "sidecar", "--log.level=warn",
			"--prometheus.url="+p.URL, "--tsdb.path="+p.Dir, "--grpc-address="+grpcAddr, "--http-address="+httpAddr))
		args = append(args, "--endpoint="+grpcAddr)
	}
	args = append(args, queryFlags...)
	grpcAddr, httpAddr := freeAddr(tb), freeAddr(tb)
	args = append(args, "--grpc-address="+grpcAddr, "--http-address="+httpAddr)
	q := run(tb, "http://"+httpAddr, "", "/-/ready", exec.Command(bin, args...))
	q.GRPC = grpcAddr
	// Ready means serving, not yet connected: the querier finds its
	// endpoints on its own schedule, and a query before then reads nothing.
	if err := q.waitStores(len(proms), time.Minute); err != nil {
		tb.Fatalf("thanos query: %v\n%s", err, q.log.String())
	}
	return q
}

// waitStores waits until the querier's /api/v1/stores lists n sidecars,
// each answering its Info call.
func (s *Server) waitStores(n int, limit time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	last := ""
	for {
		healthy, seen, err := s.stores(ctx)
		if err == nil && healthy == n {
			return nil
		}
		last = fmt.Sprintf("%d of %d sidecars healthy (%s), error %v", healthy, n, seen, err)
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s after %s", last, limit)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// stores counts the healthy sidecars the querier lists.
func (s *Server) stores(ctx context.Context) (healthy int, seen string, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.URL+"/api/v1/stores", nil)
	if err != nil {
		return 0, "", err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	var body struct {
		Data map[string][]struct {
			Name      string  `json:"name"`
			LastError *string `json:"lastError"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		return 0, "", err
	}
	var names []string
	for _, st := range body.Data["sidecar"] {
		names = append(names, st.Name)
		if st.LastError == nil {
			healthy++
		}
	}
	return healthy, strings.Join(names, ", "), nil
}
