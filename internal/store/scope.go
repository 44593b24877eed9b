package store

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/internal/ingest"
	"github.com/shopspring/decimal"
)

// A bill is counted once, and no charge is lost to a later file. The
// invariant: no import ever removes a charge that no retained delivery
// contains, unless the user said so (ingest --replace).
//
// The same charges reach finops more than once: a month-to-date export
// downloaded on the 10th and again on the 20th, one export as CSV and as
// Parquet, or gzipped, or piped in. Their bytes differ, so the sha256 that
// catches a file imported twice does not catch these. And a later file may
// hold fewer charges than an earlier one (an export filtered by tag or
// resource group, a download cut short): letting it replace the earlier
// one would delete charges no file holds any more.
//
// Every billing file's lines are summarised per scope — provider, billing
// account and UTC month of the charge start, the unit a cloud restates —
// with the range they cover and an order-free hash of their content
// (migration 11). When a new file's scope meets another file's scope over
// an overlapping range, the two are compared by charge (resolveOne); a
// charge's identity is its resource, period, SKU and kind of charge
// (identityHash), whatever it cost:
//
//   - the same content: the new file's lines of the scope are dropped;
//   - no charge in common: two halves of a bill, such as two sub-accounts'
//     exports or two accounts of a rental platform whose files name none;
//     both kept;
//   - the new file holds every charge of the old one in the scope (a later
//     month-to-date snapshot, a download that restates amounts): its lines
//     replace the old file's there, whatever the formats or names;
//   - the old file holds every charge of the new one (an older snapshot
//     imported late): the new file's lines of the scope are left out;
//   - otherwise each holds charges the other lacks, and replacing either
//     would lose some: the new file is refused (OverlapError), naming both
//     files, the charges only in the old one (count and amount) and
//     `ingest --replace`, which makes the new file win where it reaches.
//
// Neither the file's name (a file rewritten at the same path, standard
// input) nor how far it reaches changes these rules. Two deliveries of one
// provider-declared billing period (a CUR, Data Exports or Azure export
// manifest) are not compared here: the latest delivery replaces the others
// whole (replacePeriod), and the change is measured and named
// (periodchange.go) — a drop beyond thresholds.max_restatement_drop marks
// the report incomplete. Nor are two files of one declared delivery (the
// parts of one CUR, one Azure export run) compared; a key the parser derives
// from the data (Azure's scope, month and cost basis) declares nothing, and
// its files are compared like any others (overlapInput.declared).

// scopeKey is one scope of billing lines.
type scopeKey struct {
	provider, account string
	month             int32 // year*12 + month-1 of the charge start, UTC
}

func monthOf(unix int64) int32 {
	y, m, _ := time.Unix(unix, 0).UTC().Date()
	return int32(y*12 + int(m) - 1)
}

// String is the scope as source_scopes stores it.
func (k scopeKey) String() string {
	return fmt.Sprintf("%s\x1f%s\x1f%04d-%02d", k.provider, k.account, k.month/12, k.month%12+1)
}

// scopeText words a stored scope for messages: "AWS account 1234, 2026-11".
func scopeText(scope string) string {
	p := strings.SplitN(scope, "\x1f", 3)
	if len(p) != 3 {
		return scope
	}
	provider, account := p[0], p[1]
	if provider == "" {
		provider = "provider not named"
	}
	if account == "" {
		return fmt.Sprintf("%s (no billing account), %s", provider, p[2])
	}
	return fmt.Sprintf("%s account %s, %s", provider, account, p[2])
}

// scopeStat is what one file's lines of one scope cover.
type scopeStat struct {
	first, lastStart, lastEnd int64
	lines                     int64
	content                   uint64 // the sum of the lines' contentHash
}

func (s *scopeStat) add(start, end int64, h uint64) {
	if s.lines == 0 {
		s.first, s.lastStart, s.lastEnd = start, start, end
	}
	s.first, s.lastStart, s.lastEnd = min(s.first, start), max(s.lastStart, start), max(s.lastEnd, end)
	s.lines++
	s.content += h
}

// scopeStats collects a file's scopes while it is imported: a map lookup
// only when a line's scope differs from the one before (exports list their
// lines by account and day).
type scopeStats struct {
	m      map[scopeKey]*scopeStat
	cur    *scopeStat
	curKey scopeKey
}

