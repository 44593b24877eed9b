package source

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/config"
	"github.com/finops-oss/finops/internal/fetch/fetchtest"
	"github.com/finops-oss/finops/internal/publish/publishtest"
)

// TestPlanIdleTimeout: sources.idle_timeout, from finops.yaml, is the idle
// limit of s3://, az:// and gs:// sources: a server that stalls mid-body
// ends the plan no sooner than the limit and well within a generous margin
// of it, with an error naming the object, the setting and no secret.
func TestPlanIdleTimeout(t *testing.T) {
	const idle = 300 * time.Millisecond
	obj := bytes.Repeat([]byte("0123456789"), 4) // 40 bytes, stalled after 10
	stalled := publishtest.Body{Data: obj, Fault: publishtest.Stall, At: 10}
	s3URL := publishtest.FaultyS3(t, "billing", "exports/bill.csv", stalled, publishtest.Whole)
	azURL := fetchtest.FaultyAzure(t, stalled, publishtest.Whole)
	gcsURL := fetchtest.FaultyGCS(t, stalled, publishtest.Whole)
	c, err := config.Parse("finops.yaml", []byte(`
publish:
  s3: {endpoint: "`+s3URL+`", path_style: true, region: us-east-1, access_key_env: K, secret_key_env: S}
sources:
  idle_timeout: 300ms
  azure: {account: devstoreaccount1, endpoint: "`+azURL+`", sas_token_env: SAS}
  gcs: {endpoint: "`+gcsURL+`"}
`))
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"K": "AKIDPLANSTALL", "S": "plan-stall-secret", "SAS": "sv=2024-08-04&sp=rl&sig=PLANSTALLSIGNATURE0123"}
	pl := Planner{Config: c, Getenv: func(k string) string { return env[k] }}
	for _, tc := range []struct{ source, object string }{
		{"s3://billing/exports/", "s3://billing/exports/bill.csv"},
		{"az://billing/exports/", "az://devstoreaccount1/billing/exports/bill.csv"},
		{"gs://billing/exports/", "gs://billing/exports/bill.csv"},
	} {
		t.Run(tc.source, func(t *testing.T) {
			done := make(chan error, 1)
			start := time.Now()
			go func() {
				p, err := pl.Plan(context.Background(), tc.source)
				p.Close()
				done <- err
			}()
			var err error
			select {
			case err = <-done:
			case <-time.After(idle + 5*time.Second):
				t.Fatalf("still planning %v after the start; sources.idle_timeout is %v", idle+5*time.Second, idle)
			}
			took := time.Since(start)
			if err == nil {
				t.Fatal("no error")
			}
			if took < idle {
				t.Errorf("ended after %v, before the idle limit %v: %v", took, idle, err)
			}
			for _, w := range []string{tc.object, "no data for 300ms (read 10 bytes of 40 bytes)", "sources.idle_timeout"} {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			for _, s := range env {
				if strings.Contains(err.Error(), s) {
					t.Errorf("error shows a secret: %q", err)
				}
			}
		})
	}
}
