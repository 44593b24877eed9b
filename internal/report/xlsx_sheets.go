package report

import "github.com/finops-oss/finops/internal/workbook"

// The table sheets of the workbook, one function per sheet. Columns mirror the
// JSON contract so a reader can move between the two.

func (b *book) teams() error {
	st := b.st
	cols := []workbook.Column{
		{Title: "Team", Style: st.text},
		{Title: "Cost", Style: st.money},
		{Title: "GPU cost", Style: st.money},
		{Title: "Idle cost", Style: st.money},
		{Title: "Idle share of cost", Style: st.percent},
		{Title: "Monthly budget", Style: st.money},
		{Title: "Previous period cost", Style: st.money},
		{Title: "Change vs previous period", Style: st.percent},
		{Title: "Month to date", Style: st.money},
		{Title: "Month-end forecast", Style: st.money},
		{Title: "Forecast share of budget", Style: st.percent},
	}
	rows := make([][]any, 0, len(b.r.ByTeam))
	for _, t := range b.r.ByTeam {
		var chg, ofBudget any
		if c, ok := change(t.Cost, t.PreviousCost); ok {
			chg = c
		}
		if t.Budget != nil && *t.Budget > 0 && t.MonthForecast != 0 {
			ofBudget = t.MonthForecast / *t.Budget
		}
		m := t.IdleReading()
		rows = append(rows, []any{t.Team, t.Cost, t.GPUCost, measuredCell(t.IdleCost, m), measuredCell(share(t.IdleCost, t.Cost), m), optional(t.Budget),
			blankIfZero(t.PreviousCost), chg, blankIfZero(t.MonthToDate), blankIfZero(t.MonthForecast), ofBudget})
	}
	cols, rows = b.withEnergy(cols, rows, func(i int) string { return b.r.ByTeam[i].Team }, teamEnergy)
	return b.table(sheetTeams, cols, rows)
}

func (b *book) tasks() error {
	st := b.st
	cols := []workbook.Column{
		{Title: "Task", Style: st.text},
		{Title: "Team", Style: st.text},
		{Title: "Kind", Style: st.text},
		{Title: "Cost", Style: st.money},
		{Title: "GPU-hours", Style: st.hours},
		{Title: "Idle cost", Style: st.money},
		{Title: "Units", Style: st.hours},
		{Title: "Unit", Style: st.text},
		{Title: "Unit cost", Style: st.unitMoney},
	}
	rows := make([][]any, 0, len(b.r.Tasks))
	for _, t := range b.r.Tasks {
		var unitCost any
		if t.Units != 0 {
			unitCost = t.UnitCost
		}
		rows = append(rows, []any{t.Task, t.Team, t.Kind, t.Cost, t.GPUHours, measuredCell(t.IdleCost, t.IdleReading()), t.Units, t.Unit, unitCost})
	}
	cols, rows = b.withEnergy(cols, rows, func(i int) string { return b.r.Tasks[i].Task }, taskEnergy)
	return b.table(sheetTasks, cols, rows)
}

func (b *book) resources() error {
	st := b.st
	cols := []workbook.Column{
		{Title: "Resource ID", Style: st.wrapped, Max: 26},
		{Title: "Name", Style: st.text},
		{Title: "Provider", Style: st.text},
		{Title: "GPU model", Style: st.wrapped, Max: 12},
		{Title: "GPUs", Style: st.count, Width: 7},
		{Title: "Pricing", Style: st.text},
		{Title: "Team", Style: st.wrapped, Max: 14},
		{Title: "Cost", Style: st.money, Width: 14},
		{Title: "GPU-hours billed", Style: st.hours, Width: 11},
		{Title: "GPU-hours active", Style: st.hours},
		{Title: "GPU-hours idle", Style: st.hours, Width: 11},
		{Title: "GPU-hours unmonitored", Style: st.hours},
		{Title: "Idle cost", Style: st.money, Width: 14},
		{Title: "Unmonitored cost", Style: st.money, Width: 14},
		{Title: "Avg utilization", Style: st.percent, Width: 11},
		{Title: "Previous period cost", Style: st.money},
		{Title: "GPU-h <10% (idle band)", Style: st.hours},
		{Title: "GPU-h 10–50% (low)", Style: st.hours},
		{Title: "GPU-h 50–80% (fair)", Style: st.hours},
		{Title: "GPU-h 80–95% (target)", Style: st.hours},
		{Title: "GPU-h >95% (saturated)", Style: st.hours},
		{Title: "Longest >95% run (h)", Style: st.hours},
	}
	rows := make([][]any, 0, len(b.r.ByResource))
	for _, rc := range b.r.ByResource {
		bd := rc.Bands
		rows = append(rows, []any{
			rc.ResourceID, rc.ResourceName, rc.Provider, rc.GPUModel, rc.GPUCount, rc.Pricing, rc.Team,
			rc.Cost, rc.GPUHoursBilled, rc.GPUHoursActive, rc.GPUHoursIdle, rc.GPUHoursUnmonitored,
			measuredCell(rc.IdleCost, rc.IdleReading()), rc.UnmonitoredCost, measuredCell(rc.AvgUtilization/100, rc.IdleReading()),
			blankIfZero(rc.PreviousCost),
			bd.Idle, bd.Low, bd.Fair, bd.Target, bd.Saturated, rc.SaturatedHours,
		})
	}
	cols, rows = b.withEnergy(cols, rows, func(i int) string { return b.r.ByResource[i].ResourceID }, resourceEnergy)
	cols, rows, keys := keysFirst(cols, rows, resourceKeys)
	return b.printTable(sheetResources, cols, rows, keys)
}

