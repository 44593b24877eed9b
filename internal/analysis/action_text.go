package analysis

import "strings"

// ActionText is the wording people read for a recommendation's action
// ("Switch to monthly", "Release"): the one table the reports and
// `finops advice` share, so a terminal and a page never name an action two
// ways. An action it does not know reads as its words, capitalised.
func ActionText(action string) string {
	switch action {
	case ActionKeep:
		return "Keep"
	case ActionSwitchToHourly:
		return "Switch to hourly"
	case ActionSwitchToMonthly:
		return "Switch to monthly"
	case ActionSwitchToSpot:
		return "Switch to spot"
	case ActionStopWhenIdle:
		return "Stop when idle"
	case ActionRelease:
		return "Release"
	}
	s := strings.ReplaceAll(action, "_", " ")
	if s == "" {
		return ""
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
