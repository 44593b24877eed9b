package publish

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/finops-oss/finops/publish/publishtest"
)

// TestS3ReadFaults: an S3 server that stops sending — before its answer,
// mid-body, mid-listing — ends the fetch within the idle limit with an
// error naming the object, how much came and what to check; one that
// closes the connection mid-body says so with the byte counts (on main it
// said only "unexpected EOF"); one that is slow but never silent for the
// limit is read whole. The server is a fault server of the test's own
// (publishtest.FaultyS3): versitygw cannot stall on demand. The 40-byte
// object is cut or stalled after its first 10 bytes, by hand.
func TestS3ReadFaults(t *testing.T) {
	obj := bytes.Repeat([]byte("0123456789"), 4) // 40 bytes
	const (
		idleLimit = 200 * time.Millisecond
		slack     = 5 * time.Second // a loaded machine's scheduling, never the limit itself
	)
	type body = publishtest.Body
	for _, tc := range []struct {
		name    string
		body    body
		listing publishtest.Fault
		idle    time.Duration
		errHas  []string // nil: the object is read whole
	}{
		{name: "stalled mid-body", body: body{Data: obj, Fault: publishtest.Stall, At: 10}, idle: idleLimit,
			errHas: []string{"publish: download s3://billing/exports/bill.csv: no data for 200ms (read 10 bytes of 40 bytes): the server stopped sending",
				"check the network and any proxy between finops and http://127.0.0.1:", "then run it again", "sources.idle_timeout"}},
		{name: "no answer at all", body: body{Data: obj, Fault: publishtest.Silent}, idle: idleLimit,
			errHas: []string{"publish: download s3://billing/exports/bill.csv: no data for 200ms (read 0 bytes)", "sources.idle_timeout"}},
		{name: "cut mid-body", body: body{Data: obj, Fault: publishtest.Cut, At: 10}, idle: idleLimit,
			errHas: []string{"publish: download s3://billing/exports/bill.csv: connection closed after 10 bytes of 40 bytes",
				"run it again; if it repeats, check the network and any proxy between finops and http://127.0.0.1:"}},
		{name: "stalled listing", body: body{Data: obj}, listing: publishtest.Stall, idle: idleLimit,
			errHas: []string{"publish: list s3://billing/exports/: no data for 200ms", "sources.idle_timeout"}},
		// Eight pieces 100 ms apart: 700 ms in all, more than the limit,
		// but never 500 ms without a byte.
		{name: "slow, never silent for the limit", body: body{Data: obj, Fault: publishtest.Trickle, Gap: 100 * time.Millisecond},
			idle: 500 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url := publishtest.FaultyS3(t, "billing", "exports/bill.csv", tc.body, tc.listing)
			c, err := NewS3(context.Background(), S3Config{Bucket: "billing", Region: "us-east-1", Endpoint: url, PathStyle: true,
				AccessKeyID: "AKIDSTALLTEST", SecretAccessKey: "stall-test-secret-key", IdleTimeout: tc.idle, IdleSetting: "sources.idle_timeout"})
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			type result struct {
				files []Fetched
				err   error
			}
			done := make(chan result, 1)
			start := time.Now()
			go func() {
				files, _, err := c.Fetch(context.Background(), "exports/", nil, dir)
				done <- result{files, err}
			}()
			var res result
			select {
			case res = <-done:
			case <-time.After(tc.idle + slack):
				t.Fatalf("still fetching %v after the start; the idle limit is %v", tc.idle+slack, tc.idle)
			}
			if tc.errHas == nil {
				if res.err != nil || len(res.files) != 1 {
					t.Fatalf("files %v, err %v; want the object", res.files, res.err)
				}
				got, err := os.ReadFile(filepath.Join(dir, "exports", "bill.csv"))
				if err != nil || !bytes.Equal(got, obj) {
					t.Fatalf("copy %q (%v), want %q", got, err, obj)
				}
				return
			}
			if res.err == nil {
				t.Fatalf("no error after %v; want one", time.Since(start))
			}
			t.Logf("after %v: %v", time.Since(start).Round(time.Millisecond), res.err)
			for _, w := range tc.errHas {
				if !strings.Contains(res.err.Error(), w) {
					t.Errorf("error %q lacks %q", res.err, w)
				}
			}
			for _, s := range []string{"stall-test-secret-key", "AKIDSTALLTEST"} {
				if strings.Contains(res.err.Error(), s) {
					t.Errorf("error shows a secret: %q", res.err)
				}
			}
			if _, err := os.Stat(filepath.Join(dir, "exports", "bill.csv")); err == nil {
				t.Errorf("a torn copy was left in the folder")
			}
		})
	}
}
