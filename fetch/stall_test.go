package fetch

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/finops-oss/finops/publish/publishtest"
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

// faultyAzure starts a blob service of the test's own (Azurite cannot stall
// on demand) at <url>/devstoreaccount1 whose container billing holds
// exports/bill.csv: listing (List Blobs) and download (Get Blob, ranged
// when the SDK's retry reader resumes) each with its fault.
func faultyAzure(t *testing.T, b publishtest.Body, listing publishtest.Fault) string {
	srv := publishtest.FaultServer(t, func(w http.ResponseWriter, r *http.Request, stop <-chan struct{}) {
		lm := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC).Format(http.TimeFormat)
		switch {
		case r.URL.Path == "/devstoreaccount1/billing" && r.URL.Query().Get("comp") == "list":
			list := fmt.Sprintf(`<?xml version="1.0" encoding="utf-8"?><EnumerationResults ServiceEndpoint="http://%s/devstoreaccount1/" ContainerName="billing">`+
				`<Prefix>exports/</Prefix><Blobs><Blob><Name>exports/bill.csv</Name><Properties><Last-Modified>%s</Last-Modified><Etag>0x1</Etag>`+
				`<Content-Length>%d</Content-Length><BlobType>BlockBlob</BlobType></Properties></Blob></Blobs><NextMarker/></EnumerationResults>`,
				r.Host, lm, len(b.Data))
			w.Header().Set("Content-Type", "application/xml")
			publishtest.Body{Data: []byte(list), Fault: listing, At: len(list) / 2}.Serve(w, r, stop)
		case r.URL.Path == "/devstoreaccount1/billing/exports/bill.csv" && r.Method == http.MethodGet:
			w.Header().Set("x-ms-blob-type", "BlockBlob")
			w.Header().Set("ETag", `"0x1"`)
			w.Header().Set("Last-Modified", lm)
			b.Serve(w, r, stop)
		default:
			w.Header().Set("x-ms-error-code", "BlobNotFound")
			w.WriteHeader(http.StatusNotFound)
		}
	})
	return srv.URL + "/devstoreaccount1"
}

// faultyGCS starts a JSON API of the test's own (fake-gcs-server cannot
// stall on demand) whose bucket billing holds exports/bill.csv: listing
// (objects.list) and download (alt=media, ranged when the client library
// reopens a cut body) each with its fault.
func faultyGCS(t *testing.T, b publishtest.Body, listing publishtest.Fault) string {
	srv := publishtest.FaultServer(t, func(w http.ResponseWriter, r *http.Request, stop <-chan struct{}) {
		switch {
		case r.URL.Path == "/storage/v1/b/billing/o":
			list := fmt.Sprintf(`{"kind":"storage#objects","items":[{"kind":"storage#object","name":"exports/bill.csv","bucket":"billing",`+
				`"generation":"1","size":"%d","updated":"2026-11-01T00:00:00Z"}]}`, len(b.Data))
			w.Header().Set("Content-Type", "application/json")
			publishtest.Body{Data: []byte(list), Fault: listing, At: len(list) / 2}.Serve(w, r, stop)
		case r.URL.Path == "/storage/v1/b/billing/o/exports/bill.csv" && r.URL.Query().Get("alt") == "media":
			w.Header().Set("Content-Type", "text/csv")
			w.Header().Set("X-Goog-Generation", "1")
			b.Serve(w, r, stop)
		default:
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusNotFound)
			w.Write([]byte(`{"error":{"code":404,"message":"Not Found"}}`))
		}
	})
	return srv.URL
}

// TestReadFaults: an Azure or GCS server that stops sending — before its
// answer, mid-body, mid-listing — ends the fetch within the idle limit with
// an error naming the object, how much of it came and what to check (on
// main a gs:// download hung for ever); one that closes the connection
// mid-body, on every try the client library makes, ends with an error
// naming the object, the 10 of 40 bytes read and what to do; one that is
// slow but never silent for the limit is read whole. No message shows the
// SAS token.
func TestReadFaults(t *testing.T) {
	const (
		idleLimit = 200 * time.Millisecond
		slack     = 5 * time.Second // a loaded machine's scheduling, never the limit itself
	)
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
				a, err := NewAzure(AzureConfig{Account: "devstoreaccount1", Container: "billing", Endpoint: faultyAzure(t, b, listing),
					SASToken: stallSAS, IdleTimeout: idle})
				if err != nil {
					t.Fatal(err)
				}
				return a
			},
			cut: []string{"connection closed after 10 bytes of 40 bytes", "run it again; if it repeats, check the network and any proxy between finops and http://127.0.0.1:"}},
		{name: "gcs", url: "gs://billing/exports/bill.csv", list: "gs://billing/exports/",
			make: func(t *testing.T, b body, listing publishtest.Fault, idle time.Duration) fetcher {
				g, err := NewGCS(context.Background(), GCSConfig{Bucket: "billing", Endpoint: faultyGCS(t, b, listing), IdleTimeout: idle})
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
				dir := t.TempDir()
				type result struct {
					n   int
					err error
				}
				done := make(chan result, 1)
				start := time.Now()
				go func() {
					files, _, err := f.Fetch(context.Background(), "exports/", nil, dir)
					done <- result{len(files), err}
				}()
				var res result
				select {
				case res = <-done:
				case <-time.After(tc.idle + slack):
					t.Fatalf("still fetching %v after the start; the idle limit is %v", tc.idle+slack, tc.idle)
				}
				if tc.errHas == nil {
					got, err := os.ReadFile(filepath.Join(dir, "exports", "bill.csv"))
					if res.err != nil || res.n != 1 || err != nil || !bytes.Equal(got, stallObject) {
						t.Fatalf("%d files, err %v; copy %q (%v); want the object whole", res.n, res.err, got, err)
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
				for _, s := range []string{stallSAS, stallSig, url.QueryEscape(stallSig), "STALLtestSIGNATURE"} {
					if strings.Contains(res.err.Error(), s) {
						t.Errorf("error shows the SAS token: %q", res.err)
					}
				}
				if _, err := os.Stat(filepath.Join(dir, "exports", "bill.csv")); err == nil {
					t.Errorf("a torn copy was left in the folder")
				}
			})
		}
	}
}
