package e2e

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/internal/analysis"
	"github.com/finops-oss/finops/internal/golden"
	"github.com/finops-oss/finops/internal/ingest"
	"github.com/finops-oss/finops/internal/testnum"
)

// TestWarehousePushdown runs docs/SCALE.md's warehouse queries (one row per
// resource, hour and kind of charge, in FOCUS columns) on DuckDB over the
// Parquet fixtures, ingests the result as a FOCUS CSV, and checks that the
// report from the sums is the report from the raw lines: GPU cost, GPU-hours
// and every GPU resource's cost, model and count, to the cent. The query run
// is SCALE.md's own, with only the substitutions listed here and in
// SCALE.md; the adapted text is kept as testdata/TestWarehousePushdown/*/
// query.sql (rewritten with -update) so a change to it shows in review.
func TestWarehousePushdown(t *testing.T) {
	root := repoRoot(t)
	doc, err := os.ReadFile(filepath.Join(root, "docs", "SCALE.md"))
	if err != nil {
		t.Fatal(err)
	}
	parquet := filepath.Join(root, "testdata", "ingest", "parquet")
	cur2 := filepath.Join(parquet, "cur2", "exports", "gpu-export", "data")
	for _, tc := range []struct {
		name, heading string
		subs          []substitution
		setup         []string // the tables the query names, over the fixture
		raw           string   // the fixture as finops ingests it itself
		from, to      string
		// By hand from the fixture's GPU lines: each resource's cost,
		// GPU-hours billed (GPUs of its type × hours).
		cost     map[string]float64
		hours    map[string]float64
		teams    map[string]string // from the user_team or user:team tag
		gpuCost  float64
		gpuHours float64
	}{
		{
			name: "athena_cur2", heading: "### Athena over CUR 2.0",
			subs: []substitution{
				{"'2026-11'", "'2026-01'", 1}, // the fixture's billing period
				// Trino's element_at(map, key) is the value or NULL;
				// DuckDB's is a list, map_extract_value the value.
				{"element_at(", "map_extract_value(", 4},
				// Trino's JSON as text; DuckDB's JSON is text already.
				{"json_format(", "to_json(", 1},
			},
			// CUR 2.0 as Data Exports lays it out, its BILLING_PERIOD=
			// folder a partition column, as Athena's table has it.
			setup: []string{"CREATE VIEW cur2 AS SELECT * FROM read_parquet(" +
				sqlLiteral(filepath.Join(cur2, "*", "*.parquet")) + ", hive_partitioning = true)"},
			raw:  filepath.Join(cur2, "BILLING_PERIOD=2026-01", "gpu-export-00001.snappy.parquet"),
			from: "2026-01-01", to: "2026-01-31",
			// c2-1: p5.48xlarge (8 H100, its type only in the product map)
			// on demand, 98.32. c2-2: g6.xlarge (1 L4), 0.752. c2-3 and
			// c2-4: g6e.12xlarge (4 L40S) covered by a Savings Plan at an
			// effective 7.90, its negation 0. c2-5: tax, no resource.
			cost:    map[string]float64{"i-0p5": 98.32, "i-0g6": 0.752, "i-0g6e12": 7.90},
			hours:   map[string]float64{"i-0p5": 8, "i-0g6": 1, "i-0g6e12": 4},
			teams:   map[string]string{"i-0p5": "ml", "i-0g6": "infer", "i-0g6e12": "unassigned"},
			gpuCost: 98.32 + 0.752 + 7.90, gpuHours: 8 + 1 + 4,
		},
		{
			name: "athena_focus", heading: "### Athena over a FOCUS export",
			subs: []substitution{
				{"'2026-11'", "'2024-09'", 1}, // the sample's billing period
				// Trino's regexp_like is a partial match, as DuckDB's
				// regexp_matches is.
				{"regexp_like(", "regexp_matches(", 1},
				{"element_at(", "map_extract_value(", 1},
				{"json_format(", "to_json(", 1},
			},
			// AWS's FOCUS export is partitioned by billing_period
			// (YYYY-MM); the sample is one file, so the view derives it.
			setup: []string{"CREATE VIEW focus AS SELECT *, strftime(BillingPeriodStart, '%Y-%m') AS billing_period FROM read_parquet(" +
				sqlLiteral(filepath.Join(parquet, "focus_decimal.parquet")) + ")"},
			raw:  filepath.Join(parquet, "focus_decimal.parquet"),
			from: "2024-09-01", to: "2024-09-30",
			// The FOCUS 1.0 sample's ten GPU instance-hours, each named only
			// in ChargeDescription ("... g5.4xlarge Instance Hour": 1 A10G;
			// g3.4xlarge: 1 M60), one hour each, at these EffectiveCosts.
			cost: map[string]float64{
				"i-006flle71l19b488a": 2, "i-0211a402bb0026l8a": 0, "i-02619lael51119a85": 1, "i-035fel2la90287a83": 1,
				"i-06fal80lf5517049b": 2, "i-0834le5b437l856a8": 2, "i-09ba12e1l5743720b": 0, "i-0al7231266lfle0f2": 2,
				"i-0b3b3095474a3772a": 1, "i-0l6bb5al993lfa983": 2,
			},
			gpuCost: 2 + 0 + 1 + 1 + 2 + 2 + 0 + 2 + 1 + 2, gpuHours: 10,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sql := adapt(t, docSQL(t, string(doc), tc.heading), tc.subs)
			golden.Check(t, "query.sql", []byte(sql))
			queryFile := filepath.Join(t.TempDir(), "query.sql")
			if err := os.WriteFile(queryFile, []byte(sql), 0o600); err != nil {
				t.Fatal(err)
			}
			summed := runDuckDB(t, queryFile, tc.setup...)
			rawRep := ingestAndReport(t, tc.raw, tc.from, tc.to)
			sumRep := ingestAndReport(t, summed, tc.from, tc.to)

			testnum.Near(t, "raw gpu_cost", rawRep.Totals.GPUCost, tc.gpuCost, 0.005)
			testnum.Near(t, "raw gpu_hours_billed", rawRep.Totals.GPUHoursBilled, tc.gpuHours, 0.005)
			for id, want := range tc.cost {
				testnum.Near(t, "raw cost of "+id, resourceOf(rawRep, id).Cost, want, 0.005)
				if h, ok := tc.hours[id]; ok {
					testnum.Near(t, "raw GPU-hours of "+id, resourceOf(rawRep, id).GPUHoursBilled, h, 0.005)
				}
				if team, ok := tc.teams[id]; ok && resourceOf(rawRep, id).Team != team {
					t.Errorf("raw team of %s: %q, want %q", id, resourceOf(rawRep, id).Team, team)
				}
			}
			if len(rawRep.ByResource) != len(tc.cost) {
				t.Errorf("raw report: %d GPU resources, want %d", len(rawRep.ByResource), len(tc.cost))
			}
			sameReport(t, rawRep, sumRep)

			// The query keeps GPU instances only: every summed row is a line
			// the ingest recognises as one, while the raw fixture also has
			// lines that are not (so the check can fail).
			rawGPU, rawOther := gpuTypeLines(t, tc.raw)
			sumGPU, sumOther := gpuTypeLines(t, summed)
			if rawOther == 0 || rawGPU == 0 {
				t.Fatalf("fixture %s: %d GPU-instance lines, %d others; the check needs both", tc.raw, rawGPU, rawOther)
			}
			if sumOther != 0 || sumGPU == 0 {
				t.Errorf("the query kept %d lines that are no GPU instance (and %d that are); want none of the first", sumOther, sumGPU)
			}
		})
	}
}

