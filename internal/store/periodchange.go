package store

import (
	"context"
	"database/sql"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/shopspring/decimal"
)

// A delivery of a provider-declared billing period (a CUR, Data Exports or
// Azure export manifest; an Azure export's actual or amortized cost)
// replaces the period's earlier delivery whole (replacePeriod): that is how
// clouds restate a period, and the one case where an import may remove
// charges no retained file holds. It is never silent: the two runs are
// compared by charge (identityHash) and what changed — both totals, the
// drop, the charges only in the old run — is returned with the import
// (ImportResult.PeriodChange) and kept (period_changes, migration 15), so
// that ingest prints it, its JSON carries it, and every report of the
// period names it in its data-quality box; a drop beyond
// thresholds.max_restatement_drop makes that report incomplete.

// PeriodChange is what a delivery changed in its billing period.
type PeriodChange struct {
	URI      string // the new run's first file
	Period   string // the restatement key, "azure-export:…:2026-01"
	Old, New string // the deliveries: the one(s) replaced, the new one
	// OldTotal and NewTotal are the runs' costs per currency: "14.98 USD",
	// "14.98 EUR + 1.00 USD".
	OldTotal, NewTotal string
	// Drop is (old - new) / old of the currency whose total fell most: 0.87
	// for 14.98 → 2.00; negative when every currency grew.
	Drop float64
	// OnlyOld is how many charges of the old run the new one lacks, and
	// OnlyOldCost what they cost.
	OnlyOld     int
	OnlyOldCost string
	At          time.Time
}

// String words the change: "replaces run X of P: 14.98 → 2.00 USD, −87 %;
// charges only in the old run: 3 (12.98 USD)".
func (c PeriodChange) String() string {
	amounts := c.OldTotal + " → " + c.NewTotal
	if o, n, ok := oneCurrency(c.OldTotal, c.NewTotal); ok {
		amounts = o + " → " + n
	}
	pct := fmt.Sprintf("%+.0f %%", -100*c.Drop)
	switch pct {
	case "+0 %", "-0 %":
		pct = "±0 %"
	}
	return fmt.Sprintf("replaces run %s of %s: %s, %s; charges only in the old run: %d (%s)", c.Old, c.Period, amounts,
		strings.Replace(pct, "-", "−", 1), c.OnlyOld, c.OnlyOldCost)
}

// oneCurrency writes "14.98 USD" and "2.00 USD" as "14.98" and "2.00 USD".
func oneCurrency(old, new string) (string, string, bool) {
	oa, oc, ok1 := strings.Cut(old, " ")
	na, nc, ok2 := strings.Cut(new, " ")
	if !ok1 || !ok2 || oc != nc || strings.Contains(oc, " ") {
		return "", "", false
	}
	return oa, na + " " + nc, true
}

// Dropped reports whether the change lost money or charges: what a report
// names.
func (c PeriodChange) Dropped() bool { return c.Drop > 0 || c.OnlyOld > 0 }

// Beyond reports whether the change makes the period's reports incomplete:
// its total fell by more than maxDrop (thresholds.max_restatement_drop),
// the cost basis the same (an Azure actual-cost export replacing an
// amortized one is warned about at ingest on its own).
func (c PeriodChange) Beyond(maxDrop float64) bool { return c.Drop > maxDrop && c.SameBasis() }

// SameBasis reports whether both runs state the same cost: an Azure
// actual-cost export replacing an amortized one (or the other way round)
// changes what a cost means, and its drop says nothing of a lost charge.
func (c PeriodChange) SameBasis() bool {
	basis := func(d string) string {
		d = strings.ToLower(d)
		for _, b := range []string{"actual", "amortized"} {
			if strings.HasPrefix(d, b) {
				return b
			}
		}
		return ""
	}
	for _, o := range strings.Split(c.Old, ", ") {
		if a, b := basis(o), basis(c.New); a != "" && b != "" && a != b {
			return false
		}
	}
	return true
}

// chargeTally is a run's charges counted by identity, with their costs.
// An entry per charge (not per line held whole): a CUR run may hold
// millions of lines. A charge's cost is kept as float64, for the message
// only; the totals are exact.
type chargeTally struct {
	totals map[string]decimal.Decimal // per currency
	ids    map[uint64]tallyEntry
	lines  int
}

type tallyEntry struct {
	n    int32   // lines of this identity
	cost float64 // their cost
	cur  string  // their currency (part of the identity)
}

func newChargeTally() *chargeTally {
	return &chargeTally{totals: map[string]decimal.Decimal{}, ids: map[uint64]tallyEntry{}}
}

func (t *chargeTally) add(l storedLine) {
	t.lines++
	t.totals[l.currency] = t.totals[l.currency].Add(l.cost)
	e := t.ids[l.identity]
	e.n++
	e.cost += l.cost.InexactFloat64()
	e.cur = l.currency
	t.ids[l.identity] = e
}

// addSource tallies every billing line of a source.
func (t *chargeTally) addSource(ctx context.Context, tx *sql.Tx, id int64) error {
	return walkSourceLines(ctx, tx, id, nil, t.add)
}

// merge adds another tally's charges.
func (t *chargeTally) merge(o *chargeTally) {
	t.lines += o.lines
	for c, v := range o.totals {
		t.totals[c] = t.totals[c].Add(v)
	}
	for h, e := range o.ids {
		m := t.ids[h]
		m.n += e.n
		m.cost += e.cost
		m.cur = e.cur
		t.ids[h] = m
	}
}

