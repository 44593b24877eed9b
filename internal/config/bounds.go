package config

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"
)

// Every number, duration and enum of finops.yaml has a range here, and a key
// that is given must be in it: 0 is a value like any other, never a quiet
// "use the default" (leave the key out for that). finops.example.yaml shows
// each range beside its key.

// numRange is the range a number may take; an open end excludes its bound.
// NaN and the infinities are never in range.
type numRange struct {
	lo, hi         float64
	loOpen, hiOpen bool
}

func (r numRange) contains(v float64) bool {
	return !math.IsNaN(v) && !math.IsInf(v, 0) &&
		(v > r.lo || !r.loOpen && v == r.lo) && (v < r.hi || !r.hiOpen && v == r.hi)
}

func (r numRange) String() string {
	lo, hi := "at least "+fmtNum(r.lo), "at most "+fmtNum(r.hi)
	if r.loOpen {
		lo = "more than " + fmtNum(r.lo)
	}
	if r.hiOpen {
		hi = "below " + fmtNum(r.hi)
	}
	if !r.loOpen && !r.hiOpen {
		return "between " + fmtNum(r.lo) + " and " + fmtNum(r.hi)
	}
	return lo + " and " + hi
}

func (r numRange) check(key string, v float64) error {
	if r.contains(v) {
		return nil
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return fmt.Errorf("%s: %v is not a finite number; want %s", key, v, r)
	}
	return fmt.Errorf("%s: %s is not %s", key, fmtNum(v), r)
}

// optional checks a key that may be left out (nil).
func (r numRange) optional(key string, v *float64) error {
	if v == nil {
		return nil
	}
	return r.check(key, *v)
}

