package plan

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// TestWriteFiles: each file format is rendered once, as WriteJSON and
// WriteXLSX render it, under finops-plan-<period>; the table is no file;
// without a period the scenario file's name labels the files; a failed
// write stops there.
func TestWriteFiles(t *testing.T) {
	f, err := Load("testdata/scenarios.example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	r, err := Plan(f, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]byte{}
	record := func(name string, data []byte) error { got[name] = data; return nil }
	r.Period = "2027-Q1"
	names, err := WriteFiles(r, "dir/scenarios.yaml", []string{"table", "json", "xlsx"}, record)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(names, " ") != "finops-plan-2027-Q1.json finops-plan-2027-Q1.xlsx" || len(got) != 2 {
		t.Fatalf("names %q, files %d", names, len(got))
	}
	var js bytes.Buffer
	if err := WriteJSON(&js, r); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got["finops-plan-2027-Q1.json"], js.Bytes()) {
		t.Error("the JSON file is not WriteJSON's")
	}
	if x := got["finops-plan-2027-Q1.xlsx"]; len(x) < 4 || string(x[:2]) != "PK" {
		t.Error("the xlsx file is not a zip")
	}
	r.Period = ""
	if names, _ = WriteFiles(r, "dir/q1-plans.yaml", []string{"json"}, record); len(names) != 1 || names[0] != "finops-plan-q1-plans.json" {
		t.Errorf("without a period: %q", names)
	}
	full := errors.New("disk full")
	names, err = WriteFiles(r, "s.yaml", []string{"json", "xlsx"}, func(string, []byte) error { return full })
	if !errors.Is(err, full) || len(names) != 0 {
		t.Errorf("a failed write: %q, %v", names, err)
	}
}
