package plan

import (
	"encoding/json"
	"fmt"
	"io"
)

// WriteJSON writes the whole plan as indented JSON: every number at full
// precision (money to the cent) with the formula that made it.
func WriteJSON(w io.Writer, r *Result) error {
	if r == nil {
		return fmt.Errorf("plan: nil result")
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(r); err != nil {
		return fmt.Errorf("plan: write json: %w", err)
	}
	return nil
}
