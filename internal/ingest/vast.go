package ingest

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/internal/gpu"
	"github.com/shopspring/decimal"
)

// Vast.ai's billing API, in three shapes (amounts in USD):
//
//   - charges, GET /api/v0/charges/ → {"results": [...], "next_token": …}:
//     {"type": "instance", "source": "instance-123", "description": "Instance
//     123 Charges - 1 day", "amount": 0.333, "start": 1791504000, "end": …,
//     "metadata": {"label": …}, "items": [{"type": "gpu", "description":
//     "0.202 hours at $0.533/hour", "amount": 0.107, "items": []}, …]}
//     Each leaf item becomes a line (gpu, disk, bandwidth apart); where the
//     items do not add up to their parent, a line of type "other" carries the
//     difference, so the lines always sum to the charge.
//   - legacy invoices, GET /users/me/invoices → {"invoices": [...]}: numbers
//     as strings, unix-second timestamps: {"type": "charge", "description":
//     "Instance 123 GPU charge: hours * $/hr", "timestamp": 1633036800,
//     "quantity": "10.000", "rate": "0.1000", "amount": "1.000",
//     "instance_id": 123}. A GPU charge in hours covers quantity hours from
//     its timestamp (an assumption: the API says only when it was charged);
//     other charges are instants at their timestamp.
//   - invoices, GET /api/v1/invoices/ → {"results": [...]}: payments into
//     the balance ({"when": …, "service": "stripe_payments", "amount_cents":
//     5000, "is_credit": true}); only instance_prepay (reserved instances)
//     is spend, a purchase line.
//
// Records that are not spend (deposits, payouts, transfers) are counted in
// Summary.Skipped. Amounts may come as amount (dollars) or amount_cents.
// Vast.ai names no GPU model in its bills: a GPU charge whose model is not
// in its metadata (gpu_name, num_gpus) or description is reported with
// Tags[UnknownGPUTag] and is not a GPU line.
const vastProvider = "Vast.ai"

type vastCharge struct {
	Type        string                     `json:"type"`
	Source      json.RawMessage            `json:"source"`
	Description string                     `json:"description"`
	Amount      json.RawMessage            `json:"amount"`
	AmountCents json.RawMessage            `json:"amount_cents"`
	Start       json.RawMessage            `json:"start"`
	End         json.RawMessage            `json:"end"`
	Day         json.RawMessage            `json:"day"`
	Metadata    map[string]json.RawMessage `json:"metadata"`
	Items       []vastCharge               `json:"items"`

	// legacy invoices and /api/v1/invoices/
	Timestamp  json.RawMessage `json:"timestamp"`
	Quantity   json.RawMessage `json:"quantity"`
	Rate       json.RawMessage `json:"rate"`
	InstanceID json.RawMessage `json:"instance_id"`
	When       json.RawMessage `json:"when"`
	Service    string          `json:"service"`
}

type vastParser struct {
	file string
	cat  *gpu.Catalog
	in   *interner
}

func newVastParser(opt Options) *vastParser {
	return &vastParser{file: opt.Name, cat: opt.Catalog, in: newInterner()}
}

func (p *vastParser) record(raw []byte, path string, line int) ([]*finops.BillingLine, *ParseError) {
	var c vastCharge
	if perr := unmarshalRecord(p.file, line, path, raw, &c); perr != nil {
		return nil, perr
	}
	switch {
	case len(c.When) > 0 || c.Service != "":
		return p.payment(&c, path, line)
	case len(c.Timestamp) > 0:
		return p.invoice(&c, path, line)
	}
	return p.charge(&c, path, line)
}

func (p *vastParser) bad(line int, path, field, expected string, v []byte) *ParseError {
	return jsonErr(p.file, line, path, field, expected, v)
}

