package main

import (
	"strings"

	"github.com/finops-oss/finops/analysis"
	"github.com/finops-oss/finops/config"
	"github.com/finops-oss/finops/watch"
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
		var team *config.Team
		for k := range c.Teams {
			if strings.EqualFold(c.Teams[k].Name, r.Team) {
				team = &c.Teams[k]
				break
			}
		}
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
		if entry != nil {
			p.Protect = entry.Protect
			if entry.MaxLifetime.Duration > 0 {
				p.MaxLifetime = entry.MaxLifetime.Duration
			}
			for _, a := range c.Watch.Allow.Resources {
				p.Allowed = p.Allowed || strings.EqualFold(a, entry.ID)
			}
		}
		for _, t := range c.Watch.Allow.Teams {
			p.Allowed = p.Allowed || r.Team != "" && strings.EqualFold(t, r.Team)
		}
		out[i] = watch.Target{ResourceNow: r, Policy: p}
	}
	return out
}
