package config

import (
	"fmt"
	"strings"
)

// The checks below take what another package owns as a plain function
// (config imports none of them) and are handed to Load or Parse by the
// caller; their refusals read as Validate's.

// CommandCheck is the Check of the watch's on_idle commands (watch.on_idle,
// resources[].on_idle, teams[].on_idle) by check, watch.CheckCommand: the
// placeholders and what may stand in argv are the watch's. Each refusal is
// a key error at its argument (…command[2]), so Parse gives it its line.
func CommandCheck(check func(argv, allowResources, allowTeams []string, refuse func(arg int, msg string))) Check {
	return func(c *Config) []error {
		var errs []error
		run := func(key string, o *OnIdle) {
			if o == nil {
				return
			}
			check(o.Command.Args, c.Watch.Allow.Resources, c.Watch.Allow.Teams, func(arg int, msg string) {
				errs = append(errs, keyErr(fmt.Sprintf("%s.command[%d]", key, arg), "%s", msg))
			})
		}
		run("watch.on_idle", c.Watch.OnIdle)
		for i, r := range c.Resources {
			run(fmt.Sprintf("resources[%d].on_idle", i), r.OnIdle)
		}
		for i, t := range c.Teams {
			run(fmt.Sprintf("teams[%d].on_idle", i), t.OnIdle)
		}
		return errs
	}
}

// GPUModelCheck is the Check that no two purchase blocks name one card:
// model reads a gpu_model as a bill's is (gpu.Model), so "A100-80GB" and
// "A100-SXM4-80GB" are the same model to the review.
func GPUModelCheck(model func(string) string) Check {
	return func(c *Config) []error {
		var errs []error
		first := map[string]int{} // model → the first block naming it
		for i, p := range c.Purchase {
			if p.GPUModel == "" {
				continue // validatePurchase: required
			}
			k := strings.ToLower(model(p.GPUModel))
			if j, ok := first[k]; ok {
				errs = append(errs, fmt.Errorf("purchase[%d] (%s): gpu_model appears twice: purchase[%d] (%s) is the same card; keep one block per model",
					i, p.GPUModel, j, c.Purchase[j].GPUModel))
				continue
			}
			first[k] = i
		}
		return errs
	}
}