// gpuTypeLines counts the billing lines of file that the ingest recognises
// as a GPU instance (a GPU model from the catalog) and the others.
func gpuTypeLines(t *testing.T, file string) (gpuLines, others int) {
	t.Helper()
	f, err := ingest.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sink := &gpuLineSink{}
	if _, err := ingest.Parse(t.Context(), f, ingest.Options{Name: file}, sink); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return sink.gpu, sink.other
}

type gpuLineSink struct{ gpu, other int }

func (s *gpuLineSink) Billing(l *finops.BillingLine) error {
	if l.GPUModel != "" {
		s.gpu++
	} else {
		s.other++
	}
	return nil
}
func (s *gpuLineSink) Sample(*finops.GPUSample) error { return nil }
func (s *gpuLineSink) TaskRun(*finops.TaskRun) error  { return nil }

// ingestAndReport ingests file into a fresh database and returns the JSON
// summary of the report over [from, to].
func ingestAndReport(t *testing.T, file, from, to string) analysis.Result {
	t.Helper()
	dir := t.TempDir()
	db := filepath.Join(dir, "f.db")
	if code, out, errs := runFinops(t, "--db", db, "ingest", file); code != 0 {
		t.Fatalf("ingest %s: exit %d\n%s%s", file, code, out, errs)
	}
	out := filepath.Join(dir, "out")
	if code, stdout, errs := runFinops(t, "--db", db, "report", "--from", from, "--to", to, "--format", "json", "--out", out); code != 0 {
		t.Fatalf("report over %s: exit %d\n%s%s", file, code, stdout, errs)
	}
	return readSummary(t, filepath.Join(out, "finops-"+from+"_"+to+".json"))
}

