package pass

import (
	"strings"

	"github.com/finops-oss/finops/internal/analysis"
	"github.com/finops-oss/finops/internal/config"
	"github.com/finops-oss/finops/internal/watch"
)

// watchTargets gives each resource its policy: the on_idle of its resources
// entry, else its team's, else watch.on_idle; protect from its entry; the
// allowlist by its entry's id or its team; max_lifetime from its entry, else
// watch.max_lifetime for its pricing mode.
func watchTargets(c *config.Config, rs []analysis.ResourceNow) []watch.Target {
	out := make([]watch.Target, len(rs))
	for i, r := range rs {
		var entry *config.Resource
		for k := range c.Resources {
			if r.ConfigID != "" && strings.EqualFold(c.Resources[k].ID, r.ConfigID) {
				entry = &c.Resources[k]
				break
			}
		}
		team := teamNamed(c, r.Team)
		on := c.Watch.OnIdle
		if team != nil && team.OnIdle != nil {
			on = team.OnIdle
		}
		if entry != nil && entry.OnIdle != nil {
			on = entry.OnIdle
		}
		var p watch.Policy
		if on != nil {
			p.After, p.Action, p.Command = on.After.Duration, on.Action, on.Command.Args
		}
		p.MaxLifetime, p.ActOnLifetime = c.Watch.MaxLifetime[r.Mode].Duration, c.Watch.ActOnLifetime
		p.ArgvAllow = watch.ArgvAllow{Resources: c.Watch.Allow.Resources, Teams: c.Watch.Allow.Teams}
		if entry != nil {
			p.Protect = entry.Protect
			if entry.MaxLifetime.Duration > 0 {
				p.MaxLifetime = entry.MaxLifetime.Duration
			}
			p.Allowed = containsFold(c.Watch.Allow.Resources, entry.ID)
		}
		p.Allowed = p.Allowed || r.Team != "" && containsFold(c.Watch.Allow.Teams, r.Team)
		out[i] = watch.Target{ResourceNow: r, Policy: p}
	}
	return out
}
