package runjob

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/analysis"
	"github.com/finops-oss/finops/internal/config"
	"github.com/finops-oss/finops/internal/deliver"
	"github.com/finops-oss/finops/internal/reportjob"
	"github.com/finops-oss/finops/internal/store"
)

var now = time.Date(2026, 11, 30, 3, 0, 0, 0, time.UTC)

// outcome is cmd's table for the errors these tests make: a held lock 5,
// a partial report 3, an undelivered one 4, else 1.
func outcome(err error) (int, string) {
	switch {
	case err == nil:
		return 0, store.RunOK
	case errors.Is(err, store.ErrLocked):
		return 5, ""
	case errors.As(err, new(UndeliveredError)):
		return 4, store.RunPublishFailed
	case errors.As(err, new(reportjob.PartialError)):
		return 3, store.RunPartial
	}
	return 1, ""
}

// options is a run of 2026-W48 on a real store with nothing to publish,
// its JSON result written to out.
func options(t *testing.T, out io.Writer) Options {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "finops.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	c, err := config.Parse("finops.yaml", []byte("currency: USD\n"))
	if err != nil {
		t.Fatal(err)
	}
	return Options{Store: st, Config: c, Window: analysis.Window{Label: "2026-W48"}, Textfile: filepath.Join(t.TempDir(), "finops.prom"),
		Lock: func(ctx context.Context, db, what string) (*store.RunLock, error) {
			return store.AcquireRunLock(db, what, now)
		},
		Outcome: outcome, JSON: true, Stdout: out, Getenv: func(string) string { return "" }, Now: func() time.Time { return now },
		Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
}

// TestStartBusy: a lock another run holds is store.ErrLocked, and the
// result line says busy with the table's exit code; no run is recorded.
func TestStartBusy(t *testing.T) {
	var out bytes.Buffer
	o := options(t, &out)
	held, err := store.AcquireRunLock(o.Store.Path(), "run 2026-W47", now)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Release()
	if _, err := Start(context.Background(), o); !errors.Is(err, store.ErrLocked) {
		t.Fatalf("Start: %v, want ErrLocked", err)
	}
	var res Result
	if err := json.Unmarshal(out.Bytes(), &res); err != nil || res.Status != "busy" || res.ExitCode != 5 || !strings.Contains(res.Error, "run 2026-W47") {
		t.Errorf("result %+v (%v), want busy, exit 5, naming the holder", res, err)
	}
	if runs, err := o.Store.Runs(context.Background(), ""); err != nil || len(runs) != 0 {
		t.Errorf("%d runs recorded (%v), want none", len(runs), err)
	}
}

// TestFinish: the run's end in the ledger, the result line and the
// textfile follow the outcome: delivered (exit 0, success 1), a partial
// report (exit 3), a failed report (exit 1, its stage failed, nothing
// delivered); a dry run writes no textfile.
func TestFinish(t *testing.T) {
	partial := reportjob.PartialError{Err: errors.New("a source was missing")}
	for _, tc := range []struct {
		name       string
		dryRun     bool
		repErr     error
		wantStatus string
		wantCode   int
		wantStage  string
		textfile   string // a line of the textfile; "" for none
	}{
		{"delivered", false, nil, store.RunOK, 0, store.StageOK, "finops_last_run_success 1\n"},
		{"partial", false, partial, store.RunPartial, 3, store.StagePartial, "finops_last_run_exit_code 3\n"},
		{"failed report", false, errors.New("disk full"), store.RunFailed, 1, store.StageFailed, "finops_last_run_success 0\n"},
		{"dry run", true, nil, store.RunDryRun, 0, store.StageOK, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			var out bytes.Buffer
			o := options(t, &out)
			o.Delivery = deliver.Options{DryRun: tc.dryRun}
			j, err := Start(ctx, o)
			if err != nil {
				t.Fatal(err)
			}
			j.Ingested(true)
			res := &analysis.Result{Period: analysis.Period{Label: "2026-W48"}}
			err = j.Finish(j.Publish(ctx, res, tc.repErr, t.TempDir(), []string{"json"}))
			if code, _ := outcome(err); code != tc.wantCode {
				t.Errorf("exit %d (%v), want %d", code, err, tc.wantCode)
			}
			runs, err := o.Store.Runs(ctx, "")
			if err != nil || len(runs) != 1 || runs[0].Status != tc.wantStatus || runs[0].Report != tc.wantStage || runs[0].Ingest != store.StageOK {
				t.Fatalf("runs %+v (%v), want one %s with report %s", runs, err, tc.wantStatus, tc.wantStage)
			}
			var r Result
			if err := json.Unmarshal(out.Bytes(), &r); err != nil || r.Status != tc.wantStatus || r.ExitCode != tc.wantCode || r.DryRun != tc.dryRun {
				t.Errorf("result %+v (%v)", r, err)
			}
			b, err := os.ReadFile(o.Textfile)
			switch {
			case tc.textfile == "" && !errors.Is(err, os.ErrNotExist):
				t.Errorf("a dry run wrote the textfile (%v)", err)
			case tc.textfile != "" && !strings.Contains(string(b), tc.textfile):
				t.Errorf("textfile without %q:\n%s", tc.textfile, b)
			}
		})
	}
}
