package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/finops-oss/finops/internal/cli"
	"github.com/finops-oss/finops/internal/testnum"
)

// chargebackBill is a FOCUS export of week 2026-W48 whose lines carry tags
// (USD, 118.33 in all):
//
//	i-ml      p5.48xlarge, 1 h   80.00  team=ml, project=llm   account 111
//	i-inf     g6.xlarge, 1 h     20.00  team=infer, project=chat account 111
//	i-orphan  g6.xlarge, 1 h     10.00  no tags                account 222
//	vol-1     storage, the week   5.00  project=llm            account 111
//	          tax, the week       3.33  no tags                account 111
const chargebackBill = `ChargePeriodStart,ChargePeriodEnd,BilledCost,EffectiveCost,BillingCurrency,ChargeCategory,ChargeFrequency,PricingCategory,ServiceProviderName,BillingAccountId,ResourceId,ResourceType,SkuId,ChargeDescription,Tags,x_InstanceType
2026-11-24T00:00:00Z,2026-11-24T01:00:00Z,80.00,80.00,USD,Usage,Usage-Based,Standard,AWS,111,i-ml,Virtual Machine,SKU1,p5 hour,"{""team"": ""ml"", ""project"": ""llm""}",p5.48xlarge
2026-11-24T00:00:00Z,2026-11-24T01:00:00Z,20.00,20.00,USD,Usage,Usage-Based,Standard,AWS,111,i-inf,Virtual Machine,SKU2,g6 hour,"{""team"": ""infer"", ""project"": ""chat""}",g6.xlarge
2026-11-24T00:00:00Z,2026-11-24T01:00:00Z,10.00,10.00,USD,Usage,Usage-Based,Standard,AWS,222,i-orphan,Virtual Machine,SKU2,g6 hour,,g6.xlarge
2026-11-23T00:00:00Z,2026-11-30T00:00:00Z,5.00,5.00,USD,Usage,Usage-Based,Standard,AWS,111,vol-1,Storage,SKU3,volume,"{""project"": ""llm""}",
2026-11-23T00:00:00Z,2026-11-30T00:00:00Z,3.33,3.33,USD,Tax,One-Time,,AWS,111,,,,tax,,
`

const chargebackConfig = `teams:
  - name: ml
  - name: infer
report:
  group_by: [tag:project, account, provider, team]
chargeback:
  unallocated: proportional
  idle: even
`