func (s *scopeStats) add(provider, account string, start, end int64, h uint64) {
	month := monthOf(start)
	if s.cur == nil || s.curKey.month != month || s.curKey.provider != provider || s.curKey.account != account {
		k := scopeKey{provider, account, month}
		if s.m == nil {
			s.m = map[scopeKey]*scopeStat{}
		}
		st := s.m[k]
		if st == nil {
			k.provider, k.account = strings.Clone(provider), strings.Clone(account)
			st = &scopeStat{}
			s.m[k] = st
		}
		s.cur, s.curKey = st, k
	}
	s.cur.add(start, end, h)
}

// The billingColumns that make a line's content and its identity. The
// content leaves out what finops derives (GPU model and count from its
// catalog, the pricing mode) and the tags (a Parquet map and a CSV's JSON
// need not list the same keys), so one export in two containers hashes
// alike. The identity is what makes two lines the same charge: the same
// account, resource, period, SKU and kind of charge, whatever it cost.
var (
	contentColumns  = []int{2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 13, 14, 15, 16, 17, 18, 19, 20, 23, 24, 25, 26, 27, 28}
	identityColumns = []int{2, 3, 4, 5, 6, 7, 8, 10, 13, 14, 17, 18, 20, 26, 28}
)

func contentHash(args []any) uint64  { return hashColumns(args, contentColumns) }
func identityHash(args []any) uint64 { return hashColumns(args, identityColumns) }

// hashColumns is FNV-1a over the chosen columns, each closed by a byte no
// text holds (ingest refuses control characters), then mixed so that sums
// of hashes (scopeStat.content) do not cancel out.
func hashColumns(args []any, cols []int) uint64 {
	const prime = 1099511628211
	h := uint64(14695981039346656037)
	for _, c := range cols {
		switch v := args[c].(type) {
		case string:
			if decimalColumn(c) {
				v = hashDecimal(v)
			}
			for i := 0; i < len(v); i++ {
				h = (h ^ uint64(v[i])) * prime
			}
			h = (h ^ 0x1f) * prime
		case int64:
			for i := range 8 {
				h = (h ^ uint64(byte(v>>(8*i)))) * prime
			}
			h = (h ^ 0x1d) * prime
		default: // nil: a NULL field
			h = (h ^ 0x1e) * prime
		}
	}
	// splitmix64's finaliser.
	h ^= h >> 30
	h *= 0xbf58476d1ce4e5b9
	h ^= h >> 27
	h *= 0x94d049bb133111eb
	return h ^ h>>31
}

// decimalColumn reports whether billingColumns[c] is a decimal: costs and
// the usage quantity.
func decimalColumn(c int) bool { return c >= 23 && c <= 25 || c == 27 }

// hashDecimalPlaces is how many decimal places of a cost or quantity make
// its content: a Parquet export's DECIMAL(38,10) costs and DECIMAL(18,14)
// quantities hold fewer digits than the CSV they were written from, and the
// two are still the same charges. Below a millionth is no money.
const hashDecimalPlaces = 6

// hashDecimal truncates a decimal's text (decimal.String: no exponent, no
// trailing zeros) to hashDecimalPlaces, without trailing zeros, "-0" as "0".
func hashDecimal(v string) string {
	dot := strings.IndexByte(v, '.')
	if dot < 0 {
		return v
	}
	if len(v) > dot+1+hashDecimalPlaces {
		v = v[:dot+1+hashDecimalPlaces]
	}
	v = strings.TrimRight(strings.TrimRight(v, "0"), ".")
	if v == "-0" || v == "" || v == "-" {
		return "0"
	}
	return v
}

