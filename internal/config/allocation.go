package config

import (
	"fmt"
	"strings"
)

// The analysis's names for dimensions and chargeback rules (dimTeam,
// spreadNone …), held here as plain text so that config imports
// nothing of the analysis; TestAllocationNamesMatchAnalysis keeps them equal.
const (
	dimTeam            = "team"
	dimAccount         = "account"
	dimProvider        = "provider"
	dimTagPrefix       = "tag:"
	spreadNone         = "none"
	spreadProportional = "proportional"
	spreadEven         = "even"
	spreadTeamPrefix   = "team:"
)

// validDimension is validDimension: a fixed dimension or tag:<key>.
func validDimension(d string) bool {
	switch d {
	case dimTeam, dimAccount, dimProvider:
		return true
	}
	return strings.HasPrefix(d, dimTagPrefix) && strings.TrimSpace(d[len(dimTagPrefix):]) != ""
}

// Chargeback says how the cost no team owns is spread back onto the teams
// (docs/METRICS.md §Chargeback): none (the default), proportional, even or
// team:<name>, for each of the two pools.
type Chargeback struct {
	Unallocated string `yaml:"unallocated"`
	Idle        string `yaml:"idle"`
}

// validateAllocation checks report.group_by and the chargeback rules: a
// dimension or rule that is not one refuses with the nearest that is, and a
// team:<name> must name a configured team.
func (c *Config) validateAllocation() []error {
	var errs refusals
	seen := firstSeen{}
	for i, d := range c.Report.GroupBy {
		key := fmt.Sprintf("report.group_by[%d]", i)
		if !validDimension(d) {
			errs.add(fmt.Errorf("%s: %q is not a dimension; want team, account, provider or tag:<key> (a billing tag's key, e.g. tag:project)%s",
				key, d, didYouMean(d, dimensionNames(d))))
			continue
		}
		errs.add(seen.once(key, d, key))
	}
	for _, r := range []struct{ key, rule string }{
		{"chargeback.unallocated", c.Chargeback.Unallocated}, {"chargeback.idle", c.Chargeback.Idle},
	} {
		errs.add(c.checkSpreadRule(r.key, r.rule))
	}
	return errs
}

// checkSpreadRule checks one chargeback rule; "" is none.
func (c *Config) checkSpreadRule(key, rule string) error {
	switch rule {
	case "", spreadNone, spreadProportional, spreadEven:
		return nil
	}
	name, ok := strings.CutPrefix(rule, spreadTeamPrefix)
	if !ok {
		known := []string{spreadNone, spreadProportional, spreadEven}
		if i := strings.IndexByte(rule, ':'); i >= 0 {
			known = []string{spreadTeamPrefix + rule[i+1:]}
		}
		return fmt.Errorf("%s: %q is not a rule; want none, proportional, even or team:<name>%s", key, rule,
			didYouMean(rule, known))
	}
	var teams []string
	for _, t := range c.Teams {
		if strings.EqualFold(t.Name, name) {
			return nil
		}
		teams = append(teams, t.Name)
	}
	if len(teams) == 0 {
		return fmt.Errorf("%s: team %q is not configured: there are no teams; add it under teams, or pick proportional or even", key, name)
	}
	return fmt.Errorf("%s: team %q is not configured under teams (%s)%s", key, name, strings.Join(teams, ", "),
		didYouMean(name, teams))
}

// dimensionNames are the names a misspelt dimension d is compared with: the
// fixed ones, and tag:<its key> when d has a key after some other prefix
// (tags:project, label:project).
func dimensionNames(d string) []string {
	names := []string{dimTeam, dimAccount, dimProvider}
	if i := strings.IndexByte(d, ':'); i >= 0 && strings.TrimSpace(d[i+1:]) != "" {
		names = append(names, dimTagPrefix+d[i+1:])
	}
	return names
}

// didYouMean is "; did you mean X?" with the nearest of known, or "".
func didYouMean(got string, known []string) string {
	if s := nearest(got, known); s != "" {
		return fmt.Sprintf("; did you mean %s?", s)
	}
	return ""
}
