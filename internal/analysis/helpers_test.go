package analysis

import (
	"time"

	"github.com/shopspring/decimal"

	"github.com/finops-oss/finops"
)

// seg is a run of minutes with one utilization; util < 0 means no samples.
type seg struct {
	minutes int
	util    float64
}

// series lays segments end to end from start, one sample per minute, none
// with power.
func series(key, host string, start time.Time, segs ...seg) finops.GPUSeries {
	ps := make([]pseg, len(segs))
	for i, sg := range segs {
		ps[i] = pseg{minutes: sg.minutes, util: sg.util, watts: -1}
	}
	return poweredSeries(key, host, start, ps...)
}

// pseg is a run of minutes with one utilization and one power draw;
// watts < 0 means samples without power, util < 0 no samples at all.
type pseg struct {
	minutes int
	util    float64
	watts   float64
}

// poweredSeries lays segments end to end from start, one sample per minute.
func poweredSeries(key, host string, start time.Time, segs ...pseg) finops.GPUSeries {
	s := finops.GPUSeries{Key: key, Host: host, Index: 0, Interval: time.Minute}
	m := start.Unix() / 60
	for _, sg := range segs {
		for range sg.minutes {
			switch {
			case sg.util < 0:
			case sg.watts < 0:
				s.Add(m, sg.util)
			default:
				s.AddPower(m, sg.util, sg.watts)
			}
			m++
		}
	}
	return s
}

// repeatDays repeats a day's segments n times.
func repeatDays(n int, day ...seg) []seg {
	var out []seg
	for i := 0; i < n; i++ {
		out = append(out, day...)
	}
	return out
}

func dec(s string) *decimal.Decimal {
	d := decimal.RequireFromString(s)
	return &d
}

// gpuLine is a GPU usage line of one resource.
func gpuLine(res, mode, cost string, start, end time.Time, gpus int) finops.BillingLine {
	return finops.BillingLine{Provider: "TestCloud", ResourceID: res, ChargeStart: start, ChargeEnd: end,
		ChargeCategory: finops.ChargeUsage, PricingMode: mode, GPUModel: "A100-80GB", GPUCount: gpus,
		EffectiveCost: dec(cost), Currency: "USD"}
}

// hourlyLines bills one line per hour from start for n hours at price each.
func hourlyLines(res, price string, start time.Time, hours int) []finops.BillingLine {
	var out []finops.BillingLine
	for h := 0; h < hours; h++ {
		s := start.Add(time.Duration(h) * time.Hour)
		out = append(out, gpuLine(res, finops.ModeHourly, price, s, s.Add(time.Hour), 1))
	}
	return out
}
