package analysis

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/finops-oss/finops"
)

func TestShortResourceID(t *testing.T) {
	for in, want := range map[string]string{
		"projects/p/zones/us-central1-a/instances/trainer-1":                                     "trainer-1",
		"/subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines/vm-a100": "vm-a100",
		"arn:aws:ec2:us-east-1:123456789012:instance/i-0abc":                                     "i-0abc",
		"i-0abc": "i-0abc",
		"//compute.googleapis.com/projects/p/zones/z/instances/vm-9": "vm-9",
		"projects/p/zones/z/instances/trailing/":                     "trailing",
		"</script><script>alert(1)</script>":                         "</script><script>alert(1)</script>", // not a path
		"a/b":                                                        "a/b",
		"":                                                           "",
	} {
		if got := ShortResourceID(in); got != want {
			t.Errorf("ShortResourceID(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestCloudResourcePaths: bills name instances by their full path; people
// name them by the last segment, in the config and as telemetry hostnames.
// Every GPU here idles all day (0 %), so by hand each matched resource has 24
// idle hours and an unmatched one 24 unmonitored hours.
func TestCloudResourcePaths(t *testing.T) {
	const gcp1 = "projects/p1/zones/us-central1-a/instances/trainer-1"
	const gcp2 = "projects/p1/zones/us-central1-a/instances/trainer-2"
	const azure = "/subscriptions/S1/resourceGroups/RG/providers/Microsoft.Compute/virtualMachines/vm-a100"
	in := oneDay()
	in.Lines = append(hourlyLines(gcp1, "2.40", day0, 24), hourlyLines(gcp2, "2.40", day0, 24)...)
	// Azure's export changes the id's case half-way through: one resource.
	in.Lines = append(in.Lines, hourlyLines(azure, "3.00", day0, 12)...)
	in.Lines = append(in.Lines, hourlyLines(strings.ToUpper(azure), "3.00", day0.Add(12*time.Hour), 12)...)
	// trainer-1 is configured by its short name with only a team, and its
	// telemetry says hostname=trainer-1; trainer-2 is not configured at all;
	// the Azure VM is configured by its full id in another case, with its host.
	in.Resources = []Resource{{ID: "trainer-1", Team: "nlp"}, {ID: strings.ToLower(azure), Hosts: []string{"gpu-az-7"}, Team: "cv"}}
	in.Teams = []Team{{Name: "nlp"}, {Name: "cv"}}
	in.GPUs = []finops.GPUSeries{
		series("GPU-1", "trainer-1", day0, seg{1440, 0}),
		series("GPU-2", "trainer-2.c.p1.internal", day0, seg{1440, 0}),
		series("GPU-3", "gpu-az-7", day0, seg{1440, 0}),
	}
	r, err := Analyze(in)
	if err != nil {
		t.Fatal(err)
	}
	type got struct {
		team        string
		idle, unmon float64
	}
	by := map[string]got{}
	for _, rc := range r.ByResource {
		by[strings.ToLower(rc.ResourceID)] = got{rc.Team, rc.GPUHoursIdle, rc.GPUHoursUnmonitored}
	}
	want := map[string]got{
		gcp1:                   {"nlp", 24, 0},
		gcp2:                   {"", 24, 0},
		strings.ToLower(azure): {"cv", 24, 0},
	}
	if len(r.ByResource) != 3 {
		t.Errorf("%d resources, want 3 (the Azure id's two spellings are one)", len(r.ByResource))
	}
	for id, w := range want {
		g, ok := by[id]
		if !ok || g.idle != w.idle || g.unmon != w.unmon || w.team != "" && g.team != w.team {
			t.Errorf("%s: %+v, want %+v", id, g, w)
		}
	}
	if len(r.DataQuality.UnmatchedGPUs) != 0 || len(r.DataQuality.UnmatchedResources) != 0 {
		t.Errorf("unmatched: %+v %v", r.DataQuality.UnmatchedGPUs, r.DataQuality.UnmatchedResources)
	}
}

// TestSharedShortName: the same instance name in two projects — a config
// entry by that name cannot say which; the report warns, naming both.
func TestSharedShortName(t *testing.T) {
	a, b := "projects/a/zones/z/instances/trainer", "projects/b/zones/z/instances/trainer"
	in := oneDay()
	in.Lines = append(hourlyLines(a, "2.40", day0, 24), hourlyLines(b, "2.40", day0, 24)...)
	in.Resources = []Resource{{ID: "trainer", Team: "nlp"}}
	in.Teams = []Team{{Name: "nlp"}}
	in.GPUs = nil
	r, err := Analyze(in)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(r.DataQuality.Warnings, func(w string) bool {
		return strings.Contains(w, `"trainer" names several billed resources (`+a+", "+b+")")
	}) {
		t.Errorf("no warning about the shared name in %q", r.DataQuality.Warnings)
	}
}
