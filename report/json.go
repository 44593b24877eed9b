package report

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/finops-oss/finops/analysis"
)

// WriteJSON writes the JSON summary of product.md: the Result's tagged fields,
// indented, money at full precision, times in RFC 3339. Lists that are empty
// are written as [] rather than null, so scripts can iterate them without a
// null check. The Result is not modified.
func WriteJSON(w io.Writer, r *analysis.Result) error {
	if r == nil {
		return fmt.Errorf("report: nil result")
	}
	n := normalised(r)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(&n); err != nil {
		return fmt.Errorf("report: write json: %w", err)
	}
	return nil
}

// normalised returns a shallow copy of r whose contract lists are non-nil.
func normalised(r *analysis.Result) analysis.Result {
	n := *r
	n.ByTeam = nonNil(n.ByTeam)
	n.ByResource = nonNil(n.ByResource)
	n.Tasks = nonNil(n.Tasks)
	n.Recommendations = nonNil(n.Recommendations)
	n.IdleSpans = nonNil(n.IdleSpans)
	n.Findings = nonNil(n.Findings)
	n.Pools = nonNil(n.Pools)
	n.DataQuality.Sources = nonNil(n.DataQuality.Sources)
	n.DataQuality.Warnings = nonNil(n.DataQuality.Warnings)
	return n
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
