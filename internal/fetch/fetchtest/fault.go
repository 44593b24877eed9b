package fetchtest

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/publish/publishtest"
)

// FaultyAzure starts a blob service of the test's own (Azurite cannot stall
// on demand) at <url>/devstoreaccount1 whose container billing holds
// exports/bill.csv: listing (List Blobs) and download (Get Blob, ranged
// when the SDK's retry reader resumes) each with its fault.
func FaultyAzure(t testing.TB, b publishtest.Body, listing publishtest.Fault) string {
	t.Helper()
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

// FaultyGCS starts a JSON API of the test's own (fake-gcs-server cannot
// stall on demand) whose bucket billing holds exports/bill.csv: listing
// (objects.list) and download (alt=media, ranged when the client library
// reopens a cut body) each with its fault.
func FaultyGCS(t testing.TB, b publishtest.Body, listing publishtest.Fault) string {
	t.Helper()
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
