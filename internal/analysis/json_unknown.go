package analysis

import "encoding/json"

// The JSON of the figures telemetry measures (measure.go): null where no
// billed GPU-hour behind them was monitored, with the coverage beside them,
// so a script reading `idle_cost` never takes "nobody measured" for "no
// idle". Each type marshals itself through a copy without methods (no
// recursion) and fields of the same JSON name at the outer level, which
// encoding/json prefers over the embedded copy's; those keys come last in
// the object, beside coverage. Decoding needs nothing: null leaves the
// float 0, and the coverage is computed again from the hours.

// MarshalJSON writes the totals with idle_cost, allocated_idle_cost and
// avg_gpu_utilization null where no billed GPU-hour was monitored.
func (t Totals) MarshalJSON() ([]byte, error) {
	type plain Totals
	m := t.IdleReading()
	return json.Marshal(struct {
		plain
		IdleCost          *float64 `json:"idle_cost"`
		AllocatedIdleCost *float64 `json:"allocated_idle_cost"`
		AvgGPUUtilization *float64 `json:"avg_gpu_utilization"`
		Coverage          float64  `json:"coverage"`
	}{plain(t), m.value(t.IdleCost), m.value(t.AllocatedIdleCost), m.value(t.AvgGPUUtilization), t.Coverage()})
}

// MarshalJSON writes the team with idle_cost null where none of its
// resources' billed GPU-hours was monitored.
func (tc TeamCost) MarshalJSON() ([]byte, error) {
	type plain TeamCost
	return json.Marshal(struct {
		plain
		IdleCost *float64 `json:"idle_cost"`
		Coverage float64  `json:"coverage"`
	}{plain(tc), tc.IdleReading().value(tc.IdleCost), tc.Coverage()})
}

// MarshalJSON writes the resource with idle_cost and avg_utilization null
// where none of its billed GPU-hours was monitored.
func (rc ResourceCost) MarshalJSON() ([]byte, error) {
	type plain ResourceCost
	m := rc.IdleReading()
	return json.Marshal(struct {
		plain
		IdleCost       *float64 `json:"idle_cost"`
		AvgUtilization *float64 `json:"avg_utilization"`
		Coverage       float64  `json:"coverage"`
	}{plain(rc), m.value(rc.IdleCost), m.value(rc.AvgUtilization), rc.Coverage()})
}

// MarshalJSON writes the task with idle_cost null where none of the
// GPU-hours it held was monitored.
func (tk TaskCost) MarshalJSON() ([]byte, error) {
	type plain TaskCost
	return json.Marshal(struct {
		plain
		IdleCost *float64 `json:"idle_cost"`
		Coverage float64  `json:"coverage"`
	}{plain(tk), tk.IdleReading().value(tk.IdleCost), tk.Coverage()})
}

// MarshalJSON writes the week with idle_cost null where its coverage is 0.
func (w TrendWeek) MarshalJSON() ([]byte, error) {
	type plain TrendWeek
	return json.Marshal(struct {
		plain
		IdleCost *float64 `json:"idle_cost"`
	}{plain(w), w.IdleReading().value(w.IdleCost)})
}

// MarshalJSON writes the team's week with idle_cost null where its coverage is 0.
func (t TrendTeam) MarshalJSON() ([]byte, error) {
	type plain TrendTeam
	return json.Marshal(struct {
		plain
		IdleCost *float64 `json:"idle_cost"`
	}{plain(t), t.IdleReading().value(t.IdleCost)})
}

// MarshalJSON writes the resource's week with idle_cost null where its coverage is 0.
func (r TrendResource) MarshalJSON() ([]byte, error) {
	type plain TrendResource
	return json.Marshal(struct {
		plain
		IdleCost *float64 `json:"idle_cost"`
	}{plain(r), r.IdleReading().value(r.IdleCost)})
}
