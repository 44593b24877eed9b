package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/finops-oss/finops/internal/amount"
	"github.com/finops-oss/finops/internal/analysis"
	"github.com/finops-oss/finops/internal/sanitize"
)

// The CSV export (--format csv) is for pandas and BI tools: one long-format
// table per file, UTF-8 without a byte-order mark, RFC 4180 (CRLF, quotes
// only where needed), a header row, numbers unformatted and money in the
// reporting currency with a currency column. Every row names its period, so
// the files of several reports concatenate into one table.

// csvTables are the tables of the CSV export in the order they are written,
// each the tail of its file name: finops-<label>-<table>.csv; the last four
// only when the report has their section (csvTablesOf). Read-only.
var csvTables = []string{"by-resource", "by-team", "tasks", "recommendations", "daily",
	"trend", "chargeback", "allocation", "energy"}

// csvSuffix is the file-name tail of a CSV table after the report's base name.
func csvSuffix(table string) string { return "-" + table + ".csv" }

// CSVNames are the files of the CSV export of r named base (BaseName), in
// the order WriteAll writes them: csv is one file per table, so a delivery
// listing a report's files cannot name it base+".csv"; a section r lacks
// (trend, chargeback, allocation, energy) has no file, so none is named.
func CSVNames(r *analysis.Result, base string) []string {
	var names []string
	for _, t := range csvTablesOf(r) {
		names = append(names, base+csvSuffix(t))
	}
	return names
}