// totalText is "14.98 USD", or "14.98 EUR + 1.00 USD", "0.00" when empty.
func totalText(totals map[string]decimal.Decimal) string {
	if len(totals) == 0 {
		return "0.00"
	}
	var parts []string
	for _, c := range slices.Sorted(maps.Keys(totals)) {
		parts = append(parts, strings.TrimSpace(totals[c].StringFixed(2)+" "+c))
	}
	return strings.Join(parts, " + ")
}

// comparePeriodRuns measures what the new run changed from the old.
func comparePeriodRuns(old, new *chargeTally) (drop float64, onlyOld int, onlyOldCost string) {
	drop = -1e308
	for c, o := range old.totals {
		if !o.IsPositive() {
			continue
		}
		d, _ := o.Sub(new.totals[c]).Div(o).Float64()
		drop = max(drop, d)
	}
	if drop == -1e308 {
		drop = 0
	}
	// Each lost charge's cost is summed as a decimal: exact, so the sum
	// does not depend on the order the map gives (summed as float64 it
	// did, by a cent now and then: TestOnlyOldCostIsOrderFree).
	totals := map[string]decimal.Decimal{}
	for h, e := range old.ids {
		if n := e.n - new.ids[h].n; n > 0 {
			onlyOld += int(n)
			totals[e.cur] = totals[e.cur].Add(decimal.NewFromFloat(e.cost * float64(n) / float64(e.n)))
		}
	}
	if len(totals) == 0 {
		return drop, 0, "0.00"
	}
	return drop, onlyOld, totalText(totals)
}

// measurePeriodChanges compares, at the end of an import group, each run
// that replaced an earlier one (a result's oldRun) with that earlier one,
// records the change and sets the result's PeriodChange.
func measurePeriodChanges(ctx context.Context, tx *sql.Tx, results []*ImportResult, clock func() time.Time) error {
	for i, r := range results {
		if r.oldRun == nil {
			continue
		}
		// Later files of the group replacing more of the same period.
		old := r.oldRun
		deliveries := deliveriesOf(r.Replaced)
		for _, o := range results[i+1:] {
			if o.oldRun != nil && o.Period == r.Period && o.Delivery == r.Delivery {
				old.merge(o.oldRun)
				deliveries = append(deliveries, deliveriesOf(o.Replaced)...)
				o.oldRun = nil
			}
		}
		r.oldRun = nil
		slices.Sort(deliveries)
		deliveries = slices.Compact(deliveries)
		rows, err := tx.QueryContext(ctx, `SELECT id, uri FROM source_files WHERE period_key = ? AND delivery = ? ORDER BY id`,
			r.Period, r.Delivery)
		if err != nil {
			return err
		}
		var ids []int64
		var first string
		for rows.Next() {
			var id int64
			var uri string
			if err := rows.Scan(&id, &uri); err != nil {
				rows.Close()
				return err
			}
			if len(ids) == 0 {
				first = uri
			}
			ids = append(ids, id)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		if len(ids) == 0 {
			continue
		}
		now := clock()
		cur := newChargeTally()
		for _, id := range ids {
			if err := cur.addSource(ctx, tx, id); err != nil {
				return err
			}
		}
		c := &PeriodChange{URI: first, Period: r.Period, Old: strings.Join(deliveries, ", "), New: r.Delivery,
			OldTotal: totalText(old.totals), NewTotal: totalText(cur.totals), At: now.UTC().Truncate(time.Second)}
		c.Drop, c.OnlyOld, c.OnlyOldCost = comparePeriodRuns(old, cur)
		if _, err := tx.ExecContext(ctx, `INSERT INTO period_changes (source_id, period_key, old_delivery, new_delivery, old_total,
			new_total, drop_share, only_old, only_old_cost, changed_at) VALUES (?,?,?,?,?,?,?,?,?,?)`,
			ids[0], c.Period, c.Old, c.New, c.OldTotal, c.NewTotal, c.Drop, c.OnlyOld, c.OnlyOldCost, now.Unix()); err != nil {
			return err
		}
		r.PeriodChange = c
	}
	return nil
}

func deliveriesOf(rs []ReplacedSource) []string {
	out := make([]string, 0, len(rs))
	for _, r := range rs {
		d := r.Delivery
		if d == "" {
			d = r.URI
		}
		out = append(out, d)
	}
	return out
}

// PeriodChanges lists the recorded changes of the runs whose files meet
// [from, to), oldest first: what a report's data-quality box names.
func (s *Store) PeriodChanges(ctx context.Context, from, to time.Time) ([]PeriodChange, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT f.uri, c.period_key, c.old_delivery, c.new_delivery, c.old_total, c.new_total,
		c.drop_share, c.only_old, c.only_old_cost, c.changed_at
		FROM period_changes c JOIN source_files f ON f.id = c.source_id
		WHERE EXISTS (SELECT 1 FROM source_files g WHERE g.period_key = c.period_key AND g.delivery = c.new_delivery
			AND (g.period_start IS NULL OR (g.period_start < ? AND g.period_end >= ?)))
		ORDER BY c.changed_at, c.period_key`, to.Unix(), from.Unix())
	if err != nil {
		return nil, fmt.Errorf("store: list period changes: %w", err)
	}
	defer rows.Close()
	var out []PeriodChange
	for rows.Next() {
		var c PeriodChange
		var at int64
		if err := rows.Scan(&c.URI, &c.Period, &c.Old, &c.New, &c.OldTotal, &c.NewTotal, &c.Drop, &c.OnlyOld, &c.OnlyOldCost,
			&at); err != nil {
			return nil, fmt.Errorf("store: list period changes: %w", err)
		}
		c.At = time.Unix(at, 0).UTC()
		out = append(out, c)
	}
	return out, rows.Err()
}
