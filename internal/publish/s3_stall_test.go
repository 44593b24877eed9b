package publish

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/publish/publishtest"
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
	const idleLimit = 200 * time.Millisecond
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
			publishtest.ReadFault{Idle: tc.idle, Path: "exports/bill.csv", Want: obj, ErrHas: tc.errHas,
				Secrets: []string{"stall-test-secret-key", "AKIDSTALLTEST"}}.CheckRead(t, func(dir string) (int, error) {
				files, _, err := c.Fetch(context.Background(), "exports/", nil, dir)
				return len(files), err
			})
		})
	}
}
