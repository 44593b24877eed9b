package fetch

import (
	"bytes"
	"context"
	"net/url"
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/fetch/fetchtest"
	"github.com/finops-oss/finops/internal/publish/publishtest"
)

// stallObject is the one object the fault servers hold: 40 bytes, stalled
// or cut after its first 10 (by hand: "0123456789" four times).
var stallObject = bytes.Repeat([]byte("0123456789"), 4)

// stallSAS is a SAS token the fake blob service takes; no message may
// show it or its signature.
const (
	stallSig = "STALLtestSIGNATURE0123456789+/="
	stallSAS = "sv=2024-08-04&sr=c&sp=rl&sig=" + "STALLtestSIGNATURE0123456789%2B%2F%3D"
)

// TestReadFaults: an Azure or GCS server that stops sending — before its
// answer, mid-body, mid-listing — ends the fetch within the idle limit with
// an error naming the object, how much of it came and what to check (on
// main a gs:// download hung for ever); one that closes the connection
// mid-body, on every try the client library makes, ends with an error
// naming the object, the 10 of 40 bytes read and what to do; one that is
// slow but never silent for the limit is read whole. No message shows the
// SAS token.
func TestReadFaults(t *testing.T) {
	const idleLimit = 200 * time.Millisecond
	type body = publishtest.Body
	stores := []struct {
		name string
		url  string // the object's
		list string // the listing's
		make func(t *testing.T, b body, listing publishtest.Fault, idle time.Duration) fetcher
		cut  []string // what a cut says: the Azure SDK gives up, the GCS library reopens until the limit
	}{
		{name: "azure", url: "az://devstoreaccount1/billing/exports/bill.csv", list: "az://devstoreaccount1/billing/exports/",
			make: func(t *testing.T, b body, listing publishtest.Fault, idle time.Duration) fetcher {
				a, err := NewAzure(AzureConfig{Account: "devstoreaccount1", Container: "billing", Endpoint: fetchtest.FaultyAzure(t, b, listing),
					SASToken: stallSAS, IdleTimeout: idle})
				if err != nil {
					t.Fatal(err)
				}
				return a
			},
			cut: []string{"connection closed after 10 bytes of 40 bytes", "run it again; if it repeats, check the network and any proxy between finops and http://127.0.0.1:"}},
		{name: "gcs", url: "gs://billing/exports/bill.csv", list: "gs://billing/exports/",
			make: func(t *testing.T, b body, listing publishtest.Fault, idle time.Duration) fetcher {
				g, err := NewGCS(context.Background(), GCSConfig{Bucket: "billing", Endpoint: fetchtest.FaultyGCS(t, b, listing), IdleTimeout: idle})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { g.Close() })
				return g
			},
			cut: []string{"(read 10 bytes of 40 bytes)", "check the network and any proxy between finops and http://127.0.0.1:"}},
	}
	for _, st := range stores {
		for _, tc := range []struct {
			name    string
			body    body
			listing publishtest.Fault
			idle    time.Duration
			errHas  []string // nil: the object is read whole
		}{
			{name: "stalled mid-body", body: body{Data: stallObject, Fault: publishtest.Stall, At: 10}, idle: idleLimit,
				errHas: []string{"fetch: download " + st.url + ": no data for 200ms (read 10 bytes of 40 bytes): the server stopped sending",
					"check the network and any proxy between finops and http://127.0.0.1:", "then run it again", "raise sources.idle_timeout"}},
			{name: "no answer at all", body: body{Data: stallObject, Fault: publishtest.Silent}, idle: idleLimit,
				errHas: []string{"fetch: download " + st.url + ": no data for 200ms (read 0 bytes)", "sources.idle_timeout"}},
			{name: "cut mid-body", body: body{Data: stallObject, Fault: publishtest.Cut, At: 10}, idle: idleLimit,
				errHas: append([]string{"fetch: download " + st.url + ": "}, st.cut...)},
			{name: "stalled listing", body: body{Data: stallObject}, listing: publishtest.Stall, idle: idleLimit,
				errHas: []string{"fetch: list " + st.list + ": no data for 200ms", "sources.idle_timeout"}},
			// Eight pieces 100 ms apart: 700 ms in all, more than the
			// limit, but never 500 ms without a byte.
			{name: "slow, never silent for the limit", body: body{Data: stallObject, Fault: publishtest.Trickle, Gap: 100 * time.Millisecond},
				idle: 500 * time.Millisecond},
		} {
			t.Run(st.name+"/"+tc.name, func(t *testing.T) {
				f := st.make(t, tc.body, tc.listing, tc.idle)
				publishtest.ReadFault{Idle: tc.idle, Path: "exports/bill.csv", Want: stallObject, ErrHas: tc.errHas,
					Secrets: []string{stallSAS, stallSig, url.QueryEscape(stallSig), "STALLtestSIGNATURE"}}.CheckRead(t, func(dir string) (int, error) {
					files, _, err := f.Fetch(context.Background(), "exports/", nil, dir)
					return len(files), err
				})
			})
		}
	}
}
