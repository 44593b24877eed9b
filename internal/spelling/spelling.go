// Package spelling finds the known name a misspelt one was meant to be, for
// "did you mean …?" in error messages.
package spelling

// Nearest returns the known name closest to a misspelt one, or "" when none
// is within two edits (or a third of the word, for long names): a guess
// further off would mislead more than it helps.
func Nearest(got string, known []string) string {
	best, bestD := "", max(2, len(got)/3)+1
	for _, k := range known {
		if d := distance(got, k); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

// distance is the Levenshtein distance of a and b in bytes: keys are ASCII.
func distance(a, b string) int {
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
