package report

import (
	"context"
	"io"
	"strings"

	"github.com/finops-oss/finops/internal/analysis"
)

// outputFormat is one report format WriteAll writes, with every fact about
// it in one entry: adding a format is an entry here and its writer's file
// (TestOutputRegistryFacts refuses an entry that lacks a fact).
type outputFormat struct {
	name      string // what --format and report.formats say
	byDefault bool   // written when no format is asked for
	doc       string // where its content is documented: "README.md#outputs"
	// files are the file-name suffixes it writes for r (".xlsx"; the CSV
	// export one per table r holds: "-daily.csv").
	files func(r *analysis.Result) []string
	// write streams the file of one suffix of files.
	write func(ctx context.Context, w io.Writer, r *analysis.Result, meta Meta, suffix string) error
}

// outputFormats is the table of report formats, in the order WriteAll
// writes them; a fresh copy each call (no package state).
func outputFormats() []outputFormat {
	one := func(suffix string) func(*analysis.Result) []string {
		return func(*analysis.Result) []string { return []string{suffix} }
	}
	return []outputFormat{
		{name: "xlsx", byDefault: true, doc: "README.md#outputs", files: one(".xlsx"),
			write: func(ctx context.Context, w io.Writer, r *analysis.Result, meta Meta, _ string) error {
				return writeXLSX(ctx, w, r, meta)
			}},
		{name: "html", byDefault: true, doc: "README.md#outputs", files: one(".html"),
			write: func(_ context.Context, w io.Writer, r *analysis.Result, meta Meta, _ string) error {
				return WriteHTML(w, r, meta)
			}},
		{name: "json", byDefault: true, doc: "README.md#outputs", files: one(".json"),
			write: func(_ context.Context, w io.Writer, r *analysis.Result, meta Meta, _ string) error {
				return WriteJSON(w, r, meta)
			}},
		// csv is a set of files for BI tools, asked for by name.
		{name: "csv", doc: "README.md#outputs",
			files: func(r *analysis.Result) []string {
				var out []string
				for _, t := range csvTablesOf(r) {
					out = append(out, csvSuffix(t))
				}
				return out
			},
			write: func(_ context.Context, w io.Writer, r *analysis.Result, _ Meta, suffix string) error {
				return WriteCSV(w, r, strings.TrimSuffix(strings.TrimPrefix(suffix, "-"), ".csv"))
			}},
	}
}

// lookupOutput finds a report format by name.
func lookupOutput(name string) (outputFormat, bool) {
	for _, o := range outputFormats() {
		if o.name == name {
			return o, true
		}
	}
	return outputFormat{}, false
}

// outputNames lists the formats' names, only the default ones when
// defaults is set.
func outputNames(defaults bool) []string {
	var out []string
	for _, o := range outputFormats() {
		if !defaults || o.byDefault {
			out = append(out, o.name)
		}
	}
	return out
}
