package report

import "github.com/finops-oss/finops/internal/analysis"

// Unknown is not zero (docs/METRICS.md): a figure nobody measured reads
// "unknown" (a share of a total "—") on screen and is a blank cell in the
// workbook and CSV; one measured in part carries "≥". Every writer asks the
// figure's analysis.Reading through these, so none prints ¥0.00 or 0.0 %
// for a GPU whose exporter died.

// unknownText is a figure nobody measured, on screen.
const unknownText = "unknown"

// unknownShare is a share of a total whose part nobody measured.
const unknownShare = "—"

// measuredMoney is an idle cost as it reads: "unknown", "≥ ¥1,234.00" or "¥1,234.00".
func measuredMoney(cur string, v float64, m analysis.Reading) string {
	switch {
	case !m.Known():
		return unknownText
	case m.LowerBound():
		return "≥ " + money(cur, v)
	}
	return money(cur, v)
}

// measuredShare is part ÷ whole as a percentage, where part is a measured
// figure: "—" when nobody measured it, "≥ 17.0%" when only partly.
func measuredShare(part, whole float64, m analysis.Reading) string {
	switch {
	case !m.Known():
		return unknownShare
	case m.LowerBound():
		return "≥ " + percent(share(part, whole))
	}
	return percent(share(part, whole))
}

// measuredUtil is a mean utilization (0–100): "unknown" when no minute was
// monitored. It is a mean over the monitored minutes, not a sum, so a partly
// monitored one is no lower bound and carries no "≥" (its coverage is shown
// beside it where there is room).
func measuredUtil(u float64, m analysis.Reading) string {
	if !m.Known() {
		return unknownText
	}
	return utilPct(u)
}

// measuredCell is a workbook or CSV value of a measured figure: nil (a blank
// cell) when nobody measured it.
func measuredCell(v float64, m analysis.Reading) any {
	if !m.Known() {
		return nil
	}
	return v
}
