package ingest

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// seedGz adds the decompressed start of gzipped testdata files.
func seedGz(f *testing.F, names ...string) {
	for _, n := range names {
		b, err := os.ReadFile(testdata(n))
		if err != nil {
			f.Fatal(err)
		}
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			f.Fatal(err)
		}
		if b, err = io.ReadAll(zr); err != nil {
			f.Fatal(err)
		}
		f.Add(b[:min(len(b), 4096)])
	}
}

func FuzzParseCUR(f *testing.F) {
	seed(f, "aws/test_cur.csv", "aws/2023-06-01.csv", "aws/2022-07-01-alt-columns.csv",
		"bad/cur_bad_cost.csv", "bad/cur_bad_date.csv", "bad/cur_cut_row.csv")
	seedGz(f, curDeliveryB+"gpu-report-2.csv.gz", curPeriod2)
	f.Fuzz(func(t *testing.T, data []byte) { fuzzParse(t, data, FormatCUR) })
}

func FuzzParseCUR2(f *testing.F) {
	seed(f, "bad/cur2_bad_map.csv")
	seedGz(f, cur2Data)
	f.Fuzz(func(t *testing.T, data []byte) { fuzzParse(t, data, FormatCUR2) })
}

func FuzzParseAzure(f *testing.F) {
	seed(f, "azure/EA_AmortizedCost_Small.csv", "azure/azure_version_2.csv", "azure/camel_azure_version_2.csv",
		"azure/costreport_a243c6f2-199f-4074-9a2c-40e671cf1584.csv", "azure/German.csv", "azure/YA.csv",
		"azure/MissingBrackets.csv", "azure/Enterprise.csv",
		"azure/delivery/exports/gpu-costs/20260101-20260131/202601071200/run-2222/part_0_0001.csv",
		"bad/azure_bad_date.csv", "bad/azure_bad_tags.csv")
	f.Fuzz(func(t *testing.T, data []byte) { fuzzParse(t, data, FormatAzure) })
}

func FuzzParseGCP(f *testing.F) {
	seed(f, "gcp/202011_30c31bca571d9b7f3b2c8459dd8bc34a_2020-11-08_2020-11-11.csv", "gcp/2022-08-01_5.csv",
		"gcp/gpu_billing.json", "gcp/gpu_billing_array.json", "bad/gcp_bad_credits.csv", "bad/gcp_bad_cost.json",
		"bad/gcp_truncated.json")
	f.Fuzz(func(t *testing.T, data []byte) { fuzzParse(t, data, FormatGCP) })
}

// FuzzParseLiteral: the JSON / Python-repr reader of GCP cells never panics
// and bounds its nesting.
func FuzzParseLiteral(f *testing.F) {
	for _, s := range []string{`[{'name': 'x', 'amount': -5e-06, 'full_name': None}]`, `[{"key": "team", "value": "ml"}]`, `[]`, `{'a': [1, 2.5, True]}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { _, _ = parseLiteral(s) })
}

// FuzzReadManifest: any manifest text gives a usable manifest (period,
// delivery, existing files) or an error.
func FuzzReadManifest(f *testing.F) {
	for _, n := range []string{"aws/delivery/cur/gpu-report/20260101-20260201/gpu-report-Manifest.json",
		"aws/cur2/exports/gpu-export/metadata/BILLING_PERIOD=2026-01/gpu-export-Manifest.json",
		"azure/delivery/exports/gpu-costs/20260101-20260131/202601071200/run-2222/manifest.json", "azure/koku/manifest.json"} {
		b, err := os.ReadFile(testdata(n))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		sub := filepath.Join(dir, "20260101-20260131", "run")
		if err := os.MkdirAll(sub, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(sub, "part_0_0001.csv"), []byte("a\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(sub, "x-Manifest.json")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		m, err := ReadManifest(p)
		if err == nil && (m == nil || m.Period == "" || m.Delivery == "" || len(m.Files) == 0) {
			t.Fatalf("manifest without period, delivery or files: %+v", m)
		}
		if m != nil {
			for _, file := range m.Files {
				if fi, err := os.Stat(file); err != nil || !fi.Mode().IsRegular() {
					t.Fatalf("manifest file %s: %v", file, err)
				}
			}
		}
		PlanDeliveries([]string{p})
	})
}
