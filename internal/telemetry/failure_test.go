package telemetry

import (
	"errors"
	"testing"
)

// TestFailure: no failed server is no error; a server that gave nothing
// makes the fetch a failure; when each failed server gave some days it is
// partial; every server's error is kept.
func TestFailure(t *testing.T) {
	down, warned := errors.New("lab: connection refused"), errors.New("edge: 2 of 7 days failed")
	for _, tc := range []struct {
		name    string
		rs      []Result
		fail    bool
		partial bool
	}{
		{"all answered", []Result{{Server: "lab", Days: 7}, {Server: "edge", Days: 7}}, false, false},
		{"one partial", []Result{{Server: "lab", Days: 7}, {Server: "edge", Err: warned, Partial: true}}, true, true},
		{"one gave nothing", []Result{{Server: "lab", Err: down}, {Server: "edge", Err: warned, Partial: true}}, true, false},
	} {
		err := Failure(tc.rs)
		if (err != nil) != tc.fail || errors.As(err, new(PartialError)) != tc.partial {
			t.Errorf("%s: %v (partial %v), want failure %v, partial %v", tc.name, err, errors.As(err, new(PartialError)), tc.fail, tc.partial)
		}
		for _, r := range tc.rs {
			if r.Err != nil && !errors.Is(err, r.Err) {
				t.Errorf("%s: %v does not wrap %v", tc.name, err, r.Err)
			}
		}
	}
}
