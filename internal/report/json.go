package report

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/finops-oss/finops/internal/analysis"
	"github.com/finops-oss/finops/internal/sanitize"
)

// JSONSchemaVersion is the version of the JSON summary's shape, written as
// schema_version and described by docs/finops-report.schema.json. It changes
// when a key is removed or changes meaning; added keys keep it.
const JSONSchemaVersion = "2"

// jsonDoc is the JSON summary: what the file is (schema and generator) ahead
// of the Result's tagged fields, which the embedding inlines.
type jsonDoc struct {
	SchemaVersion string        `json:"schema_version"`
	Generator     jsonGenerator `json:"generator"`
	Source        *jsonSource   `json:"source,omitempty"`
	analysis.Result
}

// jsonSource is what the summary was reported from: the database's id
// (store.DatabaseID), so that `finops rollup` refuses two summaries of one
// database and period. A rollup's summary has none.
type jsonSource struct {
	DatabaseID string `json:"database_id"`
}

type jsonGenerator struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// WriteJSON writes the JSON summary of product.md: schema_version, the
// generator, then the Result's tagged fields, indented, money rounded to the
// currency's minor unit, times in RFC 3339. Lists that are empty are written
// as [] rather than null, so scripts can iterate them without a null check.
// The Result is not modified.
func WriteJSON(w io.Writer, r *analysis.Result, meta Meta) error {
	if r == nil {
		return fmt.Errorf("report: nil result")
	}
	doc := jsonDoc{
		SchemaVersion: JSONSchemaVersion,
		Generator:     jsonGenerator{Name: "finops", Version: orDefault(meta.Version, "unknown")},
		Result:        roundedMoney(normalised(r)),
	}
	partsAddUp(&doc.Result, r)
	if meta.DatabaseID != "" {
		doc.Source = &jsonSource{DatabaseID: meta.DatabaseID}
	}
	// Written with every control and invisible character escaped
	// (sanitize.JSONWriter): the same value, none of them raw, also for a
	// value stored before ingest refused them.
	enc := json.NewEncoder(sanitize.NewJSONWriter(w))
	enc.SetIndent("", "  ")
	if err := enc.Encode(&doc); err != nil {
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
	n.DataQuality.Incomplete = nonNil(n.DataQuality.Incomplete)
	if n.Watch != nil {
		w := *n.Watch
		w.Alerts, w.Actions = nonNil(w.Alerts), nonNil(w.Actions)
		n.Watch = &w
	}
	if n.Energy != nil {
		e := *n.Energy
		e.ByTeam, e.ByResource, e.Tasks = nonNil(e.ByTeam), nonNil(e.ByResource), nonNil(e.Tasks)
		n.Energy = &e
	}
	return n
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