// amount reads amount (dollars) or amount_cents.
func (p *vastParser) amount(c *vastCharge, path string, line int) (decimal.Decimal, *ParseError) {
	if d, present, err := jsonDecimal(c.Amount); present {
		if err != nil {
			return d, p.bad(line, path, "amount", "an amount in USD like 0.333 or \"1.000\"", c.Amount)
		}
		if checkAmount(d) != nil {
			return d, p.bad(line, path, "amount", implausibleAmount, c.Amount)
		}
		return d, nil
	}
	cents, present, err := jsonDecimal(c.AmountCents)
	if present && err == nil && cents.IsInteger() {
		if checkAmount(cents.Shift(-2)) != nil {
			return cents, p.bad(line, path, "amount_cents", implausibleAmount, c.AmountCents)
		}
		return cents.Shift(-2), nil
	}
	if present {
		return cents, p.bad(line, path, "amount_cents", "whole cents like 5000", c.AmountCents)
	}
	return cents, p.bad(line, path, "amount", "an amount in USD (amount or amount_cents)", nil)
}

func (p *vastParser) time(raw json.RawMessage, path, field string, line int) (time.Time, bool, *ParseError) {
	t, present, err := unixTime(raw)
	if err != nil {
		return t, present, p.bad(line, path, field, "unix seconds like 1791504000", raw)
	}
	return t, present && !t.Equal(time.Unix(0, 0)), nil
}

// chargeSpan is the charge's start (or its day) and end; a charge without
// an end, or ending at its start, lasts to its start's next midnight when
// it starts at one (daily charge rows carry the day's midnight as start
// and end), else is an instant.
func (p *vastParser) chargeSpan(c *vastCharge, path string, line int) (time.Time, time.Time, *ParseError) {
	start, ok, perr := p.time(c.Start, path, "start", line)
	if perr != nil {
		return time.Time{}, time.Time{}, perr
	}
	if !ok {
		if start, ok, perr = p.time(c.Day, path, "day", line); perr != nil {
			return time.Time{}, time.Time{}, perr
		}
		if !ok {
			return time.Time{}, time.Time{}, p.bad(line, path, "start", "unix seconds like 1791504000", c.Start)
		}
	}
	end, ok, perr := p.time(c.End, path, "end", line)
	if perr != nil {
		return time.Time{}, time.Time{}, perr
	}
	if !ok || end.Equal(start) {
		end = start
		// Daily charge rows carry the day's midnight as start and end.
		if start.Equal(start.Truncate(24 * time.Hour)) {
			end = start.Add(24 * time.Hour)
		}
	}
	if end.Before(start) {
		return time.Time{}, time.Time{}, p.bad(line, path, "end", "an end after the start "+start.Format(time.RFC3339), c.End)
	}
	return start, end, nil
}

// charge turns a /api/v0/charges/ record into one line per leaf item.
func (p *vastParser) charge(c *vastCharge, path string, line int) ([]*finops.BillingLine, *ParseError) {
	total, perr := p.amount(c, path, line)
	if perr != nil {
		return nil, perr
	}
	start, end, perr := p.chargeSpan(c, path, line)
	if perr != nil {
		return nil, perr
	}
	id := jsonText(c.Source)
	if id == "" {
		id = jsonText(c.Metadata["endpoint_id"])
		if id != "" {
			id = "endpoint-" + id
		}
	}
	if id == "" {
		return nil, p.bad(line, path, "source", `the charged resource, like "instance-123"`, c.Source)
	}
	base := finops.BillingLine{
		Line:           line,
		Provider:       vastProvider,
		ChargeCategory: finops.ChargeUsage,
		ResourceID:     id,
		ResourceType:   p.in.get(strings.ToLower(c.Type)),
		Service:        p.in.get(strings.ToLower(c.Type)),
		Currency:       "USD",
	}
	setMode(&base, finops.ModeHourly)
	if label := jsonText(c.Metadata["label"]); label != "" {
		base.Tags = map[string]string{"label": p.in.get(label)}
	}
	model, count := p.metadataGPU(c.Metadata)
	var lines []*finops.BillingLine
	var walk func(it *vastCharge, amount decimal.Decimal, start, end time.Time, itemPath string, depth int) *ParseError
	walk = func(it *vastCharge, amount decimal.Decimal, start, end time.Time, itemPath string, depth int) *ParseError {
		if len(it.Items) == 0 || depth > maxJSONDepth {
			lines = append(lines, p.chargeLine(&base, it, amount, start, end, depth == 0, c, model, count))
			return nil
		}
		sum := decimal.Zero
		for i := range it.Items {
			sub := &it.Items[i]
			subPath := itemPath + ".items[" + strconv.Itoa(i) + "]"
			a, perr := p.amount(sub, subPath, line)
			if perr != nil {
				return perr
			}
			s, e := start, end
			if t, ok, perr := p.time(sub.Start, subPath, "start", line); perr != nil {
				return perr
			} else if ok {
				s = t
			}
			if t, ok, perr := p.time(sub.End, subPath, "end", line); perr != nil {
				return perr
			} else if ok {
				e = t
			}
			if e.Before(s) {
				return p.bad(line, subPath, "end", "an end after the start "+s.Format(time.RFC3339), sub.End)
			}
			sum = sum.Add(a)
			if perr := walk(sub, a, s, e, subPath, depth+1); perr != nil {
				return perr
			}
		}
		if rest := amount.Sub(sum); !rest.IsZero() {
			lines = append(lines, p.chargeLine(&base, &vastCharge{Type: "other",
				Description: "part of the charge its items do not itemise"}, rest, start, end, false, c, model, count))
		}
		return nil
	}
	if perr := walk(c, total, start, end, path, 0); perr != nil {
		return nil, perr
	}
	return lines, nil
}

