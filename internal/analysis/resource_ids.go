package analysis

import (
	"slices"
	"sort"
	"strings"

	"github.com/finops-oss/finops"
)

// Cloud bills name a resource by a path (GCP: projects/P/zones/Z/instances/NAME;
// Azure: /subscriptions/…/virtualMachines/NAME; AWS ARNs: …:instance/i-0abc),
// while people — in finops.yaml, in task files, as the hostname in telemetry
// labels — write its last segment or its name. A configured id, a task's
// resource and a telemetry host are matched against the full id, its last
// segment and the line's resource name, without regard to case: Azure
// resource ids are case-insensitive, and its exports change their case from
// one month to the next.

// ShortResourceID is the last path segment of a cloud resource id (a GCP
// projects/… or //service/projects/… path, an Azure /subscriptions/… id, an
// AWS ARN), what reports show where the full id is too long to read. Other
// ids are returned unchanged: a slash in them is not a path.
func ShortResourceID(id string) string {
	if !isResourcePath(id) {
		return id
	}
	s := strings.TrimRight(id, "/")
	if i := strings.LastIndexByte(s, '/'); i >= 0 && i < len(s)-1 {
		return s[i+1:]
	}
	return id
}

func isResourcePath(id string) bool {
	const azure = "/subscriptions/"
	return strings.HasPrefix(id, "projects/") || strings.HasPrefix(id, "//") || strings.HasPrefix(id, "arn:") ||
		len(id) > len(azure) && strings.EqualFold(id[:len(azure)], azure)
}

// resourceAliases are the lower-case names a resource answers to: its id,
// its name and its id's last segment, each once, in that order.
func resourceAliases(id, name string) []string {
	out := make([]string, 0, 3)
	for _, n := range []string{id, name, ShortResourceID(id)} {
		if n = strings.ToLower(n); n != "" && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// groupKey is the key lines of one resource share: the id as written, except
// that Azure ids (case-insensitive) are compared in lower case.
func groupKey(l *finops.BillingLine) string {
	k := resourceKey(l)
	if isResourcePath(k) && k[0] == '/' && k[1] != '/' {
		return strings.ToLower(k)
	}
	return k
}

// resourceConfig finds the config entry of a billed resource by any of its
// aliases.
type resourceConfig struct {
	byID map[string]Resource // lower-case configured id → entry
}

func newResourceConfig(list []Resource) *resourceConfig {
	c := &resourceConfig{byID: make(map[string]Resource, len(list))}
	for _, r := range list {
		c.byID[strings.ToLower(r.ID)] = r
	}
	return c
}

// lookup returns the entry configured for a resource with this id and name:
// one configured by the full id first, then by the name, then by the id's
// last segment.
func (c *resourceConfig) lookup(id, name string) (Resource, bool) {
	for _, a := range resourceAliases(id, name) {
		if r, ok := c.byID[a]; ok {
			return r, true
		}
	}
	return Resource{}, false
}

// hosts lists every configured host (lower case).
func (c *resourceConfig) hosts() []string {
	var out []string
	for _, r := range c.byID {
		for _, h := range r.Hosts {
			out = append(out, strings.ToLower(h))
		}
	}
	sort.Strings(out)
	return out
}

// shared lists the configured ids that more than one billed resource answers
// to (the same instance name in two projects): the config must name the full
// id there, and the report says so rather than give both the same hosts.
func (c *resourceConfig) shared(resources []*gpuResource) map[string][]string {
	by := map[string][]string{}
	for _, r := range resources {
		for _, a := range resourceAliases(r.key, r.name) {
			if e, ok := c.byID[a]; ok {
				by[e.ID] = append(by[e.ID], r.key)
				break
			}
		}
	}
	for id, keys := range by {
		if len(keys) < 2 {
			delete(by, id)
		}
	}
	return by
}
