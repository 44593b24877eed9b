package ingest

import (
	"fmt"
	"strings"

	"github.com/finops-oss/finops"
)

// FOCUS versions before 1.0 named some columns otherwise (FOCUS_Spec
// CHANGELOG.md, "Columns History"): 1.0-preview renamed AmortizedCost to
// EffectiveCost and ChargeType to ChargeCategory, and added
// ChargeSubcategory, UsageQuantity and UsageUnit; 1.0 renamed UsageQuantity
// and UsageUnit to ConsumedQuantity and ConsumedUnit and Region to RegionId,
// replaced ChargeSubcategory by ChargeClass, CommitmentDiscountStatus and a
// Credit charge category, and renamed PricingCategory's On-Demand and
// Commitment-Based to Standard and Committed. finops reads the older columns
// as their 1.x successors, only where a file lacks the successor.
const (
	focusV05      = "0.5"
	focusVPreview = "1.0-preview"
)

// legacyFOCUS is what an older FOCUS file's header says.
type legacyFOCUS struct {
	version     string   // focusV05, focusVPreview, or "" for 1.x
	renamed     []string // "AmortizedCost as EffectiveCost", … for the warning
	chargeType  bool     // the charge category comes from 0.5's ChargeType
	subcategory int      // 1.0-preview's ChargeSubcategory column, or -1
}

// focusLegacy reads a FOCUS header for columns of versions before 1.0.
func focusLegacy(idx *columns) legacyFOCUS {
	has := func(n string) bool { return idx.col(n) >= 0 }
	lf := legacyFOCUS{subcategory: -1}
	for _, r := range [][2]string{
		{"AmortizedCost", "EffectiveCost"}, {"ChargeType", "ChargeCategory"},
		{"UsageQuantity", "ConsumedQuantity"}, {"UsageUnit", "ConsumedUnit"}, {"Region", "RegionId"},
		{"BilledCurrency", "BillingCurrency"}, {"Provider", "ProviderName"},
	} {
		if has(r[0]) && !has(r[1]) {
			lf.renamed = append(lf.renamed, r[0]+" as "+r[1])
		}
	}
	lf.chargeType = has("ChargeType") && !has("ChargeCategory")
	switch {
	case lf.chargeType || has("AmortizedCost") && !has("EffectiveCost"):
		lf.version = focusV05
	case has("ChargeCategory") && (has("ChargeSubcategory") || has("UsageQuantity")) &&
		!has("ChargeClass") && !has("ConsumedQuantity"):
		lf.version = focusVPreview
	}
	if lf.version == focusVPreview && !has("ChargeClass") {
		lf.subcategory = idx.col("ChargeSubcategory")
	}
	return lf
}

// noteHeader says which FOCUS version an older file is and how it is read.
func (p *focusParser) noteHeader(s *Summary, line int) {
	lf := p.legacy
	if lf.version == "" {
		return
	}
	s.FormatVersion = lf.version
	how := strings.Join(lf.renamed, ", ")
	var lacks string
	switch lf.version {
	case focusV05:
		lacks = "; FOCUS 0.5 has no ChargeClass and no commitment columns and counts credits and refunds as Adjustment, " +
			"so finops cannot tell them apart"
	case focusVPreview:
		if how != "" {
			how += ", "
		}
		how += "ChargeSubcategory Credit as ChargeCategory Credit, Refund as ChargeClass Correction, " +
			"Used/Unused Commitment as CommitmentDiscountStatus, PricingCategory On-Demand as Standard and Commitment-Based as Committed"
	}
	s.Warn(&ParseError{File: p.file, Line: line, Msg: fmt.Sprintf(
		"a FOCUS %s export, read as FOCUS 1.x: %s%s; export FOCUS 1.0 or later where the provider offers it",
		lf.version, how, lacks)})
}

// legacyCategory reads a FOCUS 0.5 ChargeType as a 1.x charge category.
func (p *focusParser) legacyCategory(rec []string, line int) (string, *ParseError) {
	v := p.text(rec, p.category)
	switch strings.ToLower(v) {
	case "usage":
		return finops.ChargeUsage, nil
	case "purchase":
		return finops.ChargePurchase, nil
	case "tax":
		return finops.ChargeTax, nil
	case "adjustment":
		return finops.ChargeAdjustment, nil
	case "credit": // not a 0.5 value, but unambiguous
		return finops.ChargeCredit, nil
	}
	return "", p.err(line, p.category, "a FOCUS 0.5 ChargeType: Usage, Purchase, Tax or Adjustment", v)
}

// applySubcategory reads a 1.0-preview ChargeSubcategory into the 1.x
// columns that replaced it. Other values (On-Demand, Rounding Error, General
// Adjustment) change nothing.
func (p *focusParser) applySubcategory(rec []string, l *finops.BillingLine) {
	switch strings.ToLower(p.text(rec, p.legacy.subcategory)) {
	case "credit":
		if l.ChargeCategory == finops.ChargeAdjustment {
			l.ChargeCategory = finops.ChargeCredit
		}
	case "refund":
		l.ChargeClass = "correction"
	case "used commitment":
		if l.CommitmentStatus == "" {
			l.CommitmentStatus = "used"
		}
	case "unused commitment":
		if l.CommitmentStatus == "" {
			l.CommitmentStatus = "unused"
		}
	}
}

// focusPricingCategory reads 1.0-preview's PricingCategory values as 1.0's.
func focusPricingCategory(v string) string {
	switch v {
	case "on-demand":
		return "standard"
	case "commitment-based":
		return "committed"
	}
	return v
}
