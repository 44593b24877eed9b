package report

import (
	"fmt"
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/analysis"
)

// trendResult is handResult with five weeks of history, W43 to W47 (the
// report's week), made by hand:
//
//	ml-train (gpu-a100-1): 3000, 3200, 3100, 3300, 4160; idle 500 a week,
//	  750 in W47; 3 runs of train-llm in W47, 1000 a run.
//	hostileFormula (hostileScript): 340 a week, idle 80.
//	totals: 3340, 3540, 3440, 3640, 4500.
//	W43's telemetry covered 50 %: its idle is a lower bound.
//	movers, against the mean of W43…W46:
//	  total: mean 3490, +1010, +28.9 %;
//	  ml-train and gpu-a100-1: mean 3150, +1010, +32.1 %;
//	  hostileFormula and hostileScript: mean 340, no change.
//	flags (W47): total [3340, 3640] + max(150, 349) = 3989 < 4500: above;
//	  ml-train [3000, 3300] + max(150, 315) = 3615 < 4160: above;
//	  hostileFormula 340 in [340 − 34, 340 + 34].
func trendResult(t testing.TB) *analysis.Result {
	r := handResult(t)
	loc := shanghai(t)
	ml := []float64{3000, 3200, 3100, 3300, 4160}
	tr := &analysis.Trend{WeeksAsked: 8, AbsentWeeks: []string{"2026-W40", "2026-W41", "2026-W42"}, EnoughHistory: true}
	for i := range 5 {
		start := time.Date(2026, 10, 19+7*i, 0, 0, 0, 0, loc)
		flag, mlFlag, idle := analysis.AnomalyNoHist, analysis.AnomalyNoHist, 500.0
		var units []analysis.UnitCost
		if i == 4 {
			flag, mlFlag, idle = analysis.AnomalyHigh, analysis.AnomalyHigh, 750
			units = []analysis.UnitCost{{Unit: "run", Units: 3, Cost: 3000, UnitCost: 1000}}
		}
		hostileFlag := analysis.AnomalyNoHist
		if i == 4 {
			hostileFlag = analysis.AnomalyNone
		}
		tr.Weeks = append(tr.Weeks, analysis.TrendWeek{
			Label: fmt.Sprintf("2026-W%02d", 43+i), Start: start.UTC(), End: start.AddDate(0, 0, 7).UTC(),
			Cost: ml[i] + 340, IdleCost: idle + 80, Coverage: map[bool]float64{true: 0.5, false: 1}[i == 0],
			IdleLowerBound: i == 0, Anomaly: flag,
			Teams: []analysis.TrendTeam{
				{Team: "ml-train", Cost: ml[i], IdleCost: idle, Coverage: 1, Anomaly: mlFlag, UnitCosts: units},
				{Team: hostileFormula, Cost: 340, IdleCost: 80, Coverage: 1, Anomaly: hostileFlag},
			},
			Resources: []analysis.TrendResource{
				{ResourceID: "gpu-a100-1", Team: "ml-train", Cost: ml[i], IdleCost: idle, Anomaly: mlFlag},
				{ResourceID: hostileScript, Team: hostileFormula, Cost: 340, IdleCost: 80, Anomaly: hostileFlag},
			},
		})
	}
	pct := func(v float64) *float64 { return &v }
	tr.TotalMover = &analysis.Mover{Kind: analysis.MoverTotal, Name: "total", Cost: 4500, Mean: 3490, BaselineWeeks: 4, Change: 1010, ChangePct: pct(1010.0 / 3490)}
	mlMover := analysis.Mover{Kind: analysis.MoverTeam, Name: "ml-train", Cost: 4160, Mean: 3150, BaselineWeeks: 4, Change: 1010, ChangePct: pct(1010.0 / 3150)}
	hostileMover := analysis.Mover{Kind: analysis.MoverTeam, Name: hostileFormula, Cost: 340, Mean: 340, BaselineWeeks: 4, ChangePct: pct(0)}
	gpuMover := analysis.Mover{Kind: analysis.MoverResource, Name: "gpu-a100-1", Team: "ml-train", Cost: 4160, Mean: 3150, BaselineWeeks: 4,
		Change: 1010, ChangePct: pct(1010.0 / 3150)}
	scriptMover := analysis.Mover{Kind: analysis.MoverResource, Name: hostileScript, Team: hostileFormula, Cost: 340, Mean: 340, BaselineWeeks: 4,
		ChangePct: pct(0)}
	tr.TeamMovers = []analysis.Mover{mlMover, hostileMover}
	tr.ResourceMovers = []analysis.Mover{gpuMover, scriptMover}
	tr.TopMovers = []analysis.Mover{mlMover, gpuMover}
	r.Trend = tr
	return r
}
