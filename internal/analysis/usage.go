package analysis

// usage accumulates GPU-minutes and their cost for one resource over one range.
type usage struct {
	billed, active, idle, unmonitored float64 // GPU-minutes
	cost, idleCost, unmonitoredCost   float64
	utilSum, utilN                    float64 // over monitored billed GPU-minutes
	first                             int     // first billed grid index, -1 = none
}

func newUsage() usage { return usage{first: -1} }

func (u *usage) add(t int, class uint8, util float32, rate float64) {
	if u.first < 0 {
		u.first = t
	}
	u.billed++
	u.cost += rate
	switch class {
	case active:
		u.active++
	case idle:
		u.idle++
		u.idleCost += rate
	default:
		u.unmonitored++
		u.unmonitoredCost += rate
		return
	}
	u.utilSum += float64(util)
	u.utilN++
}

func (u *usage) avgUtil() float64 {
	if u.utilN == 0 {
		return 0
	}
	return u.utilSum / u.utilN
}

func (u *usage) unmonitoredShare() float64 {
	if u.billed == 0 {
		return 0
	}
	return u.unmonitored / u.billed
}

// add counts one monitored GPU-minute (1/60 GPU-hour) in its band; the
// target band is [low, high] (80–95% by default).
func (b *UtilBands) add(util, low, high float64) {
	const h = 1.0 / 60
	switch {
	case util < 10:
		b.Idle += h
	case util < 50:
		b.Low += h
	case util < low:
		b.Fair += h
	case util <= high:
		b.Target += h
	default:
		b.Saturated += h
	}
}
