package watch

import (
	"encoding/json"
	"time"

	"github.com/finops-oss/finops/internal/analysis"
)

// Input is the JSON document a command reads on its stdin: the whole
// decision, as data. A program that wants more than the FINOPS_* variables
// (the rate, the idle cost, the argv it was run with) parses it (jq, a
// JSON library) instead of having values spliced into its command line.
type Input struct {
	Action   string        `json:"action"` // stop or release
	Resource InputResource `json:"resource"`
	// IdleSince is when the spell began: the idle run's start, or when
	// the resource passed its max_lifetime.
	IdleSince time.Time `json:"idle_since"`
	DecidedAt time.Time `json:"decided_at"`
	At        time.Time `json:"at"` // when the command was started
	// HourlyRate is what the resource costs an hour when the action was
	// decided, IdleCost that rate over IdleSince to At; both null when the
	// rate is unknown.
	HourlyRate *float64 `json:"hourly_rate"`
	IdleCost   *float64 `json:"idle_cost"`
	Currency   string   `json:"currency"`
	Argv       []string `json:"argv"`
}

// InputResource is the resource's fields, the same values as the FINOPS_*
// variables (Fields).
type InputResource struct {
	ID       string `json:"id"`
	ShortID  string `json:"short_id"`
	Team     string `json:"team"`
	Name     string `json:"name"`
	Provider string `json:"provider"`
	Model    string `json:"model"`
	Mode     string `json:"mode"`
	GPUs     int    `json:"gpus"`
}

// NewInput is the document for one action on r; rate is per hour.
func NewInput(action string, r *analysis.ResourceNow, idleSince, decidedAt, at time.Time, rate float64, rateKnown bool,
	currency string, argv []string) Input {
	in := Input{Action: action, IdleSince: idleSince.UTC(), DecidedAt: decidedAt.UTC(), At: at.UTC(), Currency: currency,
		Argv: append([]string{}, argv...),
		Resource: InputResource{ID: r.ID, ShortID: analysis.ShortResourceID(r.ID), Team: r.Team, Name: r.Name,
			Provider: r.Provider, Model: r.Model, Mode: r.Mode, GPUs: r.GPUs}}
	if rateKnown {
		cost := rate * max(at.Sub(idleSince).Hours(), 0)
		in.HourlyRate, in.IdleCost = &rate, &cost
	}
	return in
}

// JSON is the document as written to stdin, one line ending in a newline
// (a shell's `read` and jq both take it). Invalid UTF-8 in a value is
// written as U+FFFD, as encoding/json does.
func (in Input) JSON() ([]byte, error) {
	b, err := json.Marshal(in)
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
