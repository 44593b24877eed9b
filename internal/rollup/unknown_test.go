package rollup

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// TestRollupReadsUnknown: a shard of schema version 2 writes null for the
// idle cost and utilization nobody measured (cnShard: gpu-c, 300 GPU-hours,
// none monitored); the rollup reads it without naming coverage or null as
// dropped, and its combined summary keeps gpu-c's idle null: the cn half of
// nlp's hours unmonitored make the combined figures partly measured, never
// a 0 from cn counted as measured.
func TestRollupReadsUnknown(t *testing.T) {
	cn := summaryBytes(t, cnShard())
	for _, want := range []string{`"schema_version": "2"`, `"idle_cost": null`, `"avg_utilization": null`, `"coverage": 0`} {
		if !bytes.Contains(cn, []byte(want)) {
			t.Fatalf("cn's summary lacks %s:\n%s", want, cn)
		}
	}
	shards, err := load(t, map[string][]byte{"eu": summaryBytes(t, euShard()), "cn": cn}, "eu", "cn")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range shards {
		if len(s.Dropped) > 0 {
			t.Errorf("shard %s: dropped %q, want nothing (coverage and null are read)", s.Name, s.Dropped)
		}
	}
	r, err := Combine(context.Background(), shards, Options{Rates: []Rate{usdcny(t)}})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Totals struct {
			IdleCost *float64 `json:"idle_cost"`
			Coverage float64  `json:"coverage"`
		} `json:"totals"`
		ByResource []struct {
			ResourceID string   `json:"resource_id"`
			IdleCost   *float64 `json:"idle_cost"`
			Util       *float64 `json:"avg_utilization"`
		} `json:"by_resource"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	// By hand: eu 100 h billed, 50 monitored; cn 300 billed, none: 50/400.
	if doc.Totals.IdleCost == nil || doc.Totals.Coverage != 50.0/400 {
		t.Errorf("combined idle %v at coverage %v: want a (lower-bound) figure at 0.125", doc.Totals.IdleCost, doc.Totals.Coverage)
	}
	found := false
	for _, rc := range doc.ByResource {
		unknown := rc.ResourceID == "gpu-b" || strings.HasSuffix(rc.ResourceID, "gpu-c")
		if rc.ResourceID == "gpu-c" || strings.HasSuffix(rc.ResourceID, "gpu-c") {
			found = true
		}
		if unknown != (rc.IdleCost == nil) || unknown != (rc.Util == nil) {
			t.Errorf("%s: idle %v, utilization %v; want null exactly for the unmonitored gpu-b and gpu-c", rc.ResourceID, rc.IdleCost, rc.Util)
		}
	}
	if !found {
		t.Errorf("no gpu-c in the combined resources: %s", b)
	}
}