// chargeLine is one line of a charge: the charge itself when it has no
// items (top), else one leaf item.
func (p *vastParser) chargeLine(base *finops.BillingLine, it *vastCharge, amount decimal.Decimal, start, end time.Time,
	top bool, c *vastCharge, model string, count int) *finops.BillingLine {
	l := *base
	l.ChargeStart, l.ChargeEnd = start, end
	l.BilledCost, l.EffectiveCost = &amount, &amount
	if l.Tags != nil {
		l.Tags = map[string]string{"label": l.Tags["label"]}
	}
	kind := strings.ToLower(it.Type)
	if !top {
		l.SKU = p.in.get(kind)
	}
	if q, unit := leadingQuantity(it.Description); q != nil {
		l.UsageQuantity, l.UsageUnit = q, p.in.get(unit)
	}
	// The GPU part of an instance charge: the item of type gpu, or the whole
	// charge when it is not itemised.
	if kind == "gpu" || top && strings.EqualFold(c.Type, "instance") {
		if model == "" {
			if m, n, ok := p.cat.GPUName(c.Description); ok {
				model, count = m, n
			}
		}
		if model != "" {
			l.GPUModel, l.GPUCount = p.in.get(model), count
		} else {
			if l.Tags == nil {
				l.Tags = map[string]string{}
			}
			text := c.Description
			if !top && it.Description != "" {
				text = c.Description + ": " + it.Description
			}
			l.Tags[UnknownGPUTag] = strings.TrimSpace(text)
		}
	}
	return &l
}

// metadataGPU reads the GPU of a charge's metadata when it carries one.
func (p *vastParser) metadataGPU(md map[string]json.RawMessage) (string, int) {
	name := jsonText(md["gpu_name"])
	if name == "" {
		return "", 0
	}
	m, n, ok := p.cat.GPUName(strings.ReplaceAll(name, "_", " "))
	if !ok {
		return "", 0
	}
	if k, present, err := jsonDecimal(md["num_gpus"]); present && err == nil && k.IsInteger() &&
		k.IntPart() >= 1 && k.IntPart() <= gpu.MaxPerMachine {
		n = int(k.IntPart())
	}
	return m, n
}

