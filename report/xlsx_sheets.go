package report

// The table sheets of the workbook, one function per sheet. Columns mirror the
// JSON contract so a reader can move between the two.

func (b *book) teams() error {
	st := b.st
	cols := []column{
		{title: "Team", style: st.text},
		{title: "Cost", style: st.money},
		{title: "GPU cost", style: st.money},
		{title: "Idle cost", style: st.money},
		{title: "Idle share of cost", style: st.percent},
		{title: "Monthly budget", style: st.money},
		{title: "Previous period cost", style: st.money},
		{title: "Change vs previous period", style: st.percent},
		{title: "Month to date", style: st.money},
		{title: "Month-end forecast", style: st.money},
		{title: "Forecast share of budget", style: st.percent},
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
		rows = append(rows, []any{t.Team, t.Cost, t.GPUCost, t.IdleCost, share(t.IdleCost, t.Cost), optional(t.Budget),
			blankIfZero(t.PreviousCost), chg, blankIfZero(t.MonthToDate), blankIfZero(t.MonthForecast), ofBudget})
	}
	return b.table(sheetTeams, cols, rows)
}

func (b *book) tasks() error {
	st := b.st
	cols := []column{
		{title: "Task", style: st.text},
		{title: "Team", style: st.text},
		{title: "Kind", style: st.text},
		{title: "Cost", style: st.money},
		{title: "GPU-hours", style: st.hours},
		{title: "Idle cost", style: st.money},
		{title: "Units", style: st.hours},
		{title: "Unit", style: st.text},
		{title: "Unit cost", style: st.unitMoney},
	}
	rows := make([][]any, 0, len(b.r.Tasks))
	for _, t := range b.r.Tasks {
		var unitCost any
		if t.Units != 0 {
			unitCost = t.UnitCost
		}
		rows = append(rows, []any{t.Task, t.Team, t.Kind, t.Cost, t.GPUHours, t.IdleCost, t.Units, t.Unit, unitCost})
	}
	return b.table(sheetTasks, cols, rows)
}

func (b *book) resources() error {
	st := b.st
	cols := []column{
		{title: "Resource ID", style: st.text},
		{title: "Name", style: st.text},
		{title: "Provider", style: st.text},
		{title: "GPU model", style: st.text},
		{title: "GPUs", style: st.count},
		{title: "Pricing", style: st.text},
		{title: "Team", style: st.text},
		{title: "Cost", style: st.money},
		{title: "GPU-hours billed", style: st.hours},
		{title: "GPU-hours active", style: st.hours},
		{title: "GPU-hours idle", style: st.hours},
		{title: "GPU-hours unmonitored", style: st.hours},
		{title: "Idle cost", style: st.money},
		{title: "Unmonitored cost", style: st.money},
		{title: "Avg utilization", style: st.percent},
		{title: "Previous period cost", style: st.money},
		{title: "GPU-h <10% (idle band)", style: st.hours},
		{title: "GPU-h 10–50% (low)", style: st.hours},
		{title: "GPU-h 50–80% (fair)", style: st.hours},
		{title: "GPU-h 80–95% (target)", style: st.hours},
		{title: "GPU-h >95% (saturated)", style: st.hours},
		{title: "Longest >95% run (h)", style: st.hours},
	}
	rows := make([][]any, 0, len(b.r.ByResource))
	for _, rc := range b.r.ByResource {
		bd := rc.Bands
		rows = append(rows, []any{
			rc.ResourceID, rc.ResourceName, rc.Provider, rc.GPUModel, rc.GPUCount, rc.Pricing, rc.Team,
			rc.Cost, rc.GPUHoursBilled, rc.GPUHoursActive, rc.GPUHoursIdle, rc.GPUHoursUnmonitored,
			rc.IdleCost, rc.UnmonitoredCost, rc.AvgUtilization / 100, blankIfZero(rc.PreviousCost),
			bd.Idle, bd.Low, bd.Fair, bd.Target, bd.Saturated, rc.SaturatedHours,
		})
	}
	return b.table(sheetResources, cols, rows)
}

func (b *book) idle() error {
	st := b.st
	zone := b.loc.String()
	cols := []column{
		{title: "Resource ID", style: st.text},
		{title: "GPU", style: st.text},
		{title: "Start (" + zone + ")", style: st.date},
		{title: "End (" + zone + ")", style: st.date},
		{title: "Hours", style: st.hours},
		{title: "Cost", style: st.money},
	}
	rows := make([][]any, 0, len(b.r.IdleSpans))
	for _, s := range b.r.IdleSpans {
		rows = append(rows, []any{s.ResourceID, s.GPU, s.Start, s.End, s.Hours, s.Cost})
	}
	return b.table(sheetIdle, cols, rows)
}

func (b *book) recommendations() error {
	st := b.st
	cols := []column{
		{title: "Resource ID", style: st.text},
		{title: "GPU model", style: st.text},
		{title: "GPUs", style: st.count},
		{title: "Current mode", style: st.text},
		{title: "Action", style: st.text},
		{title: "Current monthly cost", style: st.money},
		{title: "Recommended monthly cost", style: st.money},
		{title: "Monthly savings", style: st.money},
		{title: "Active hours/month per GPU", style: st.hours},
		{title: "Breakeven hours/month", style: st.hours},
		{title: "Confidence", style: st.text},
		{title: "Reason", style: st.text, width: 70},
	}
	rows := make([][]any, 0, len(b.r.Recommendations))
	for _, rec := range b.r.Recommendations {
		rows = append(rows, []any{
			rec.ResourceID, rec.GPUModel, rec.GPUCount, rec.CurrentMode, actionText(rec.Action),
			rec.CurrentMonthlyCost, rec.RecommendedMonthlyCost, rec.MonthlySavings,
			rec.ActiveHoursPerMonth, blankIfZero(rec.BreakevenHoursPerMonth), rec.Confidence, rec.Reason,
		})
	}
	return b.table(sheetRecs, cols, rows)
}

func (b *book) findings() error {
	st := b.st
	cols := []column{
		{title: "Severity", style: st.text},
		{title: "Finding", style: st.text},
		{title: "Team", style: st.text},
		{title: "Resource ID", style: st.text},
		{title: "Money at stake", style: st.money},
		{title: "Basis", style: st.text},
		{title: "What to do", style: st.text, width: 90},
	}
	rows := make([][]any, 0, len(b.r.Findings))
	for _, f := range b.r.Findings {
		rows = append(rows, []any{f.Severity, findingKindText(f.Kind), f.Team, f.ResourceID, f.Money, findingBasis(f.Kind), f.Text})
	}
	return b.table(sheetFindings, cols, rows)
}

func (b *book) pools() error {
	st := b.st
	cols := []column{
		{title: "Provider", style: st.text},
		{title: "GPU model", style: st.text},
		{title: "Resources", style: st.count},
		{title: "GPUs", style: st.count},
		{title: "Current monthly cost", style: st.money},
		{title: "Monthly cards", style: st.count},
		{title: "Pool monthly cost", style: st.money},
		{title: "Monthly savings", style: st.money},
		{title: "Reason", style: st.text, width: 80},
	}
	rows := make([][]any, 0, len(b.r.Pools))
	for _, p := range b.r.Pools {
		rows = append(rows, []any{p.Provider, p.GPUModel, p.Resources, p.GPUs, p.CurrentMonthlyCost, p.MonthlyCards,
			p.PoolMonthlyCost, p.MonthlySavings, p.Reason})
	}
	return b.table(sheetPools, cols, rows)
}
