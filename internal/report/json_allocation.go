package report

import (
	"slices"

	"github.com/finops-oss/finops/internal/analysis"
)

// roundedAllocation rounds the allocation's and the chargeback's money with
// m, on copies. They are whole minor units already (largest remainder), so
// rounding only drops the float's last bits and the sums still hold.
func roundedAllocation(n *analysis.Result, m func(*float64)) {
	n.Allocation = slices.Clone(n.Allocation)
	for i := range n.Allocation {
		al := &n.Allocation[i]
		al.Groups = slices.Clone(al.Groups)
		for j := range al.Groups {
			m(&al.Groups[j].Cost)
		}
	}
	if n.Chargeback == nil {
		return
	}
	cb := *n.Chargeback
	for _, v := range []*float64{&cb.Total, &cb.UnallocatedPool, &cb.IdlePool} {
		m(v)
	}
	cb.Teams = slices.Clone(cb.Teams)
	for i := range cb.Teams {
		t := &cb.Teams[i]
		for _, v := range []*float64{&t.Direct, &t.Unallocated, &t.Idle, &t.ChargedBack} {
			m(v)
		}
	}
	n.Chargeback = &cb
}