// saveScopes records a source's scopes and marks it scoped.
func saveScopes(ctx context.Context, tx *sql.Tx, id int64, stats map[scopeKey]*scopeStat) error {
	for k, st := range stats {
		if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO source_scopes (source_id, scope, first_start, last_start, last_end, lines, content)
			VALUES (?, ?, ?, ?, ?, ?, ?)`, id, k.String(), st.first, st.lastStart, st.lastEnd, st.lines, int64(st.content)); err != nil {
			return err
		}
	}
	_, err := tx.ExecContext(ctx, `UPDATE source_files SET scoped = 1 WHERE id = ?`, id)
	return err
}

// storedLine is a billing line read back within an import, with its row id.
type storedLine struct {
	id         int64
	start, end int64
	scope      scopeKey
	content    uint64
	identity   uint64
	cost       decimal.Decimal
	currency   string
}

// sourceLines reads the billing lines of a source, those of one scope when
// only is not nil.
func sourceLines(ctx context.Context, tx *sql.Tx, source int64, only *scopeKey) ([]storedLine, error) {
	var out []storedLine
	err := walkSourceLines(ctx, tx, source, only, func(l storedLine) { out = append(out, l) })
	return out, err
}

// walkSourceLines calls fn with each billing line of a source, those of one
// scope when only is not nil, holding none of them.
func walkSourceLines(ctx context.Context, tx *sql.Tx, source int64, only *scopeKey, fn func(storedLine)) error {
	q := `SELECT id, line, charge_start, charge_end, gpu_count, ` + lineText + ` FROM billing_lines WHERE source_id = ?`
	args := []any{source}
	if only != nil {
		// The scope's month and names in SQL: a file of many months and
		// accounts is not decoded whole for each of its scopes.
		y, m := int(only.month/12), time.Month(only.month%12+1)
		from := time.Date(y, m, 1, 0, 0, 0, 0, time.UTC)
		q += ` AND charge_start >= ? AND charge_start < ? AND coalesce(provider, '') = ? AND coalesce(billing_account, '') = ?`
		args = append(args, from.Unix(), from.AddDate(0, 1, 0).Unix(), only.provider, only.account)
	}
	rows, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	c := newLineCache()
	cols := make([]any, 0, billingArity)
	for rows.Next() {
		var l finops.BillingLine
		var id, start, end int64
		var text string
		if err := rows.Scan(&id, &l.Line, &start, &end, &l.GPUCount, &text); err != nil {
			return err
		}
		if err := c.decode(&l, start, end, text); err != nil {
			return err
		}
		k := scopeKey{l.Provider, l.BillingAccount, monthOf(start)}
		if only != nil && k != *only {
			continue
		}
		cols = appendLineArgs(cols[:0], nil, &l, nil)
		cost, _ := l.Cost()
		fn(storedLine{id: id, start: start, end: end, scope: k, content: contentHash(cols), identity: identityHash(cols),
			cost: cost, currency: l.Currency})
	}
	return rows.Err()
}

// scopeSource summarises a source imported before migration 11.
// Its lines are summarised as read, not held: the source may be a CUR of
// millions of lines.
func scopeSource(ctx context.Context, tx *sql.Tx, id int64) error {
	stats := map[scopeKey]*scopeStat{}
	err := walkSourceLines(ctx, tx, id, nil, func(l storedLine) {
		st := stats[l.scope]
		if st == nil {
			st = &scopeStat{}
			stats[l.scope] = st
		}
		st.add(l.start, l.end, l.content)
	})
	if err != nil {
		return err
	}
	return saveScopes(ctx, tx, id, stats)
}

// StdinURI is what an import of standard input is recorded as (package
// source names it so, source.StdinName).
const StdinURI = "stdin"

// OverlapNote is what resolving one overlap did.
type OverlapNote struct {
	Scope  string // "AWS account 1234, 2026-11"
	Other  string // the other file's URI
	Action string // OverlapReplaced, OverlapKept or OverlapSame
	Lines  int    // lines removed: the other file's (replaced), or this file's (kept, same)
	// Restated: of the other file's lines replaced, how many this file
	// holds at another amount (or other details of the same charge); of
	// this file's lines left out (kept), how many the other holds so.
	Restated int
	// Forced: replaced by ingest --replace, charges the new file does not
	// hold included (Lost of them, costing LostCost).
	Forced   bool
	Lost     int
	LostCost string
}

// Overlap actions.
const (
	OverlapReplaced = "replaced" // this file's lines replace the other's in the scope
	OverlapKept     = "kept"     // the other file holds every charge of this one: this file's are left out
	OverlapSame     = "same"     // the other file holds the same charges: this file's are left out
)

// OverlapError is an overlap finops cannot resolve without losing charges:
// the new file is refused.
type OverlapError struct {
	URI, Other           string
	Scope                string
	From, To             time.Time // the overlap
	Lines, OtherLines    int
	Cost, OtherCost      string
	Shared               int // charges in both files
	NewRange, OtherRange [2]time.Time
	// OnlyOther and OnlyOtherCost are the charges of the other file that
	// the new one lacks: what replacing it would delete.
	OnlyOther     int
	OnlyOtherCost string
}

func (e *OverlapError) Error() string {
	day := func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04") }
	return fmt.Sprintf("%s: its charges of %s (%s .. %s, %d lines, %s) overlap those of %s, imported before (%s .. %s, %d lines, %s), "+
		"from %s to %s with %d charges in both, and neither file holds all of the other's (charges only in %s: %d, %s): "+
		"finops will not add them up, nor delete charges that no other file holds. If %s restates the other, import it with "+
		"`finops ingest --replace %s` (its lines win where the two overlap, and those %d charges of %s go); if %s is a "+
		"filtered or partial export, leave it out",
		e.URI, e.Scope, day(e.NewRange[0]), day(e.NewRange[1]), e.Lines, e.Cost, e.Other, day(e.OtherRange[0]), day(e.OtherRange[1]),
		e.OtherLines, e.OtherCost, day(e.From), day(e.To), e.Shared, e.Other, e.OnlyOther, e.OnlyOtherCost, e.URI, e.URI,
		e.OnlyOther, e.Other, e.URI)
}

// overlapInput is the new file of resolveOverlaps.
type overlapInput struct {
	id               int64
	uri              string
	format           string
	period, delivery string
	// declared: the period and delivery came from a manifest (the parts of
	// one CUR, one Azure export run), not from the file's own data. Only a
	// declared delivery makes two files "parts of one delivery" that are not
	// compared: a key derived from the data (Azure's billing scope, month and
	// cost basis) is shared by every export of that month, a month-to-date
	// download on the 10th and again on the 20th alike, so those files are
	// compared charge by charge like any others.
	declared bool
	replace  bool
	stats    map[scopeKey]*scopeStat
	now      int64
}

type candidate struct {
	id                        int64
	first, lastStart, lastEnd int64
	lines                     int64
	content                   uint64
	uri, format               string
	period, delivery          string
}

// resolveOverlaps compares a new billing file with the files that cover
// its scopes, as the comment at the top of this file says, within its
// transaction. It returns what it did, and how many of the new file's lines
// are left.
func resolveOverlaps(ctx context.Context, tx *sql.Tx, in overlapInput) ([]OverlapNote, error) {
	if err := saveScopes(ctx, tx, in.id, in.stats); err != nil {
		return nil, err
	}
	if len(in.stats) == 0 {
		return nil, nil
	}
	lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
	keys := make([]scopeKey, 0, len(in.stats))
	for k, st := range in.stats {
		lo, hi = min(lo, st.first), max(hi, st.lastEnd, st.first+1)
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b scopeKey) int { return strings.Compare(a.String(), b.String()) })
	if err := scopeOlderSources(ctx, tx, in.id, lo, hi); err != nil {
		return nil, err
	}
	var notes []OverlapNote
	for _, k := range keys {
		ns := in.stats[k]
		cands, err := scopeCandidates(ctx, tx, in.id, k.String(), ns)
		if err != nil {
			return nil, err
		}
		for _, c := range cands {
			if in.declared && c.period == in.period && c.delivery == in.delivery {
				continue // two parts of one declared delivery
			}
			note, dropped, err := resolveOne(ctx, tx, in, k, ns, c)
			if err != nil {
				return nil, err
			}
			if note != nil {
				notes = append(notes, *note)
			}
			if dropped {
				break // this file has no lines of the scope left
			}
		}
	}
	return notes, nil
}

// scopeOlderSources summarises the billing sources imported before
// migration 11 whose period meets [lo, hi).
func scopeOlderSources(ctx context.Context, tx *sql.Tx, id, lo, hi int64) error {
	rows, err := tx.QueryContext(ctx, `SELECT id FROM source_files WHERE kind = ? AND scoped = 0 AND id <> ?
		AND (period_start IS NULL OR period_start < ? AND period_end >= ?)`, ingest.KindBilling, id, hi, lo)
	if err != nil {
		return err
	}
	var ids []int64
	for rows.Next() {
		var i int64
		if err := rows.Scan(&i); err != nil {
			rows.Close()
			return err
		}
		ids = append(ids, i)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, i := range ids {
		if err := scopeSource(ctx, tx, i); err != nil {
			return err
		}
	}
	return nil
}

// scopeCandidates lists the other sources of a scope whose range meets ns's.
// A range is [first, max(last end, first+1)): one-time charges last no time.
func scopeCandidates(ctx context.Context, tx *sql.Tx, id int64, scope string, ns *scopeStat) ([]candidate, error) {
	rows, err := tx.QueryContext(ctx, `SELECT s.source_id, s.first_start, s.last_start, s.last_end, s.lines, s.content,
		f.uri, f.format, coalesce(f.period_key, ''), coalesce(f.delivery, '')
		FROM source_scopes s JOIN source_files f ON f.id = s.source_id
		WHERE s.scope = ? AND s.source_id <> ? AND s.first_start < ? AND max(s.last_end, s.first_start + 1) > ?
		ORDER BY s.source_id`, scope, id, max(ns.lastEnd, ns.first+1), ns.first)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []candidate
	for rows.Next() {
		var c candidate
		var content int64
		if err := rows.Scan(&c.id, &c.first, &c.lastStart, &c.lastEnd, &c.lines, &content, &c.uri, &c.format,
			&c.period, &c.delivery); err != nil {
			return nil, err
		}
		c.content = uint64(content)
		out = append(out, c)
	}
	return out, rows.Err()
}

// resolveOne settles one overlap of the new file's scope k with candidate
// c, as the comment at the top of this file says. dropped says the new
// file's lines of the scope are gone.
func resolveOne(ctx context.Context, tx *sql.Tx, in overlapInput, k scopeKey, ns *scopeStat, c candidate) (*OverlapNote, bool, error) {
	scope := scopeText(k.String())
	newLines, err := sourceLines(ctx, tx, in.id, &k)
	if err != nil {
		return nil, false, err
	}
	if c.lines == ns.lines && c.content == ns.content && !in.replace {
		if err := dropLines(ctx, tx, in.id, k, newLines, nil, "", in.now); err != nil {
			return nil, false, err
		}
		return &OverlapNote{Scope: scope, Other: c.uri, Action: OverlapSame, Lines: len(newLines)}, true, nil
	}
	oldLines, err := sourceLines(ctx, tx, c.id, &k)
	if err != nil {
		return nil, false, err
	}
	newIDs, newContent := multisets(newLines)
	oldIDs, _ := multisets(oldLines)
	shared := 0
	for h, n := range newIDs {
		shared += min(n, oldIDs[h])
	}
	if shared == 0 {
		return nil, false, nil // two parts of a bill: nothing in common
	}
	onlyOld := missingFrom(oldLines, newIDs)
	restated := max(0, len(oldLines)-len(onlyOld)-sharedContent(oldLines, newContent))
	switch {
	case in.replace:
		// On purpose: the new file wins where it reaches, not beyond, and
		// the old file's charges there that it lacks go too.
		drop := slices.DeleteFunc(slices.Clone(oldLines), func(l storedLine) bool {
			return l.start < ns.first || l.start > ns.lastStart
		})
		lost := missingFrom(drop, newIDs)
		if err := dropLines(ctx, tx, c.id, k, drop, oldLines, in.uri, in.now); err != nil {
			return nil, false, err
		}
		return &OverlapNote{Scope: scope, Other: c.uri, Action: OverlapReplaced, Lines: len(drop), Restated: restated,
			Forced: true, Lost: len(lost), LostCost: sumCost(lost)}, false, nil
	case len(onlyOld) == 0:
		// Every charge of the old file is in the new one, restated or not.
		if err := dropLines(ctx, tx, c.id, k, oldLines, oldLines, in.uri, in.now); err != nil {
			return nil, false, err
		}
		return &OverlapNote{Scope: scope, Other: c.uri, Action: OverlapReplaced, Lines: len(oldLines), Restated: restated}, false, nil
	case len(missingFrom(newLines, oldIDs)) == 0:
		// Every charge of the new file is in the old one: it adds none.
		// Those it states at other amounts are counted in the note: the
		// old file stays the truth unless --replace says otherwise.
		_, oldContent := multisets(oldLines)
		other := len(newLines) - sharedContent(newLines, oldContent)
		if err := dropLines(ctx, tx, in.id, k, newLines, nil, "", in.now); err != nil {
			return nil, false, err
		}
		return &OverlapNote{Scope: scope, Other: c.uri, Action: OverlapKept, Lines: len(newLines), Restated: other}, true, nil
	}
	at := func(u int64) time.Time { return time.Unix(u, 0).UTC() }
	return nil, false, &OverlapError{URI: in.uri, Other: c.uri, Scope: scope,
		From: at(max(ns.first, c.first)), To: at(min(ns.lastEnd, c.lastEnd)),
		Lines: len(newLines), OtherLines: len(oldLines), Cost: sumCost(newLines), OtherCost: sumCost(oldLines), Shared: shared,
		NewRange: [2]time.Time{at(ns.first), at(ns.lastEnd)}, OtherRange: [2]time.Time{at(c.first), at(c.lastEnd)},
		OnlyOther: len(onlyOld), OnlyOtherCost: sumCost(onlyOld)}
}

// multisets counts lines by identity and by content.
func multisets(ls []storedLine) (ids, content map[uint64]int) {
	ids, content = make(map[uint64]int, len(ls)), make(map[uint64]int, len(ls))
	for _, l := range ls {
		ids[l.identity]++
		content[l.content]++
	}
	return ids, content
}

// missingFrom returns the lines of ls whose charge has no line in ids: of
// n lines of one identity where ids counts m < n, the last n-m. ids is
// left as it was.
func missingFrom(ls []storedLine, ids map[uint64]int) []storedLine {
	seen := make(map[uint64]int, len(ls))
	var out []storedLine
	for _, l := range ls {
		seen[l.identity]++
		if seen[l.identity] > ids[l.identity] {
			out = append(out, l)
		}
	}
	return out
}

// sharedContent counts the lines of ls whose content, amounts included,
// has a line in content (a multiset).
func sharedContent(ls []storedLine, content map[uint64]int) int {
	seen := make(map[uint64]int, len(ls))
	n := 0
	for _, l := range ls {
		seen[l.content]++
		if seen[l.content] <= content[l.content] {
			n++
		}
	}
	return n
}

// sumCost words the cost of lines: "90.00 USD", "1.00 EUR+USD" when they
// hold several currencies (added as they are: for a message only).
func sumCost(ls []storedLine) string {
	total := decimal.Zero
	var cur []string
	for _, l := range ls {
		total = total.Add(l.cost)
		if l.currency != "" && !slices.Contains(cur, l.currency) {
			cur = append(cur, l.currency)
		}
	}
	return strings.TrimSpace(total.StringFixed(2) + " " + strings.Join(cur, "+"))
}

// dropLines deletes drop, lines of source's scope k (all of them, scope),
// and brings the source's scope row and row count up to date. A source left
// without lines goes, remembered in replaced_files as replaced by
// replacedBy, so that importing it again changes nothing unless --replace.
func dropLines(ctx context.Context, tx *sql.Tx, source int64, k scopeKey, drop, scope []storedLine, replacedBy string, now int64) error {
	if scope == nil {
		scope = drop
	}
	gone := make(map[int64]bool, len(drop))
	for i := 0; i < len(drop); i += 500 {
		part := drop[i:min(i+500, len(drop))]
		args := make([]any, len(part))
		for j, l := range part {
			args[j] = l.id
			gone[l.id] = true
		}
		q := `DELETE FROM billing_lines WHERE id IN (?` + strings.Repeat(",?", len(part)-1) + `)`
		if _, err := tx.ExecContext(ctx, q, args...); err != nil {
			return err
		}
	}
	// What is left of the scope, summarised again.
	left := &scopeStat{}
	for _, l := range scope {
		if gone[l.id] {
			continue
		}
		left.add(l.start, l.end, l.content)
	}
	if left.lines == 0 {
		if _, err := tx.ExecContext(ctx, `DELETE FROM source_scopes WHERE source_id = ? AND scope = ?`, source, k.String()); err != nil {
			return err
		}
	} else if err := saveScopes(ctx, tx, source, map[scopeKey]*scopeStat{k: left}); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE source_files SET rows = max(rows - ?, 0) WHERE id = ?`, len(drop), source); err != nil {
		return err
	}
	if replacedBy == "" {
		return nil
	}
	var n int
	err := tx.QueryRowContext(ctx, `SELECT count(*) FROM (SELECT 1 FROM billing_lines WHERE source_id = ? LIMIT 1)`, source).Scan(&n)
	if err != nil || n > 0 {
		return err
	}
	var uri, sha string
	if err := tx.QueryRowContext(ctx, `SELECT uri, sha256 FROM source_files WHERE id = ?`, source).Scan(&uri, &sha); err != nil {
		return err
	}
	if err := deleteSource(ctx, tx, source); err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `INSERT OR REPLACE INTO replaced_files (sha256, uri, period_key, delivery, replaced_by, replaced_at)
		VALUES (?, ?, ?, '', ?, ?)`, sha, uri, k.String(), replacedBy, now)
	return err
}
