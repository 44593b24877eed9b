package e2e

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/store"
)

// TestIngestSMIShapes: the nvidia-smi logs of issue #34 through the command
// and into the database (docs/INGEST.md, nvidia-smi logs with a header).
// By hand from the files: the HPC recipe's index-first log is two GPUs
// (node17/0, node17/1); the looping logger's is two (gpu-b/0, gpu-b/1) and
// 5 repeated headers; the one-GPU log is rig/0, 48 samples a minute apart
// (21:00–21:47 UTC), each 83 %: 48 minutes with a value, a mean of 83
// (the minute means are below).
func TestIngestSMIShapes(t *testing.T) {
	dir := filepath.Join(repoRoot(t), "testdata", "ingest")
	db := filepath.Join(t.TempDir(), "f.db")

	code, out, errs := runFinops(t, "--db", db, "ingest", "--tz", "UTC", filepath.Join(dir, "smi_one_gpu_no_ids.csv"))
	if code == 0 || !strings.Contains(out, "smi_one_gpu_no_ids.csv:1: the header names no index, uuid or pci.bus_id column") ||
		!strings.Contains(out, "add index or uuid") || !strings.Contains(out, "--host") || strings.Contains(out, "column 0") {
		t.Fatalf("without --host: exit %d\n%s%s", code, out, errs)
	}
	if c := counts(t, db); c["gpus"] != 0 {
		t.Fatalf("a refused file stored GPUs: %v", c)
	}

	for _, c := range []struct{ host, file, want string }{
		{"rig", "smi_one_gpu_no_ids.csv", "warning: " + filepath.Join(dir, "smi_one_gpu_no_ids.csv") + ":1: no index/uuid/pci.bus_id column: read as one GPU, rig/0"},
		{"node17", "smi_hpc_index_first.csv", "nvidia-smi, 10 rows"},
		{"gpu-b", "smi_loop_repeated_header.csv", "smi_loop_repeated_header.csv:4: 5 lines repeat the header"},
	} {
		code, out, errs := runFinops(t, "--db", db, "ingest", "--host", c.host, "--tz", "UTC", filepath.Join(dir, c.file))
		if code != 0 || !strings.Contains(out, c.want) {
			t.Fatalf("%s: exit %d, want %q in\n%s%s", c.file, code, c.want, out, errs)
		}
	}
	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	series, err := st.GPUSeries(context.Background(), time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	// GPU → minutes with a value and their mean utilization.
	type use struct {
		minutes int
		mean    float64
	}
	got := map[string]use{}
	for i := range series {
		g := &series[i]
		var sum float64
		for _, u := range g.All() {
			sum += float64(u)
		}
		got[fmt.Sprintf("%s/%d", g.Host, g.Index)] = use{g.Len(), sum / float64(g.Len())}
	}
	// By hand: rig's 48 rows fall in 48 distinct minutes, each at 83 %
	// (mean 83); node17's five samples a second apart fall in one minute
	// (14:05), GPU 0 at (87+92+100+95+76)/5 = 90 %, GPU 1 at
	// (0+12+35+48+55)/5 = 30 %; gpu-b's six calls a minute apart, GPU 0 at
	// 10…60 % (mean 35), GPU 1 at 100, 100, 100, 0, 0, 0 (mean 50).
	want := map[string]use{"rig/0": {48, 83}, "node17/0": {1, 90}, "node17/1": {1, 30}, "gpu-b/0": {6, 35}, "gpu-b/1": {6, 50}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("GPUs %v, want %v", got, want)
	}
}
