package ingest

import (
	"strings"
	"testing"

	"github.com/finops-oss/finops"
	"github.com/shopspring/decimal"
)

// gpuHours is Σ (end − start) × GPU count over the GPU lines.
func gpuHours(lines []*finops.BillingLine) float64 {
	var h float64
	for _, l := range lines {
		if l.GPUModel != "" {
			h += l.ChargeEnd.Sub(l.ChargeStart).Hours() * float64(l.GPUCount)
		}
	}
	return h
}

// An AutoDL-style bill with its own GPU数量 column: the built-in mapping
// reads it as the GPU count (it maps none), and says so in a warning, as the
// column is not in the header the mapping was written for.
func TestRentalGPUCountColumn(t *testing.T) {
	sum, sink := mustParse(t, "rental/autodl_gpu_count.csv", Options{})
	if sum.Mapping != "autodl" || sum.Rows != 3 {
		t.Fatalf("mapping %q rows %d, want autodl and 3", sum.Mapping, sum.Rows)
	}
	want := []struct {
		model string
		count int
	}{
		{"A100-80GB", 2}, // A100-SXM4-80GB, GPU数量 2
		{"RTX 4090", 2},  // "RTX 4090 * 2" and GPU数量 2 agree
		{"", 0},          // 无卡模式, GPU数量 0
	}
	for i, w := range want {
		if l := sink.lines[i]; l.GPUModel != w.model || l.GPUCount != w.count {
			t.Errorf("line %d: %q × %d, want %q × %d", l.Line, l.GPUModel, l.GPUCount, w.model, w.count)
		}
	}
	// The monthly rental runs 2026-10-01 → 10-31 China time, 30 days = 720 h,
	// on 2 GPUs: 1,440 GPU-hours (720 when GPU数量 was ignored); the hourly
	// one 09:00 → 12:00 on 2 GPUs: 6. 1,440 + 6 = 1,446.
	if got := gpuHours(sink.lines); got != 1446 {
		t.Errorf("GPU-hours %v, want 1446", got)
	}
	// ¥6,000.00 + ¥12.60 + ¥0.50 = ¥6,013.10
	if want := decimal.RequireFromString("6013.10"); !sum.TotalCost.Equal(want) {
		t.Errorf("total %s, want %s", sum.TotalCost, want)
	}
	if sum.WarningCount != 1 {
		t.Fatalf("warnings %d (%v), want 1", sum.WarningCount, sum.Warnings)
	}
	wantErrParts(t, sum.Warnings[0], "autodl_gpu_count.csv:1", `built-in mapping "autodl"`,
		`"GPU数量" (read as the GPU count`)
}

// The GPU-count column under the built-in and configured mappings: the
// names it is found by, a count that disagrees with the GPU text, a cell that
// is no count, two GPU-count columns, and the other columns a built-in
// mapping warns about.
func TestRentalGPUCountCases(t *testing.T) {
	lab := ColumnMapping{Name: "lab", Currency: "USD", Columns: map[string]string{
		"resource_id": "Instance", "gpu_model": "Model", "start": "From", "end": "To", "cost": "Paid"}}
	const autodl = "实例ID,GPU型号,计费方式,开始时间,结束时间,应付金额"
	const span = "2026-11-02 09:00,2026-11-02 10:00"
	for _, c := range []struct {
		name     string
		csv      string
		mappings []ColumnMapping
		count    int      // GPU count of the one line, when it is read
		bad      []string // parts of the first row's rejection (a good row follows); nil: none
		warn     []string // parts of the one warning; nil: none
	}{
		{
			name:  "documented autodl header: nothing to warn about",
			csv:   autodl + ",实例名称,原价\na,A100-SXM4-80GB * 1,按量," + span + ",1.00,x,1.10\n",
			count: 1,
		},
		{
			name:  "卡数 with a unit in brackets and 卡 in the cell",
			csv:   "实例ID,GPU型号,卡数(张),计费方式,开始时间,结束时间,应付金额\na,RTX 4090,8卡,按量," + span + ",1.00\n",
			count: 8,
			warn:  []string{`"卡数(张)" (read as the GPU count`},
		},
		{
			name:     "a configured mapping without gpu_count reads num_gpus, unannounced",
			csv:      "Instance,Model,num_gpus,From,To,Paid\nvm,H100,4," + span + ",9.00\n",
			mappings: []ColumnMapping{lab},
			count:    4,
		},
		{
			name:     "GPU Count in English",
			csv:      "Instance,Model,GPU Count,From,To,Paid\nvm,H100,3," + span + ",9.00\n",
			mappings: []ColumnMapping{lab},
			count:    3,
		},
		{
			name: "the count disagrees with the GPU text",
			csv:  autodl + ",GPU数量\na,RTX 4090 * 2,按量," + span + ",1.00,4\nb,RTX 4090,按量," + span + ",1.00,1\n",
			bad:  []string{"bill.csv:2", `field "GPU数量"`, `column "GPU型号"`, `"RTX 4090 * 2": 2 GPUs`, `found "4"`},
			warn: []string{`"GPU数量" (read as the GPU count`},
		},
		{
			name: "a cell that is no count",
			csv:  autodl + ",GPU数量\na,RTX 4090,按量," + span + ",1.00,两张\nb,RTX 4090,按量," + span + ",1.00,1\n",
			bad:  []string{"bill.csv:2", `field "GPU数量"`, "a GPU count like 2", "by its name", `found "两张"`},
			warn: []string{`"GPU数量"`},
		},
		{
			name:  "two GPU-count columns: neither is read",
			csv:   autodl + ",GPU数量,卡数\na,RTX 4090,按量," + span + ",1.00,2,2\n",
			count: 1,
			warn:  []string{`"GPU数量" (not read: a GPU count`, `"卡数" (not read: a GPU count`},
		},
		{
			name:  "a quantity, a second amount and a currency",
			csv:   autodl + ",数量,优惠后金额,币种,单价,时长\na,RTX 4090,按量," + span + ",1.00,2,0.90,USD,1.00,1h\n",
			count: 1,
			warn: []string{"bill.csv:1", `"数量" (not read: a quantity`, `"优惠后金额" (not read: a second amount; the cost is "应付金额"`,
				`"币种" (not read: a currency; the mapping assumes CNY)`, "copy the mapping into the config"},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			sink := &recSink{}
			sum, err := Parse(t.Context(), strings.NewReader(c.csv), Options{Name: "bill.csv", Mappings: c.mappings, MaxBadRows: 1}, sink)
			if err != nil {
				t.Fatal(err)
			}
			if c.bad != nil {
				if len(sum.Rejected) != 1 {
					t.Fatalf("rejected %v, want 1", sum.Rejected)
				}
				wantErrParts(t, sum.Rejected[0], c.bad...)
			} else if len(sink.lines) != 1 || sink.lines[0].GPUCount != c.count {
				t.Fatalf("lines %v (rejected %v), want one of %d GPUs", sink.lines, sum.Rejected, c.count)
			}
			if c.warn == nil {
				if sum.WarningCount != 0 {
					t.Errorf("warnings %v, want none", sum.Warnings)
				}
				return
			}
			if sum.WarningCount != 1 {
				t.Fatalf("warnings %v, want 1", sum.Warnings)
			}
			wantErrParts(t, sum.Warnings[0], c.warn...)
			for _, quiet := range []string{"单价", "时长"} {
				if strings.Contains(sum.Warnings[0].Error(), quiet) {
					t.Errorf("warning names %s, which changes nothing: %v", quiet, sum.Warnings[0])
				}
			}
		})
	}
}