func (b *book) idle() error {
	st := b.st
	zone := b.loc.String()
	cols := []workbook.Column{
		{Title: "Resource ID", Style: st.wrapped, Max: 26},
		{Title: "GPU", Style: st.wrapped, Max: 26},
		{Title: "Start (" + zone + ")", Style: st.date},
		{Title: "End (" + zone + ")", Style: st.date},
		{Title: "Hours", Style: st.hours},
		{Title: "Cost", Style: st.money},
	}
	rows := make([][]any, 0, len(b.r.IdleSpans))
	for _, s := range b.r.IdleSpans {
		rows = append(rows, []any{s.ResourceID, s.GPU, s.Start, s.End, s.Hours, s.Cost})
	}
	return b.table(sheetIdle, cols, rows)
}

func (b *book) recommendations() error {
	st := b.st
	cols := []workbook.Column{
		{Title: "Resource ID", Style: st.wrapped, Max: 22},
		{Title: "GPU model", Style: st.text},
		{Title: "GPUs", Style: st.count},
		{Title: "Current mode", Style: st.text},
		{Title: "Action", Style: st.wrapped, Max: 16},
		{Title: "Current monthly cost", Style: st.money, Width: 14},
		{Title: "Recommended monthly cost", Style: st.money, Width: 14},
		{Title: "Monthly savings", Style: st.money, Width: 14},
		{Title: "Active hours/month per GPU", Style: st.hours},
		{Title: "Breakeven hours/month", Style: st.hours},
		{Title: "Confidence", Style: st.text, Width: 11},
		{Title: "Reason", Style: st.wrapped, Width: 44}, // wrapped: a 70-wide Reason was cut on the printed page
		{Title: "Advice ID", Style: st.text},
	}
	rows := make([][]any, 0, len(b.r.Recommendations))
	for _, rec := range b.r.Recommendations {
		rows = append(rows, []any{
			rec.ResourceID, rec.GPUModel, rec.GPUCount, rec.CurrentMode, actionText(rec.Action),
			rec.CurrentMonthlyCost, rec.RecommendedMonthlyCost, rec.MonthlySavings,
			rec.ActiveHoursPerMonth, blankIfZero(rec.BreakevenHoursPerMonth), rec.Confidence, rec.Reason, rec.ID,
		})
	}
	cols, rows, keys := keysFirst(cols, rows, recKeys)
	return b.printTable(sheetRecs, cols, rows, keys)
}

func (b *book) findings() error {
	st := b.st
	// Long text wraps in columns that fit one landscape page wide at a
	// readable size: a 90-wide "What to do" that spilled past its column
	// printed the sheet at 3 pt.
	cols := []workbook.Column{
		{Title: "Severity", Style: st.text},
		{Title: "Finding", Style: st.wrapped, Max: 20},
		{Title: "Team", Style: st.wrapped, Max: 14},
		{Title: "Resource ID", Style: st.wrapped, Max: 22},
		{Title: "Money at stake", Style: st.money},
		{Title: "Basis", Style: st.text},
		{Title: "What to do", Style: st.wrapped, Width: 40},
	}
	rows := make([][]any, 0, len(b.r.Findings))
	for _, f := range b.r.Findings {
		rows = append(rows, []any{f.Severity, findingTitle(f, b.r.Recommendations), f.Team, f.ResourceID, f.Money, findingBasis(f.Kind), f.Text})
	}
	return b.table(sheetFindings, cols, rows)
}

func (b *book) pools() error {
	st := b.st
	cols := []workbook.Column{
		{Title: "Provider", Style: st.text},
		{Title: "GPU model", Style: st.text},
		{Title: "Resources", Style: st.count},
		{Title: "GPUs", Style: st.count},
		{Title: "Current monthly cost", Style: st.money},
		{Title: "Monthly cards", Style: st.count},
		{Title: "Pool monthly cost", Style: st.money},
		{Title: "Monthly savings", Style: st.money},
		{Title: "Reason", Style: st.wrapped, Width: 44},
	}
	rows := make([][]any, 0, len(b.r.Pools))
	for _, p := range b.r.Pools {
		rows = append(rows, []any{p.Provider, p.GPUModel, p.Resources, p.GPUs, p.CurrentMonthlyCost, p.MonthlyCards,
			p.PoolMonthlyCost, p.MonthlySavings, p.Reason})
	}
	return b.table(sheetPools, cols, rows)
}
