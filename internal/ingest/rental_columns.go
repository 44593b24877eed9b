package ingest

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
)

// Columns of a rental CSV that a mapping does not name but that change what
// its rows mean. A GPU count is read when the mapping maps none (autodl's
// GPU型号 "A100-SXM4-80GB" beside GPU数量 2 is two GPUs, not one); the others
// are only warned about, and only under a built-in mapping, whose header
// finops was written for: a configured mapping says itself which columns it
// reads.

// gpuCountHeaders are the names (rentalHeaderKey) of columns that hold a
// row's number of GPUs.
var gpuCountHeaders = []string{
	"gpu数量", "gpu数", "gpu个数", "gpu卡数", "gpu张数", "卡数", "卡数量", "显卡数", "显卡数量", "显卡个数",
	"gpucount", "gpus", "numgpus", "numofgpus", "numberofgpus", "gpunum", "gpunumber", "gpuqty", "gpuquantity", "gpucnt",
}

// quantityHeaders are names of columns that may multiply a row: how many
// machines (or of anything) it bills.
var quantityHeaders = []string{
	"数量", "台数", "实例数", "实例数量", "实例个数", "购买数量", "机器数", "机器数量", "节点数", "节点数量",
	"quantity", "qty", "count", "instances", "instancecount", "numinstances", "numberofinstances",
	"nodes", "nodecount", "numnodes",
}

// currencyHeaders are names of a currency column.
var currencyHeaders = []string{"币种", "货币", "货币类型", "结算币种", "currency", "currencycode", "billingcurrency"}

// amountWords mark a column holding an amount of money: a second cost column
// (优惠后, 实付金额, 原价 …) beside the one the mapping reads as the cost.
var amountWords = []string{
	"金额", "价", "费用", "优惠", "折扣", "抵扣", "支付", "实付", "扣费", "扣款",
	"cost", "amount", "price", "discount", "fee", "paid", "payment",
}

// rentalHeaderKey is a header name as the lists above spell it: lower case,
// without spaces, "_", "-", "." or "/", and without a trailing unit in
// brackets ("GPU数量(个)", "卡数（张）", "Cost [CNY]").
func rentalHeaderKey(h string) string {
	h = strings.TrimSpace(h)
	for _, pair := range [][2]string{{"(", ")"}, {"（", "）"}, {"[", "]"}} {
		if strings.HasSuffix(h, pair[1]) {
			if i := strings.LastIndex(h, pair[0]); i > 0 {
				h = h[:i]
			}
		}
	}
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) || r == '_' || r == '-' || r == '.' || r == '/' {
			return -1
		}
		return unicode.ToLower(r)
	}, h)
}

// findGPUCountColumn is the column of hdr that holds a GPU count by its name,
// among the columns not in used; -1 when there is none, or more than one
// (finops does not pick one of two).
func findGPUCountColumn(hdr []string, used map[int]bool) int {
	found := -1
	for i, h := range hdr {
		if used[i] || !slices.Contains(gpuCountHeaders, rentalHeaderKey(h)) {
			continue
		}
		if found >= 0 {
			return -1
		}
		found = i
	}
	return found
}

// headerWarning is the one warning of a rental CSV whose header matches a
// built-in mapping but holds columns that mapping was not written for and
// that change what a row means: the GPU count it reads (autoCount, or -1),
// quantities, currencies and second amounts it does not. nil when there are
// none.
func (p *rentalParser) headerWarning(line int) *ParseError {
	m := p.builtin
	if m == nil || len(m.documented) == 0 {
		return nil
	}
	used := map[int]bool{}
	for _, i := range p.cols {
		used[i] = true
	}
	documented := map[string]bool{}
	for _, h := range m.documented {
		documented[strings.ToLower(strings.TrimSpace(h))] = true
	}
	var notes []string
	for i, h := range p.hdr {
		name := strings.TrimSpace(h)
		if name == "" || documented[strings.ToLower(name)] {
			continue
		}
		key := rentalHeaderKey(name)
		switch {
		case i == p.autoCount:
			notes = append(notes, fmt.Sprintf("%q (read as the GPU count of the row)", name))
		case used[i]:
		case slices.Contains(gpuCountHeaders, key):
			notes = append(notes, fmt.Sprintf("%q (not read: a GPU count, but the row's GPU count comes from elsewhere or another column also names one)", name))
		case slices.Contains(quantityHeaders, key):
			notes = append(notes, fmt.Sprintf("%q (not read: a quantity; finops reads each row as one machine, so if it counts machines or GPUs the GPU-hours are wrong)", name))
		case slices.Contains(currencyHeaders, key):
			notes = append(notes, fmt.Sprintf("%q (not read: a currency; the mapping assumes %s)", name, p.currencyOr("none")))
		case containsAny(key, amountWords) && !strings.Contains(key, "单价") && !strings.Contains(key, "unitprice"):
			notes = append(notes, fmt.Sprintf("%q (not read: a second amount; the cost is %q%s)", name, m.Columns["cost"], p.listCostNote(m)))
		}
	}
	if len(notes) == 0 {
		return nil
	}
	return &ParseError{File: p.file, Line: line, Msg: fmt.Sprintf("the header matches the built-in mapping %q, "+
		"but has columns that mapping was not written for and that change what a row means: %s; "+
		"if one of them holds what the row's cost, currency or GPU count is, copy the mapping into the config under "+
		"another name and map it (cost, currency, gpu_count; see docs/INGEST.md, Rental-platform CSVs)",
		m.Name, strings.Join(notes, ", "))}
}

func (p *rentalParser) currencyOr(none string) string {
	if p.currency != "" {
		return p.currency
	}
	return none
}

func (p *rentalParser) listCostNote(m *ColumnMapping) string {
	if _, ok := p.cols["list_cost"]; ok {
		lc := m.Columns["list_cost"]
		return fmt.Sprintf(" and the list cost %q", lc)
	}
	return ""
}

func containsAny(s string, words []string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}