// TestReportChargeback ingests chargebackBill and reports the week with
// allocation and chargeback configured. By hand:
//
//	teams       ml 80.00, infer 20.00, unassigned 10.00 + 5.00 + 3.33 = 18.33
//	            (no telemetry: nothing is idle, the idle pool is 0)
//	unallocated 1833 cents in proportion to 8000 : 2000 → 1466.4, 366.6;
//	            floors 1466 + 366 = 1832, the cent left to infer (.6):
//	            ml 80.00 + 14.66 = 94.66, infer 20.00 + 3.67 = 23.67,
//	            unassigned 18.33 − 18.33 = 0; 94.66 + 23.67 = 118.33
//	tag:project llm 80.00 + 5.00 = 85.00, chat 20.00, (untagged) 13.33
//	account     111 80.00 + 20.00 + 5.00 + 3.33 = 108.33, 222 10.00
//	provider    AWS 118.33
//	team        ml 80.00, infer 20.00, unassigned 18.33
func TestReportChargeback(t *testing.T) {
	dir := t.TempDir()
	bill, cfg, db := filepath.Join(dir, "focus.csv"), filepath.Join(dir, "finops.yaml"), filepath.Join(dir, "f.db")
	for p, body := range map[string]string{bill: chargebackBill, cfg: chargebackConfig} {
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if code, out, errs := runFinops(t, "--config", cfg, "--db", db, "ingest", bill); code != 0 {
		t.Fatalf("ingest: exit %d\n%s%s", code, out, errs)
	}
	rep := filepath.Join(dir, "out")
	if code, out, errs := runFinops(t, "--config", cfg, "--db", db, "report", "--week", "2026-W48", "--format", "json,xlsx,html",
		"--out", rep); code != 0 {
		t.Fatalf("report: exit %d\n%s%s", code, out, errs)
	}
	s := readSummary(t, filepath.Join(rep, "finops-2026-W48.json"))
	testnum.Near(t, "totals.cost", s.Totals.Cost, 118.33, 0.005)

	cb := s.Chargeback
	if cb == nil {
		t.Fatal("no chargeback in the JSON")
	}
	if cb.UnallocatedRule != "proportional" || cb.IdleRule != "even" {
		t.Errorf("rules %q, %q", cb.UnallocatedRule, cb.IdleRule)
	}
	testnum.Near(t, "chargeback.total", cb.Total, 118.33, 0.005)
	testnum.Near(t, "chargeback.unallocated_pool", cb.UnallocatedPool, 18.33, 0.005)
	testnum.Near(t, "chargeback.idle_pool", cb.IdlePool, 0, 0.005)
	want := map[string][4]float64{ // direct, unallocated, idle, charged back
		"ml":         {80, 14.66, 0, 94.66},
		"infer":      {20, 3.67, 0, 23.67},
		"unassigned": {18.33, -18.33, 0, 0},
	}
	if len(cb.Teams) != len(want) {
		t.Fatalf("chargeback teams %+v, want %d", cb.Teams, len(want))
	}
	var sum int64
	for _, tr := range cb.Teams {
		w, ok := want[tr.Team]
		if !ok {
			t.Errorf("unexpected team %q", tr.Team)
			continue
		}
		for i, v := range []float64{tr.Direct, tr.Unallocated, tr.Idle, tr.ChargedBack} {
			testnum.Near(t, tr.Team+" "+[]string{"direct", "unallocated", "idle", "charged_back"}[i], v, w[i], 0.005)
		}
		sum += int64(tr.ChargedBack*100 + 0.5*sign(tr.ChargedBack))
	}
	if sum != 11833 {
		t.Errorf("charged back adds up to %d cents, want the bill's 11833", sum)
	}

	wantGroups := map[string]map[string]float64{
		"tag:project": {"llm": 85, "chat": 20, "(untagged)": 13.33},
		"account":     {"111": 108.33, "222": 10},
		"provider":    {"AWS": 118.33},
		"team":        {"ml": 80, "infer": 20, "unassigned": 18.33},
	}
	if len(s.Allocation) != 4 || s.Allocation[0].Dimension != "tag:project" || s.Allocation[3].Dimension != "team" {
		t.Fatalf("allocation %+v: want the four dimensions in the config's order", s.Allocation)
	}
	for _, al := range s.Allocation {
		w := wantGroups[al.Dimension]
		if len(al.Groups) != len(w) {
			t.Errorf("%s: groups %+v, want %v", al.Dimension, al.Groups, w)
			continue
		}
		for _, g := range al.Groups {
			testnum.Near(t, al.Dimension+" "+g.Value, g.Cost, w[g.Value], 0.005)
		}
	}
}

func sign(v float64) float64 {
	if v < 0 {
		return -1
	}
	return 1
}

// TestReportChargebackConfigRefused: a report whose config names an unknown
// dimension or team stops before reading anything, with the hint.
func TestReportChargebackConfigRefused(t *testing.T) {
	for _, tc := range []struct{ yaml, want string }{
		{"report: {group_by: [tags:project]}", "did you mean tag:project?"},
		{"teams: [{name: ml}]\nchargeback: {idle: 'team:nlp'}", `chargeback.idle: team "nlp" is not configured under teams (ml)`},
	} {
		cfg := filepath.Join(t.TempDir(), "finops.yaml")
		if err := os.WriteFile(cfg, []byte(tc.yaml), 0o644); err != nil {
			t.Fatal(err)
		}
		code, _, errs := runFinops(t, "--config", cfg, "--db", filepath.Join(t.TempDir(), "f.db"), "report", "--week", "2026-W48")
		if code != cli.ExitUsage || !strings.Contains(errs, tc.want) {
			t.Errorf("%s: exit %d, stderr %q; want %d and %q", tc.yaml, code, errs, cli.ExitUsage, tc.want)
		}
	}
}