// invoice turns a legacy /users/me/invoices row into a line; rows that are
// not charges (payments, credits) are skipped.
func (p *vastParser) invoice(c *vastCharge, path string, line int) ([]*finops.BillingLine, *ParseError) {
	if t := strings.ToLower(c.Type); t != "charge" && !(t == "" && len(c.InstanceID) > 0) {
		return nil, nil
	}
	amount, perr := p.amount(c, path, line)
	if perr != nil {
		return nil, perr
	}
	ts, ok, perr := p.time(c.Timestamp, path, "timestamp", line)
	if perr != nil {
		return nil, perr
	}
	if !ok {
		return nil, p.bad(line, path, "timestamp", "unix seconds like 1633036800", c.Timestamp)
	}
	id := jsonText(c.InstanceID)
	if id != "" {
		id = "instance-" + id
	} else if id = c.Description; id == "" {
		return nil, p.bad(line, path, "instance_id", "the charged instance, like 123", c.InstanceID)
	}
	l := &finops.BillingLine{
		Line:           line,
		Provider:       vastProvider,
		ChargeStart:    ts,
		ChargeEnd:      ts,
		ChargeCategory: finops.ChargeUsage,
		ResourceID:     id,
		ResourceType:   "instance",
		BilledCost:     &amount,
		EffectiveCost:  &amount,
		Currency:       "USD",
	}
	setMode(l, finops.ModeHourly)
	q, present, err := jsonDecimal(c.Quantity)
	if present && err != nil {
		return nil, p.bad(line, path, "quantity", `a quantity like "10.000"`, c.Quantity)
	}
	isGPU := gpu.LooksLike(c.Description)
	if present {
		l.UsageQuantity = &q
		// "Instance 123 GPU charge: hours * $/hr": quantity is GPU hours.
		// Storage charges count GB × hours and stay instants.
		if isGPU && strings.Contains(strings.ToLower(c.Description), "hour") {
			l.UsageUnit = "Hours"
			if q.IsPositive() && q.LessThan(decimal.NewFromInt(24*366)) {
				l.ChargeEnd = ts.Add(time.Duration(q.Shift(9).Mul(decimal.NewFromInt(3600)).IntPart()))
			}
		}
	}
	if isGPU {
		if m, n, ok := p.cat.GPUName(c.Description); ok {
			l.GPUModel, l.GPUCount = p.in.get(m), n
		} else {
			l.Tags = map[string]string{UnknownGPUTag: c.Description}
		}
	}
	return []*finops.BillingLine{l}, nil
}

// payment reads a /api/v1/invoices/ row: a reserved-instance prepayment is a
// purchase; deposits, payouts and transfers are no spend and are skipped.
func (p *vastParser) payment(c *vastCharge, path string, line int) ([]*finops.BillingLine, *ParseError) {
	if !strings.EqualFold(c.Service, "instance_prepay") {
		return nil, nil
	}
	amount, perr := p.amount(c, path, line)
	if perr != nil {
		return nil, perr
	}
	when, ok, perr := p.time(c.When, path, "when", line)
	if perr != nil {
		return nil, perr
	}
	if !ok {
		return nil, p.bad(line, path, "when", "unix seconds like 1633036800", c.When)
	}
	id := jsonText(c.InstanceID)
	if id == "" {
		id = jsonText(c.Metadata["instance_id"])
	}
	if id != "" {
		id = "instance-" + id
	} else {
		id = "vast-prepay"
	}
	l := &finops.BillingLine{
		Line:            line,
		Provider:        vastProvider,
		ChargeStart:     when,
		ChargeEnd:       when,
		ChargeCategory:  finops.ChargePurchase,
		ChargeFrequency: "one-time",
		ResourceID:      id,
		ResourceType:    "instance",
		BilledCost:      &amount,
		EffectiveCost:   &amount,
		Currency:        "USD",
		PricingMode:     finops.ModeCommitted,
		PricingCategory: "committed",
	}
	return []*finops.BillingLine{l}, nil
}

// leadingQuantity reads "0.202 hours at $0.533/hour" or "79.1 GB
// Downloaded" as a quantity and its unit.
func leadingQuantity(s string) (*decimal.Decimal, string) {
	s = strings.TrimSpace(s)
	i := strings.IndexFunc(s, func(r rune) bool { return !(r >= '0' && r <= '9' || r == '.') })
	if i <= 0 {
		return nil, ""
	}
	d, err := parseDecimal(s[:i])
	if err != nil {
		return nil, ""
	}
	rest := strings.TrimSpace(s[i:])
	j := strings.IndexFunc(rest, unicode.IsSpace)
	if j < 0 {
		j = len(rest)
	}
	unit := rest[:j]
	switch strings.ToLower(unit) {
	case "hour", "hours", "hr", "hrs":
		return &d, "Hours"
	case "gb", "gib", "tb", "mb":
		return &d, strings.ToUpper(unit)
	}
	return nil, ""
}
