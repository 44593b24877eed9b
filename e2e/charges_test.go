package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/finops-oss/finops/internal/cli"
)

// The charge invariant end to end (store/scope.go, docs/INGEST.md §Every
// charge counted once): no import removes a charge that no retained
// delivery contains, unless the user said so. Every number is issue #32's,
// worked out by hand in the comments.

// writeFOCUS writes a FOCUS file of charges "resource@day=cost" (November
// 2026, USD, one account) to dir/name.
func writeFOCUS(t *testing.T, dir, name string, charges []string) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("ChargePeriodStart,ChargePeriodEnd,BilledCost,EffectiveCost,BillingCurrency,ChargeCategory,ServiceProviderName,BillingAccountId,ResourceId,SkuId\n")
	for _, c := range charges {
		var res string
		var day int
		var cost string
		at, rest, _ := strings.Cut(c, "=")
		res, d, _ := strings.Cut(at, "@")
		if _, err := fmt.Sscan(d, &day); err != nil {
			t.Fatalf("charge %q: %v", c, err)
		}
		cost = rest
		fmt.Fprintf(&b, "2026-11-%02dT00:00:00Z,2026-11-%02dT00:00:00Z,%s,%s,USD,Usage,AWS,111,%s,BoxUsage\n", day, day+1, cost, cost, res)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestIngestFilteredExportRefused: f1.csv holds gpu-NN on 2026-11-NN for
// NN = 01 … 20 at 10.00 USD (200.00). a1f.csv, a filtered export: f1's
// gpu-01 line, the 10 even resources' lines and gpu-21 on 11-21 (12 lines,
// 120.00). On today's main it replaced f1 ("reaches further") and the month
// fell to 120.00; now it is refused, exit 1, naming both files, the 9
// charges (90.00 USD) only in f1.csv and --replace, and the month stays
// 200.00. With --replace it goes through, and says what it deletes.
func TestIngestFilteredExportRefused(t *testing.T) {
	dir := t.TempDir()
	var f1, a1f []string
	for n := 1; n <= 20; n++ {
		c := fmt.Sprintf("gpu-%02d@%d=10.00", n, n)
		f1 = append(f1, c)
		if n == 1 || n%2 == 0 {
			a1f = append(a1f, c)
		}
	}
	a1f = append(a1f, "gpu-21@21=10.00")
	f1Path, a1fPath := writeFOCUS(t, dir, "f1.csv", f1), writeFOCUS(t, dir, "a1f.csv", a1f)
	db := filepath.Join(dir, "f.db")
	if code, out, errs := runFinops(t, "--db", db, "ingest", f1Path); code != 0 {
		t.Fatalf("f1: exit %d\n%s%s", code, out, errs)
	}
	code, out, errs := runFinops(t, "--db", db, "ingest", a1fPath)
	msg := out + errs
	if code != cli.ExitFailed {
		t.Errorf("a1f: exit %d, want %d\n%s", code, cli.ExitFailed, msg)
	}
	for _, w := range []string{a1fPath + ": its charges of AWS account 111, 2026-11", "those of " + f1Path,
		"charges only in " + f1Path + ": 9, 90.00 USD", "finops ingest --replace " + a1fPath} {
		if !strings.Contains(msg, w) {
			t.Errorf("a1f: the refusal does not say %q:\n%s", w, msg)
		}
	}
	if _, total := storedEffective(t, db); total.StringFixed(2) != "200.00" {
		t.Errorf("after a1f: %s, want f1's 200.00", total.StringFixed(2))
	}
	// The refusal is remembered for the reports, as a delivery's is.
	if code, out, errs := runFinops(t, "--db", db, "ingest", "--replace", a1fPath); code != 0 ||
		!strings.Contains(out, "replaces 20 lines of "+f1Path) || !strings.Contains(out, "on purpose (--replace): 9 of its charges (90.00 USD)") {
		t.Errorf("a1f --replace: exit %d\n%s%s", code, out, errs)
	}
	// a1f's 12 × 10.00.
	if _, total := storedEffective(t, db); total.StringFixed(2) != "120.00" {
		t.Errorf("after a1f --replace: %s, want 120.00", total.StringFixed(2))
	}
}

// azureRun writes one Azure export run: its manifest and one part file per
// element of parts, each a list of "resource@day=cost" charges of January
// 2026 in USD, under root's exports/gpu-costs/20260101-20260131/.
func azureRun(t *testing.T, root, stamp, run string, parts ...[]string) string {
	t.Helper()
	const head = "BillingAccountId,BillingAccountName,BillingPeriodStartDate,BillingPeriodEndDate,SubscriptionId,SubscriptionName,Date," +
		"ProductName,MeterCategory,MeterSubCategory,MeterId,MeterName,MeterRegion,UnitOfMeasure,Quantity,EffectivePrice," +
		"CostInBillingCurrency,BillingCurrencyCode,ResourceLocation,ConsumedService,ResourceId,ResourceName,ResourceGroup,Tags," +
		"AdditionalInfo,ChargeType,Frequency,PricingModel,ReservationId,benefitId\n"
	rel := filepath.ToSlash(filepath.Join("exports", "gpu-costs", "20260101-20260131", stamp, run))
	folder := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	var blobs []string
	for i, charges := range parts {
		var b strings.Builder
		b.WriteString(head)
		for _, c := range charges {
			at, cost, _ := strings.Cut(c, "=")
			res, day, _ := strings.Cut(at, "@")
			fmt.Fprintf(&b, "acct-mca-01,Acme,01/01/2026,01/31/2026,aaaa1111-2222-3333-4444-555566667777,gpu-prod,01/%02s/2026,,"+
				"Virtual Machines,NCadsA100v4 Series,,NC24ads A100 v4,,1 Hour,1,,%s,USD,westeurope,Microsoft.Compute,"+
				"/subscriptions/aaaa1111-2222-3333-4444-555566667777/resourceGroups/ml/providers/Microsoft.Compute/virtualMachines/%s,,ml,,,"+
				"Usage,UsageBased,OnDemand,,\n", day, cost, res)
		}
		name := fmt.Sprintf("part_0_%04d.csv", i+1)
		if err := os.WriteFile(filepath.Join(folder, name), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		blobs = append(blobs, fmt.Sprintf(`{"blobName": %q, "byteCount": %d, "dataRowCount": 0, "headerRowCount": 1}`, rel+"/"+name, b.Len()))
	}
	manifest := fmt.Sprintf(`{"manifestVersion": "2021-01-01", "dataFormat": "csv", "blobCount": %d, "byteCount": 0, "dataRowCount": 0, "blobs": [%s]}`,
		len(blobs), strings.Join(blobs, ","))
	p := filepath.Join(folder, "manifest.json")
	if err := os.WriteFile(p, []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestIngestAzureRunWithFewerFilesNamesTheDrop: a newer Azure export run
// with fewer files replaces the older run whole, as a delivery of its
// billing period does — and says so. Run 1111: a100-train 7.49 and
// t4-batch 5.49 on Jan 3, h100-conf 2.00 on Jan 5: 14.98 USD. Run 2222:
// h100-conf 2.00 only. (14.98 − 2.00) / 14.98 = 86.6 % → "−87 %", 2
// charges (12.98 USD) only in the old run; beyond the default 20 %, the
// report of the week is incomplete (exit 3). With max_restatement_drop
// 0.9 the same drop is a data-quality warning and the report is whole.
func TestIngestAzureRunWithFewerFilesNamesTheDrop(t *testing.T) {
	for _, tt := range []struct {
		name, config   string
		wantIncomplete bool
	}{
		{"default threshold", "", true},
		{"threshold 90 percent", "thresholds:\n  max_restatement_drop: 0.9\n", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			cfg := writeConfig(t, dir, "finops.yaml", "currency: USD\n"+tt.config)
			root := filepath.Join(dir, "azure")
			m1 := azureRun(t, root, "202601051200", "run-1111", []string{"a100-train@03=7.49", "t4-batch@03=5.49"}, []string{"h100-conf@05=2.00"})
			db := filepath.Join(dir, "f.db")
			if code, out, errs := runFinops(t, "--config", cfg, "--db", db, "ingest", m1); code != 0 {
				t.Fatalf("run 1111: exit %d\n%s%s", code, out, errs)
			}
			azureRun(t, root, "202601071200", "run-2222", []string{"h100-conf@05=2.00"})
			const change = "replaces run 202601051200/run-1111 of "
			const numbers = ": 14.98 → 2.00 USD, −87 %; charges only in the old run: 2 (12.98 USD)"
			code, out, errs := runFinops(t, "--config", cfg, "--db", db, "ingest", root)
			if code != 0 || !strings.Contains(out, change) || !strings.Contains(out, numbers) ||
				strings.Contains(out, "warning: run 202601071200/run-2222") != tt.wantIncomplete {
				t.Fatalf("run 2222: exit %d\n%s%s", code, out, errs)
			}
			if _, total := storedEffective(t, db); total.StringFixed(2) != "2.00" {
				t.Errorf("stored %s, want run 2222's 2.00", total.StringFixed(2))
			}

			// The week of Jan 5 (2026-W02): the change is in the
			// data-quality box and the JSON summary.
			rep := filepath.Join(dir, "out")
			wantCode := 0
			if tt.wantIncomplete {
				wantCode = cli.ExitPartial
			}
			code, out, errs = runFinops(t, "--config", cfg, "--db", db, "report", "--week", "2026-W02", "--format", "json", "--out", rep)
			if code != wantCode {
				t.Fatalf("report: exit %d, want %d\n%s%s", code, wantCode, out, errs)
			}
			r := readSummary(t, filepath.Join(rep, "finops-2026-W02.json"))
			inc, warn := strings.Join(r.DataQuality.Incomplete, "\n"), strings.Join(r.DataQuality.Warnings, "\n")
			named := inc
			if !tt.wantIncomplete {
				named = warn
			}
			if !strings.Contains(named, change) || !strings.Contains(named, numbers) || !strings.Contains(named, "run 202601071200/run-2222 of azure:") {
				t.Errorf("the report does not name the change:\nincomplete: %s\nwarnings: %s", inc, warn)
			}
			if tt.wantIncomplete == (inc == "") {
				t.Errorf("incomplete = %q, want it incomplete: %v", inc, tt.wantIncomplete)
			}
		})
	}
}

// TestIngestJSONNamesThePeriodChange: ingest's JSON result of the run
// that replaced another carries the change, with the same numbers.
func TestIngestJSONNamesThePeriodChange(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "azure")
	m1 := azureRun(t, root, "202601051200", "run-1111", []string{"a100-train@03=7.49", "t4-batch@03=5.49"}, []string{"h100-conf@05=2.00"})
	db := filepath.Join(dir, "f.db")
	if code, out, errs := runFinops(t, "--db", db, "ingest", m1); code != 0 {
		t.Fatalf("run 1111: exit %d\n%s%s", code, out, errs)
	}
	m2 := azureRun(t, root, "202601071200", "run-2222", []string{"h100-conf@05=2.00"})
	code, out, errs := runFinops(t, "--db", db, "--log-format", "json", "ingest", m2)
	if code != 0 {
		t.Fatalf("run 2222: exit %d\n%s%s", code, out, errs)
	}
	var found bool
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var r struct {
			PeriodChange *struct {
				OldRun      string  `json:"old_run"`
				OldTotal    string  `json:"old_total"`
				NewTotal    string  `json:"new_total"`
				Drop        float64 `json:"drop"`
				OnlyOld     int     `json:"charges_only_in_old_run"`
				OnlyOldCost string  `json:"charges_only_in_old_run_cost"`
				Incomplete  bool    `json:"incomplete"`
			} `json:"period_change"`
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		if c := r.PeriodChange; c != nil {
			found = true
			// 12.98 / 14.98 = 0.8665.
			if c.OldRun != "202601051200/run-1111" || c.OldTotal != "14.98 USD" || c.NewTotal != "2.00 USD" || c.Drop < 0.866 ||
				c.Drop > 0.867 || c.OnlyOld != 2 || c.OnlyOldCost != "12.98 USD" || !c.Incomplete {
				t.Errorf("period_change = %+v", *c)
			}
		}
	}
	if !found {
		t.Errorf("no period_change in:\n%s", out)
	}
}

// TestIngestTwoLinesRefusedEverywhere: after f1.csv (200.00), a file of
// two lines — f1's gpu-01 line and gpu-21 at 1.00 on 11-21 — under another
// name, piped on standard input, and written over f1.csv itself (with
// gpu-02's line too): each lacks f1's other charges (19 of them, 190.00;
// over f1.csv, 18, 180.00) and is refused; the month stays 200.00. On
// today's main they took it to 11.00, 10.01 and 21.00.
func TestIngestTwoLinesRefusedEverywhere(t *testing.T) {
	var f1 []string
	for n := 1; n <= 20; n++ {
		f1 = append(f1, fmt.Sprintf("gpu-%02d@%d=10.00", n, n))
	}
	two := []string{"gpu-01@1=10.00", "gpu-21@21=1.00"}
	for _, tt := range []struct {
		name     string
		args     func(dir, f1Path string) ([]string, []byte)
		wantOnly string
	}{
		{"another file", func(dir, _ string) ([]string, []byte) {
			return []string{"ingest", writeFOCUS(t, dir, "two.csv", two)}, nil
		}, "charges only in %s: 19, 190.00 USD"},
		{"standard input", func(dir, _ string) ([]string, []byte) {
			b, err := os.ReadFile(writeFOCUS(t, dir, "two.csv", two))
			if err != nil {
				t.Fatal(err)
			}
			return []string{"ingest", "-"}, b
		}, "charges only in %s: 19, 190.00 USD"},
		{"the same path", func(dir, f1Path string) ([]string, []byte) {
			return []string{"ingest", writeFOCUS(t, dir, "f1.csv", []string{"gpu-01@1=10.00", "gpu-02@2=10.00", "gpu-21@21=1.00"})}, nil
		}, "charges only in %s: 18, 180.00 USD"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			f1Path := writeFOCUS(t, dir, "f1.csv", f1)
			db := filepath.Join(dir, "f.db")
			if code, out, errs := runFinops(t, "--db", db, "ingest", f1Path); code != 0 {
				t.Fatalf("f1: exit %d\n%s%s", code, out, errs)
			}
			args, stdin := tt.args(dir, f1Path)
			code, out, errs := finopsStdin(t, stdin, append([]string{"--db", db}, args...)...)
			if want := fmt.Sprintf(tt.wantOnly, f1Path); code != cli.ExitFailed || !strings.Contains(out+errs, want) ||
				!strings.Contains(out+errs, "finops ingest --replace") {
				t.Errorf("exit %d, want %d and %q:\n%s%s", code, cli.ExitFailed, want, out, errs)
			}
			if _, total := storedEffective(t, db); total.StringFixed(2) != "200.00" {
				t.Errorf("stored %s, want f1's 200.00", total.StringFixed(2))
			}
		})
	}
}

// azureExport writes one Azure export file with no manifest beside it (an
// export downloaded by hand, or a scheduled one whose folder was flattened):
// the same columns and "resource@day=cost" charges as azureRun's parts.
func azureExport(t *testing.T, dir, name string, charges ...string) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "run")
	azureRun(t, root, "0", "0", charges)
	b, err := os.ReadFile(filepath.Join(root, "exports", "gpu-costs", "20260101-20260131", "0", "0", "part_0_0001.csv"))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestIngestAzureExportsWithoutManifestCompared: two Azure exports of one
