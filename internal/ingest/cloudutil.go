package ingest

import (
	"strings"
	"time"

	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/internal/gpu"
	"github.com/shopspring/decimal"
)

// Helpers shared by the cloud-export parsers (AWS CUR, Azure, GCP).

// Provider names as the clouds' own FOCUS exports spell them.
const (
	providerAWS   = "AWS"
	providerAzure = "Microsoft"
	providerGCP   = "Google Cloud"
)

// UnknownGPUTag is the tag a billing line carries when its SKU, meter or
// instance type looks like a GPU that the catalog does not know; the value is
// the text that looked like one. Such lines are not GPU lines (no model, no
// count) until the catalog learns the type.
const UnknownGPUTag = "finops_unknown_gpu"

// alnumLower keeps only lower-case letters and digits: "lineItem/UnblendedCost"
// and "line_item_unblended_cost" both become "lineitemunblendedcost".
func alnumLower(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
			b.WriteByte(c)
		case c >= 'A' && c <= 'Z':
			b.WriteByte(c + 'a' - 'A')
		}
	}
	return b.String()
}

// cloudRow reads the cells of one record for a cloud parser.
type cloudRow struct {
	file string
	hdr  []string
	rec  []string
	line int
}

func (r *cloudRow) text(i int) string {
	v := cell(r.rec, i)
	if isNull(v) {
		return ""
	}
	return v
}

func (r *cloudRow) err(i int, expected, value string) *ParseError {
	return fieldErr(r.file, r.line, columnName(r.hdr, i), expected, value)
}

// dec reads an optional decimal cell: nil when the column is absent or the
// cell is a null spelling.
func (r *cloudRow) dec(i int) (*decimal.Decimal, *ParseError) {
	v := cell(r.rec, i)
	if isNullNumber(v) {
		return nil, nil
	}
	d, err := parseDecimal(v)
	if err != nil {
		return nil, withRange(r.err(i, "a decimal number like 12.34 or 5e-06", v), err, v)
	}
	return &d, nil
}

// money reads an optional amount of money: dec, within maxAmount.
func (r *cloudRow) money(i int) (*decimal.Decimal, *ParseError) {
	d, perr := r.dec(i)
	if perr == nil && d != nil && checkAmount(*d) != nil {
		return nil, r.err(i, implausibleAmount, cell(r.rec, i))
	}
	return d, perr
}

func decPtr(d decimal.Decimal) *decimal.Decimal { return &d }

// addDec adds b to a, treating nil as absent (nil + nil = nil).
func addDec(a, b *decimal.Decimal) *decimal.Decimal {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	}
	return decPtr(a.Add(*b))
}

// recogniseInstance looks an instance type up in the catalog; a type that
// looks like a GPU machine but is unknown is returned as unknown.
func recogniseInstance(cat *gpu.Catalog, instanceType string) (model string, count int, unknown string) {
	t := strings.TrimSpace(instanceType)
	if t == "" {
		return "", 0, ""
	}
	if m, n, ok := cat.Instance(t); ok {
		return m, n, ""
	}
	// SageMaker prefixes the EC2 type: ml.p4d.24xlarge.
	if s, ok := strings.CutPrefix(strings.ToLower(t), "ml."); ok {
		if m, n, ok := cat.Instance(s); ok {
			return m, n, ""
		}
		t = s
	}
	if gpu.LooksLike(t) {
		return "", 0, instanceType
	}
	return "", 0, ""
}

// setUnknownGPU records text that looks like an unrecognised GPU on a line.
func setUnknownGPU(l *finops.BillingLine, text string) {
	if text == "" || l.GPUModel != "" {
		return
	}
	l.WithTag(UnknownGPUTag, strings.Clone(text))
}

// monthOf names the calendar month of t (UTC) as YYYY-MM.
func monthOf(t time.Time) string { return t.UTC().Format("2006-01") }