// resourceOf is the report's row of resource id (zero when absent).
func resourceOf(r analysis.Result, id string) analysis.ResourceCost {
	for _, x := range r.ByResource {
		if x.ResourceID == id {
			return x
		}
	}
	return analysis.ResourceCost{}
}

// sameReport checks that the report from the warehouse's sums says what
// the report from the raw lines says about the GPUs, to the cent, and
// names the same team for each resource. Non-GPU
// cost is not compared: the queries keep only compute lines.
func sameReport(t *testing.T, raw, summed analysis.Result) {
	t.Helper()
	cents := func(v float64) int64 { return int64(math.Round(v * 100)) }
	for _, m := range []struct {
		name      string
		raw, summ float64
	}{
		{"gpu_cost", raw.Totals.GPUCost, summed.Totals.GPUCost},
		{"gpu_hours_billed", raw.Totals.GPUHoursBilled, summed.Totals.GPUHoursBilled},
		{"unmonitored_cost", raw.Totals.UnmonitoredCost, summed.Totals.UnmonitoredCost},
		{"unused_commitment_cost", raw.Totals.UnusedCommitmentCost, summed.Totals.UnusedCommitmentCost},
	} {
		if cents(m.raw) != cents(m.summ) {
			t.Errorf("totals.%s: %.4f from the sums, %.4f from the raw lines", m.name, m.summ, m.raw)
		}
	}
	if len(summed.ByResource) != len(raw.ByResource) {
		t.Errorf("%d GPU resources from the sums, %d from the raw lines", len(summed.ByResource), len(raw.ByResource))
	}
	for _, r := range raw.ByResource {
		s := resourceOf(summed, r.ResourceID)
		got := fmt.Sprintf("%s %d×%s %s team %s cost %.2f, %.2f GPU-hours", s.ResourceID, s.GPUCount, s.GPUModel, s.Pricing, s.Team, s.Cost, s.GPUHoursBilled)
		want := fmt.Sprintf("%s %d×%s %s team %s cost %.2f, %.2f GPU-hours", r.ResourceID, r.GPUCount, r.GPUModel, r.Pricing, r.Team, r.Cost, r.GPUHoursBilled)
		if got != want || cents(s.Cost) != cents(r.Cost) {
			t.Errorf("from the sums: %s\nfrom the raw lines: %s", got, want)
		}
	}
}