// fmtNum writes a number as the user would have: 150, 0.1, 1e+20.
func fmtNum(v float64) string {
	if v >= 1e6 && v == math.Trunc(v) && v < 1e15 {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// durRange is the range a duration key may take when given; step, when not
// zero, is the unit it must be a whole number of.
type durRange struct {
	lo, hi, step time.Duration
	stepName     string // "minutes", "seconds"
}

func (r durRange) check(key string, d Duration) error {
	if !d.set {
		return nil
	}
	if d.Duration < r.lo || d.Duration > r.hi {
		return fmt.Errorf("%s: %s is not between %s and %s", key, fmtDuration(d.Duration), fmtDuration(r.lo), fmtDuration(r.hi))
	}
	if r.step > 0 && d.Duration%r.step != 0 {
		return fmt.Errorf("%s: %s: want whole %s", key, fmtDuration(d.Duration), r.stepName)
	}
	return nil
}

// fmtDuration writes whole days as days (366d reads better than 8784h0m0s).
func fmtDuration(d time.Duration) string {
	const day = 24 * time.Hour
	if d >= day && d%day == 0 {
		return strconv.FormatInt(int64(d/day), 10) + "d"
	}
	s := d.String()
	if d != 0 && d%time.Minute == 0 {
		s = strings.TrimSuffix(s, "0s")
		if d%time.Hour == 0 {
			s = strings.TrimSuffix(s, "0m")
		}
	}
	return s
}

// Limits shared by several keys.
const (
	maxMoney    = 1e12 // any amount in a config: budgets, thresholds, purchase costs
	maxPrice    = 1e9  // a price per GPU and period
	hoursPerMon = 744  // 31 days
	minFX       = "0.000000001"
	maxFX       = "1000000000"
	maxSampling = 5 * time.Minute // analysis extends a sample over at most five minutes
	day         = 24 * time.Hour
)

var currencyCode = regexp.MustCompile(`^[A-Za-z]{3}$`)

// checkCurrency checks an ISO 4217 code (CNY, USD); "" is "not given".
func checkCurrency(key, cur string) error {
	if cur == "" || currencyCode.MatchString(cur) {
		return nil
	}
	return fmt.Errorf("%s: %q is not a currency code; want three letters such as CNY or USD", key, cur)
}

// validate checks every threshold against its range, and the
// idle threshold against the target band: a minute cannot be both idle and
// on target.
func (t Thresholds) validate() []error {
	var errs refusals
	errs.add(numRange{lo: 0, hi: 100, loOpen: true, hiOpen: true}.optional("thresholds.idle_utilization", t.IdleUtilization))
	errs.add(durRange{lo: time.Minute, hi: day, step: time.Minute, stepName: "minutes"}.check("thresholds.idle_min_span", t.IdleMinSpan))
	errs.add(durRange{lo: day, hi: 366 * day}.check("thresholds.lookback", t.Lookback))
	errs.add(durRange{lo: time.Minute, hi: 366 * day}.check("thresholds.stale_after", t.StaleAfter))
	errs.add(numRange{lo: 0, hi: 1}.optional("thresholds.release_slack", t.ReleaseSlack))
	errs.add(numRange{lo: 1, hi: 10}.optional("thresholds.spot_inflation", t.SpotInflation))
	errs.add(numRange{lo: 0, hi: hoursPerMon}.optional("thresholds.release_below_hours", t.ReleaseBelowHours))
	errs.add(numRange{lo: 0, hi: 100}.optional("thresholds.min_savings_percent", t.MinSavingsPercent))
	errs.add(numRange{lo: 0, hi: maxMoney}.optional("thresholds.min_savings_amount", t.MinSavingsAmount))
	errs.add(numRange{lo: 0, hi: 1}.optional("thresholds.min_coverage", t.MinCoverage))
	errs.add(numRange{lo: 0, hi: 1}.optional("thresholds.max_restatement_drop", t.MaxRestatementDrop))
	tb := t.TargetBand
	if len(tb) == 0 {
		tb = []float64{DefaultTargetBandLow, DefaultTargetBandHigh}
	}
	if len(tb) != 2 {
		errs.add(fmt.Errorf("thresholds.target_band: want [low, high] with low < high, e.g. [80, 95]"))
		return errs
	}
	ok := true
	for i, v := range tb {
		if err := (numRange{lo: 0, hi: 100}).check(fmt.Sprintf("thresholds.target_band[%d]", i), v); err != nil {
			errs.add(err)
			ok = false
		}
	}
	if ok && tb[0] >= tb[1] {
		errs.add(fmt.Errorf("thresholds.target_band: want [low, high] with low < high, got [%s, %s]", fmtNum(tb[0]), fmtNum(tb[1])))
	}
	idle, given := DefaultIdleUtilization, ""
	if t.IdleUtilization != nil {
		idle = *t.IdleUtilization
	} else {
		given = " (the default)"
	}
	if ok && idle >= tb[0] && idle < 100 {
		errs.add(fmt.Errorf("thresholds.idle_utilization: %s%s is not below the target band's low end %s: a minute cannot be both idle and on target",
			fmtNum(idle), given, fmtNum(tb[0])))
	}
	return errs
}

// validateRanges checks the numbers, durations, enums and names of the keys
// outside thresholds, utilization and purchase (which check their own).
func (c *Config) validateRanges() []error {
	var errs refusals
	errs.add(numRange{lo: 0, hi: 1e9}.check("max_bad_rows", float64(c.MaxBadRows)))
	errs.add(checkCurrency("currency", c.Currency))
	errs = append(errs, c.validateFX()...)
	for _, name := range sortedNames(c.Mappings) {
		errs.add(checkCurrency("mappings."+name+".currency", c.Mappings[name].Currency))
	}
	names := firstSeen{}
	for i, it := range c.Instances {
		at := fmt.Sprintf("instance_types[%d]", i)
		if it.Name == "" || it.GPUModel == "" {
			errs.add(fmt.Errorf("%s: name and gpu_model are required", at))
		}
		errs.add(numRange{lo: 1, hi: 64}.check(at+".gpu_count", float64(it.GPUCount)))
		errs.add(names.once(at+".name", it.Name, at))
	}
	teams := firstSeen{}
	for i, t := range c.Teams {
		at := fmt.Sprintf("teams[%d]", i)
		errs.add(teams.once(at+".name", t.Name, at))
		// A tag is another name for the team: a billing line tagged with
		// it must lead to one team only.
		if t.Tag != "" && !strings.EqualFold(t.Tag, t.Name) {
			errs.add(teams.once(at+".tag", t.Tag, at))
		}
		errs.add(numRange{lo: 0, hi: maxMoney}.optional(at+".monthly_budget", t.MonthlyBudget))
	}
	for i, p := range c.Prices {
		at := c.priceKey(i)
		for _, f := range []struct {
			key string
			v   *float64
		}{{"hourly", p.Hourly}, {"daily", p.Daily}, {"weekly", p.Weekly}, {"monthly", p.Monthly}, {"spot", p.Spot}} {
			errs.add(numRange{lo: 0, hi: maxPrice, loOpen: true}.optional(at+"."+f.key, f.v))
		}
		errs.add(checkCurrency(at+".currency", p.Currency))
		if p.AsOf != "" {
			if _, err := time.Parse(time.DateOnly, p.AsOf); err != nil {
				errs.add(fmt.Errorf("%s.as_of: %q is not a date; want YYYY-MM-DD", at, p.AsOf))
			}
		}
	}
	s3, smtp := c.Publish.S3, c.Publish.SMTP
	errs.add(numRange{lo: 0, hi: 520}.check("publish.s3.retention_weeks", float64(s3.RetentionWeeks)))
	errs.add(durRange{lo: 100 * time.Millisecond, hi: day}.check("publish.s3.timeout", s3.Timeout))
	errs.add(durRange{lo: 100 * time.Millisecond, hi: time.Hour}.check("publish.smtp.timeout", smtp.Timeout))
	return errs
}

// validateFX checks the fx rates: a currency code each, named once however
// it is spelled, and a rate whose products with any amount stay finite.
func (c *Config) validateFX() []error {
	var errs refusals
	lo, hi := decimal.RequireFromString(minFX), decimal.RequireFromString(maxFX)
	seen := firstSeen{}
	for _, cur := range sortedNames(c.FX) {
		key := "fx." + cur
		errs.add(checkCurrency(key, cur))
		errs.add(seen.once(key, cur, key))
		rate, err := parsePositive(c.FX[cur])
		if err != nil {
			errs.add(fmt.Errorf("%s: %w", key, err))
			continue
		}
		if rate.LessThan(lo) || rate.GreaterThan(hi) {
			errs.add(fmt.Errorf("%s: %s is not between %s and %s", key, c.FX[cur], minFX, maxFX))
			continue
		}
		if strings.EqualFold(cur, c.Currency) && !rate.Equal(decimal.NewFromInt(1)) {
			errs.add(fmt.Errorf("%s: %s is the reporting currency (currency: %s), whose rate is 1; remove this key", key, cur, c.Currency))
		}
	}
	return errs
}

// priceKey names prices[i], saying when the row came from price_catalog.
func (c *Config) priceKey(i int) string {
	if c.catalogPath != "" && i >= c.catalogFrom {
		return fmt.Sprintf("price_catalog %s: prices[%d]", c.catalogPath, i-c.catalogFrom)
	}
	return fmt.Sprintf("prices[%d]", i)
}

// refusals collects Validate's errors, skipping the nil ones.
type refusals []error

func (r *refusals) add(err error) {
	if err != nil {
		*r = append(*r, err)
	}
}

// firstSeen remembers where each name (of any case) was first given.
type firstSeen map[string]string

// once refuses a name given before, saying where: `teams[3].name: "nlp" is
// named twice (first at teams[1])`. An empty name is left to the "required"
// checks.
func (f firstSeen) once(key, name, at string) error {
	if name == "" {
		return nil
	}
	k := strings.ToLower(name)
	if first, ok := f[k]; ok {
		return fmt.Errorf("%s: %q is named twice (first at %s)", key, name, first)
	}
	f[k] = at
	return nil
}
