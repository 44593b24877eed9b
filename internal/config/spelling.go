package config

// nearest is internal/spelling.Nearest, held here because config is a leaf:
// the nearest known name to a misspelt key, rule or team ("did you mean
// timezone?"), or "" when none is within two edits (or a third of the
// word). Unknown keys are found while decoding, before any caller's Check
// could run, so the rule cannot be handed in as the others are;
// TestNearestMatchesSpelling compares the two on generated words, so they
// cannot drift apart.
func nearest(got string, known []string) string {
	best, bestD := "", max(2, len(got)/3)+1
	for _, k := range known {
		if d := editDistance(got, k); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance of a and b in bytes: keys are
// ASCII.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