// billing account, month and cost basis, with no manifest, share the key
// finops derives from their data (azure:acct-mca-01:2026-01, "actual"); that
// key is no declared delivery, so the second is compared charge by charge
// with the first like any other file, never kept beside it as a part of
// "one delivery" (which counted a month-to-date export twice).
//
// jan10.csv: a100-train@03 7.49 + t4-batch@03 5.49 = 12.98 USD.
//   - jan20.csv holds both and h100-conf@15 2.00: a superset, it replaces
//     jan10's lines: 7.49 + 5.49 + 2.00 = 14.98 (both kept: 27.96).
//   - filtered.csv holds a100-train@03 and h100-conf@15 only: t4-batch's
//     5.49 is in no later file, so it is refused, the month stays 12.98.
//   - other.csv (another VM, t4-dev@04 5.49) has no charge in common: both
//     kept, 12.98 + 5.49 = 18.47.
func TestIngestAzureExportsWithoutManifestCompared(t *testing.T) {
	for _, tt := range []struct {
		name     string
		second   []string
		wantCode int
		want     string
	}{
		{"month to date again", []string{"a100-train@03=7.49", "t4-batch@03=5.49", "h100-conf@15=2.00"}, 0, "14.98"},
		{"filtered", []string{"a100-train@03=7.49", "h100-conf@15=2.00"}, cli.ExitFailed, "12.98"},
		{"disjoint", []string{"t4-dev@04=5.49"}, 0, "18.47"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			cfg := writeConfig(t, dir, "finops.yaml", "currency: USD\n")
			db := filepath.Join(dir, "f.db")
			first := azureExport(t, dir, "jan10.csv", "a100-train@03=7.49", "t4-batch@03=5.49")
			if code, out, errs := runFinops(t, "--config", cfg, "--db", db, "ingest", first); code != 0 {
				t.Fatalf("jan10: exit %d\n%s%s", code, out, errs)
			}
			second := azureExport(t, dir, "second.csv", tt.second...)
			code, out, errs := runFinops(t, "--config", cfg, "--db", db, "ingest", second)
			if code != tt.wantCode {
				t.Fatalf("second: exit %d, want %d\n%s%s", code, tt.wantCode, out, errs)
			}
			if tt.wantCode != 0 && (!strings.Contains(errs+out, "jan10.csv") || !strings.Contains(errs+out, "--replace")) {
				t.Errorf("the refusal does not name the earlier file and --replace:\n%s%s", out, errs)
			}
			if _, total := storedEffective(t, db); total.StringFixed(2) != tt.want {
				t.Errorf("stored %s, want %s", total.StringFixed(2), tt.want)
			}
		})
	}
}
