package analysis

// rates spreads each GPU usage line's cost uniformly over its charge period.
// It returns, per grid minute, the number of GPU slots billed and the cost of
// one billed GPU-minute. For a single line that is cost / (minutes × gpu_count),
// metrics.md's rate. Where lines overlap (a usage line and its surcharge, say)
// their costs add up on the same GPUs instead of inventing extra GPUs: slots
// are capped at the resource's GPU count, so GPU-hours are never counted twice
// and every unit of cost still lands on some minute.
func (r *gpuResource) rates(tl timeline) (rate []float64, slots []uint16) {
	total := make([]float64, tl.n) // cost of all GPUs in minute t
	slots = make([]uint16, tl.n)
	for _, c := range r.charges {
		for t := tl.clamp(c.m0 - tl.t0); t < tl.clamp(c.m1-tl.t0); t++ {
			total[t] += c.per
			slots[t] += uint16(c.gpus)
		}
	}
	for t := range total {
		if slots[t] > uint16(r.gpuCount) {
			slots[t] = uint16(r.gpuCount)
		}
		if slots[t] > 0 {
			total[t] /= float64(slots[t])
		}
	}
	return total, slots
}
