package cli

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/finops-oss/finops/internal/deliver"
	"github.com/finops-oss/finops/internal/sanitize"
	"github.com/finops-oss/finops/internal/source"
)

// jsonResults reports whether standard output carries one JSON object per
// result, for scripts, instead of text for people: --log-format json (or
// ingest --format json). Logs then go to stderr as JSON too.
func (m *Main) jsonResults() bool { return m.logFormat == "json" }

// emitJSON writes v on w as one line of JSON.
func emitJSON(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("json result: %w", err)
	}
	_, err = fmt.Fprintf(w, "%s\n", sanitize.JSON(b)) // no control or invisible character raw
	return err
}

// reportResult is the JSON result of `finops report` in JSON mode.
type reportResult struct {
	Command  string   `json:"command"`
	Period   string   `json:"period"`
	Team     string   `json:"team,omitempty"`
	Status   string   `json:"status"` // ok, partial (exit 3), failed
	ExitCode int      `json:"exit_code"`
	Files    []string `json:"files"`
	Error    string   `json:"error,omitempty"`
}

// redact removes secrets (4 characters or more) from s, and the passwords
// and credential parameters of every URL in it (sanitize.URLs): whatever a
// library or a config puts in a message, it reaches no output, report or
// ledger row.
func redact(s string, secrets ...string) string { return deliver.Redact(s, secrets...) }

// redactErr removes secrets from an error's message; the result still
// unwraps to err, so its exit code is err's.
func redactErr(err error, secrets ...string) error { return source.RedactErr(err, secrets...) }
