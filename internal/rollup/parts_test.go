package rollup

import (
	"strings"
	"testing"
)

// TestDecodeRefusesDuplicateKeys: a key twice in one object, at any depth,
// is refused naming the key and its path. encoding/json would keep the
// second "cost" (50.00) while the parts add up to the first (100.00); keys
// equal but for case are one key to it, so they are refused too.
func TestDecodeRefusesDuplicateKeys(t *testing.T) {
	good := string(summaryBytes(t, euShard()))
	for _, c := range []struct {
		name, old, new string
		want           []string
	}{
		{"two cost keys in totals", `"cost": 100,`, `"cost": 100, "cost": 50,`,
			[]string{"shard eu:", `key "cost" appears twice at totals.cost`, "report the shard again"}},
		{"two cost keys in a team", `"team": "vision",`, `"team": "vision", "cost": 0,`,
			[]string{`key "cost" appears twice at by_team[1].cost`}},
		{"two currencies", `"currency": "USD",`, `"currency": "USD", "currency": "CNY",`,
			[]string{`key "currency" appears twice at currency`}},
		{"Cost beside cost", `"cost": 100,`, `"cost": 100, "Cost": 50,`,
			[]string{`keys "cost" and "Cost", one key to a JSON reader, both appear at totals.Cost`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if !strings.Contains(good, c.old) {
				t.Fatalf("the summary has no %q to edit", c.old)
			}
			_, err := Decode([]byte(strings.Replace(good, c.old, c.new, 1)), "eu")
			if err == nil || !IsRefusal(err) {
				t.Fatalf("err %v: want a refusal", err)
			}
			containsAll(t, "error", err.Error(), c.want...)
		})
	}
	if _, err := Decode([]byte(good), "eu"); err != nil {
		t.Errorf("the summary as written: %v", err)
	}
}

// TestDecodeRefusesPartsThatDoNotAddUp: a shard counts only as what its
// parts add up to. euShard (helpers_test.go) by hand: teams 60.00 + 40.00
// = 100.00 = cost; resources 60.00 + 30.00 = 90.00 = gpu_cost; gpu 90.00
// + non-GPU 10.00 = cost. Each edit below breaks one of those by a cent
// or more and is refused naming the shard, the total and the parts' sum;
// a negative total is refused even when its parts add up to it.
func TestDecodeRefusesPartsThatDoNotAddUp(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func(map[string]any)
		want []string
	}{
		{"total a cent high", func(d map[string]any) { totals(d)["cost"] = 100.01 },
			[]string{"shard eu: totals.cost is $100.01 but by_team[].cost add up to $100.00"}},
		{"a team a cent low", func(d map[string]any) { team(d, 0)["cost"] = 59.99 },
			[]string{"shard eu: totals.cost is $100.00 but by_team[].cost add up to $99.99", "a shard counts only as what its parts add up to"}},
		{"a team dropped", func(d map[string]any) { d["by_team"] = d["by_team"].([]any)[:1] },
			[]string{"totals.cost is $100.00 but by_team[].cost add up to $60.00"}},
		{"a resource doubled", func(d map[string]any) { resource(d, 1)["cost"] = 60.0 },
			[]string{"totals.gpu_cost is $90.00 but by_resource[].cost add up to $120.00"}},
		{"gpu cost off", func(d map[string]any) {
			totals(d)["gpu_cost"] = 120.0
			resource(d, 1)["cost"] = 60.0 // resources agree with it; cost does not
		}, []string{"totals.cost is $100.00 but totals.gpu_cost + totals.non_gpu_cost add up to $130.00"}},
		{"non-GPU off", func(d map[string]any) { totals(d)["non_gpu_cost"] = 9.0 },
			[]string{"totals.cost is $100.00 but totals.gpu_cost + totals.non_gpu_cost add up to $99.00"}},
		{"a negative total", func(d map[string]any) {
			// Every amount negated: the parts add up, the total is below zero.
			totals(d)["cost"], totals(d)["gpu_cost"], totals(d)["non_gpu_cost"] = -100.0, -90.0, -10.0
			team(d, 0)["cost"], team(d, 1)["cost"] = -60.0, -40.0
			resource(d, 0)["cost"], resource(d, 1)["cost"] = -60.0, -30.0
		}, []string{"shard eu: totals.cost is -$100.00, below zero"}},
		{"an amount past any bill", func(d map[string]any) { totals(d)["cost"] = 1e300 },
			[]string{"shard eu: totals.cost is 1e+300 USD, beyond any bill"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Decode(edited(t, euShard(), c.edit), "eu")
			if err == nil || !IsRefusal(err) {
				t.Fatalf("err %v: want a refusal", err)
			}
			containsAll(t, "error", err.Error(), c.want...)
		})
	}
	// JPY has no minor unit: a yen off is refused, and the message has no
	// decimals (cnShard in JPY: 500 = 500).
	r := cnShard()
	r.Currency = "JPY"
	_, err := Decode(edited(t, r, func(d map[string]any) { team(d, 0)["cost"] = 501.0 }), "jp")
	if err == nil || !strings.Contains(err.Error(), "totals.cost is JP¥500 but by_team[].cost add up to JP¥501") {
		t.Errorf("a yen off: %v", err)
	}
}

func totals(d map[string]any) map[string]any { return d["totals"].(map[string]any) }
func team(d map[string]any, i int) map[string]any {
	return d["by_team"].([]any)[i].(map[string]any)
}
func resource(d map[string]any, i int) map[string]any {
	return d["by_resource"].([]any)[i].(map[string]any)
}
