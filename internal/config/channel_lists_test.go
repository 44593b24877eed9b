package config

import "testing"

// TestChannelLists: a channel lists a team it names under teams, case
// aside; one that names no team lists none (the watch sends it every
// team's messages, the digest only the fleet's: that is the callers' rule).
func TestChannelLists(t *testing.T) {
	for _, c := range []struct {
		teams []string
		team  string
		want  bool
	}{
		{[]string{"ml-train", "infra"}, "infra", true},
		{[]string{"ML-Train"}, "ml-train", true},
		{[]string{"数据组"}, "数据组", true},
		{[]string{"ml-train"}, "ml", false},
		{nil, "ml-train", false},
		{[]string{"ml-train"}, "", false},
	} {
		if got := (Channel{Type: "slack", Teams: c.teams}).Lists(c.team); got != c.want {
			t.Errorf("channel with teams %q lists %q: %v, want %v", c.teams, c.team, got, c.want)
		}
	}
}