// WriteCSV writes one table of the CSV export (one of csvTables).
func WriteCSV(w io.Writer, r *analysis.Result, table string) error {
	if r == nil {
		return fmt.Errorf("report: nil result")
	}
	loc, err := reportZone(r)
	if err != nil {
		return err
	}
	header, rows, err := csvTable(r, table, loc)
	if err != nil {
		return err
	}
	cw := csv.NewWriter(w)
	cw.UseCRLF = true
	lead := []string{"period", "period_start", "period_end"}
	period := []string{csvText(r.Period.Label), r.Period.Start.In(loc).Format("2006-01-02"),
		r.Period.End.In(loc).AddDate(0, 0, -1).Format("2006-01-02")}
	if err := cw.Write(append(lead, header...)); err != nil {
		return fmt.Errorf("report: write %s csv: %w", table, err)
	}
	for _, row := range rows {
		if err := cw.Write(append(append([]string(nil), period...), row...)); err != nil {
			return fmt.Errorf("report: write %s csv: %w", table, err)
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("report: write %s csv: %w", table, err)
	}
	return nil
}

// csvTable returns a table's header and rows, without the period columns.
func csvTable(r *analysis.Result, table string, loc *time.Location) ([]string, [][]string, error) {
	if header, rows, ok := csvSectionTable(r, table, loc); ok {
		return header, rows, nil
	}
	cur := csvText(r.Currency)
	var rows [][]string
	switch table {
	case "by-resource":
		for _, rc := range r.ByResource {
			rows = append(rows, []string{csvText(rc.ResourceID), csvText(rc.ResourceName), csvText(rc.Provider), csvText(rc.GPUModel),
				strconv.Itoa(rc.GPUCount), csvText(rc.Pricing), csvText(rc.Team), cur, amountCell(cur, rc.Cost),
				number(rc.GPUHoursBilled), number(rc.GPUHoursActive), number(rc.GPUHoursIdle), number(rc.GPUHoursUnmonitored),
				measuredAmountCell(cur, rc.IdleCost, rc.IdleReading()), amountCell(cur, rc.UnmonitoredCost),
				measuredNumber(rc.AvgUtilization, rc.IdleReading()), amountCell(cur, rc.PreviousCost),
				number(rc.SaturatedHours)})
		}
		return []string{"resource_id", "resource_name", "provider", "gpu_model", "gpu_count", "pricing", "team", "currency",
			"cost", "gpu_hours_billed", "gpu_hours_active", "gpu_hours_idle", "gpu_hours_unmonitored", "idle_cost",
			"unmonitored_cost", "avg_utilization", "previous_cost", "saturated_hours"}, rows, nil
	case "by-team":
		for _, t := range r.ByTeam {
			budget := "" // none configured: empty, not 0
			if t.Budget != nil {
				budget = amountCell(cur, *t.Budget)
			}
			rows = append(rows, []string{csvText(t.Team), cur, amountCell(cur, t.Cost), amountCell(cur, t.GPUCost),
				measuredAmountCell(cur, t.IdleCost, t.IdleReading()), budget, amountCell(cur, t.PreviousCost), amountCell(cur, t.MonthToDate), amountCell(cur, t.MonthForecast)})
		}
		return []string{"team", "currency", "cost", "gpu_cost", "idle_cost", "monthly_budget", "previous_cost",
			"month_to_date", "month_forecast"}, rows, nil
	case "tasks":
		for _, t := range r.Tasks {
			// No units, no unit cost: blank, as in the workbook, not a 0
			// that reads as "free per unit".
			unitCost := ""
			if t.Units != 0 {
				unitCost = number(t.UnitCost)
			}
			rows = append(rows, []string{csvText(t.Task), csvText(t.Team), csvText(t.Kind), cur, amountCell(cur, t.Cost), number(t.GPUHours),
				measuredAmountCell(cur, t.IdleCost, t.IdleReading()), number(t.Units), csvText(t.Unit), unitCost})
		}
		return []string{"task", "team", "kind", "currency", "cost", "gpu_hours", "idle_cost", "units", "unit", "unit_cost"}, rows, nil
	case "recommendations":
		for _, rec := range r.Recommendations {
			rows = append(rows, []string{csvText(rec.ResourceID), csvText(rec.GPUModel), strconv.Itoa(rec.GPUCount),
				csvText(rec.CurrentMode), csvText(rec.Action), cur, amountCell(cur, rec.CurrentMonthlyCost),
				amountCell(cur, rec.RecommendedMonthlyCost), amountCell(cur, rec.MonthlySavings), number(rec.ActiveHoursPerMonth),
				number(rec.BreakevenHoursPerMonth), csvText(rec.Confidence), csvText(rec.Reason), csvText(rec.ID)})
		}
		// advice_id last: the columns before it stay where they were.
		return []string{"resource_id", "gpu_model", "gpu_count", "current_mode", "action", "currency",
			"current_monthly_cost", "recommended_monthly_cost", "monthly_savings", "active_hours_per_month",
			"breakeven_hours_per_month", "confidence", "reason", "advice_id"}, rows, nil
	case "daily":
		for _, d := range r.Daily {
			rows = append(rows, []string{d.Day.In(loc).Format("2006-01-02"), csvText(d.Team), csvText(d.GPUModel), cur,
				amountCell(cur, d.Cost)})
		}
		return []string{"date", "team", "gpu_model", "currency", "cost"}, rows, nil
	}
	return nil, nil, fmt.Errorf("report: unknown csv table %q", table)
}

// csvText is a cell of text that may come from a bill: a leading =, +, -, @
// would be a formula once the file is opened in a spreadsheet (the same
// guard as the workbook's).
func csvText(s string) string { return sanitize.Cell(s) }

// amountCell is money at the currency's minor unit (cents; whole yen), no
// grouping or symbol: the currency is its own column.
func amountCell(cur string, v float64) string {
	return strconv.FormatFloat(amount.RoundMinor(cur, v), 'f', amount.MinorDigits(cur), 64)
}

// measuredAmountCell is amountCell of a figure telemetry measures, empty
// where nobody measured it (unknown, not 0).
func measuredAmountCell(cur string, v float64, m analysis.Reading) string {
	if !m.Known() {
		return ""
	}
	return amountCell(cur, v)
}

// measuredNumber is number of a figure telemetry measures, empty where
// nobody measured it.
func measuredNumber(v float64, m analysis.Reading) string {
	if !m.Known() {
		return ""
	}
	return number(v)
}

// number is a quantity at full precision, the shortest decimal (never an
// exponent) that reads back as the same float64.
func number(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
