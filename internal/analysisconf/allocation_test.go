package analysisconf

import (
	"slices"
	"strings"
	"testing"

	"github.com/finops-oss/finops/internal/analysis"
	"github.com/finops-oss/finops/internal/config"
)

func TestAllocationConfigErrors(t *testing.T) {
	const teams = "teams: [{name: ml}, {name: infer}]\n"
	for _, tc := range []struct{ yaml, want string }{
		{"report: {group_by: [tema]}", `report.group_by[0]: "tema" is not a dimension; want team, account, provider or tag:<key> (a billing tag's key, e.g. tag:project); did you mean team?`},
		{"report: {group_by: [acount]}", "did you mean account?"},
		{"report: {group_by: [tags:project]}", `"tags:project" is not a dimension; want team, account, provider or tag:<key> (a billing tag's key, e.g. tag:project); did you mean tag:project?`},
		{"report: {group_by: [label:project]}", "did you mean tag:project?"},
		{"report: {group_by: ['tag:']}", `"tag:" is not a dimension`},
		{"report: {group_by: [colour]}", `"colour" is not a dimension; want team, account, provider or tag:<key> (a billing tag's key, e.g. tag:project)`},
		{"report: {group_by: [tag:project, provider, tag:project]}", `report.group_by[2]: "tag:project" is named twice (first at report.group_by[0])`},
		{"report: {groupby: [team]}", "unknown key report.groupby; did you mean report.group_by?"},
		{teams + "chargeback: {unallocated: proportionate}", `chargeback.unallocated: "proportionate" is not a rule; want none, proportional, even or team:<name>; did you mean proportional?`},
		{teams + "chargeback: {idle: evenly}", `chargeback.idle: "evenly" is not a rule; want none, proportional, even or team:<name>; did you mean even?`},
		{teams + "chargeback: {idle: 'teams:ml'}", "did you mean team:ml?"},
		{teams + "chargeback: {idle: 'team:mll'}", `chargeback.idle: team "mll" is not configured under teams (ml, infer); did you mean ml?`},
		{teams + "chargeback: {unallocated: 'team:'}", `chargeback.unallocated: team "" is not configured under teams (ml, infer)`},
		{"chargeback: {unallocated: 'team:ml'}", `chargeback.unallocated: team "ml" is not configured: there are no teams`},
		{teams + "chargeback: {unallocted: even}", "unknown key chargeback.unallocted; did you mean chargeback.unallocated?"},
	} {
		_, err := config.Parse("f.yaml", []byte(tc.yaml))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s:\nerr  %v\nwant it to say %s", tc.yaml, err, tc.want)
		}
	}
}

func TestAllocationConfig(t *testing.T) {
	c, err := config.Parse("f.yaml", []byte(`
teams: [{name: ML}, {name: infer}]
report:
  group_by: [team, tag:project, account, provider]
chargeback:
  unallocated: team:ml
  idle: proportional
`))
	if err != nil {
		t.Fatal(err)
	}
	p, err := Params(c)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(p.GroupBy, []string{"team", "tag:project", "account", "provider"}) ||
		p.Chargeback != (analysis.ChargebackRules{Unallocated: "team:ml", Idle: "proportional"}) {
		t.Errorf("params: group by %q, chargeback %+v", p.GroupBy, p.Chargeback)
	}
	// Nothing configured is today's report: no groups, no chargeback.
	c, err = config.Parse("f.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	if p, _ := Params(c); p.GroupBy != nil || p.Chargeback.On() {
		t.Errorf("default params: group by %q, chargeback %+v", p.GroupBy, p.Chargeback)
	}
}
