package ingest

import (
	"os"
	"testing"

	"golang.org/x/text/encoding/simplifiedchinese"
)

// Fuzz targets of the rental-platform formats (make test-fuzz runs them).

func FuzzParseRunPod(f *testing.F) {
	seed(f, "rental/runpod_billing_pods.json")
	f.Add([]byte(`[{"amount":1,"podId":"p","time":"2026-11-02T00:00:00Z","timeBilledMs":1,"gpuCount":2,"gpuTypeId":"8x H100"}]`))
	f.Add([]byte(`[{"amount":"1e3","endpointId":"e","time":"2026-11-02 00:00:00+08:00","timeBilledMs":"5"}]`))
	f.Fuzz(func(t *testing.T, data []byte) { fuzzParse(t, data, FormatRunPod) })
}

func FuzzParseVast(f *testing.F) {
	seed(f, "rental/vast_charges.json", "rental/vast_invoices_legacy.json")
	f.Add([]byte(`{"results":[{"when":1793577600,"service":"instance_prepay","amount_cents":5}]}`))
	f.Add([]byte(`[{"type":"instance","source":"i","amount":1,"start":1.5,"end":2,"items":[{"amount":1,"items":[{"amount":0.5}]}]}]`))
	f.Fuzz(func(t *testing.T, data []byte) { fuzzParse(t, data, FormatVast) })
}

// FuzzParseRentalGBK mutates GBK bytes: the decoder and the detection of
// the encoding never panic, and what parses keeps the usual invariants.
func FuzzParseRentalGBK(f *testing.F) {
	seed(f, "rental/alibaba_billing_item_detail_gbk.csv", "rental/gbk_no_mapping.csv", "bad/not_utf8_header.csv")
	if b, err := simplifiedchinese.GB18030.NewEncoder().Bytes(readFileF(f, testdata("autodl_sample.csv"))); err == nil {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) { fuzzParse(t, data, FormatRental) })
}

func readFileF(f *testing.F, path string) []byte {
	b, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	return b
}
