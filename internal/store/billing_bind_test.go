package store

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/internal/ingest"
	"github.com/shopspring/decimal"
)

// bindPool mixes strings the inserter binds as integers (bindArg) with
// near misses that must stay text: leading zeros, "-0", a plus sign, int64's
// limits and one past them, spaces, exponents.
var bindPool = []string{
	"0", "7", "-12", "1234567890123", "9223372036854775807", "-9223372036854775808",
	"007", "-0", "00", "+5", "9223372036854775808", "-9223372036854775809", "12345678901234567890",
	"1e3", " 5", "5 ", "12a", "-", "0x1f", "١٢٣", "3.0", "", "AWS", "us-east-1",
}

// randomBindLine is a billing line whose text fields come from bindPool or
// are random digits, and whose amounts are random decimals, integers
// included.
func randomBindLine(rng *rand.Rand, line int, base time.Time) *finops.BillingLine {
	text := func() string {
		if rng.IntN(3) == 0 {
			b := make([]byte, 1+rng.IntN(21))
			for i := range b {
				b[i] = byte('0' + rng.IntN(10))
			}
			if rng.IntN(4) == 0 {
				return "-" + string(b)
			}
			return string(b)
		}
		return bindPool[rng.IntN(len(bindPool))]
	}
	amount := func() *decimal.Decimal {
		if rng.IntN(6) == 0 {
			return nil
		}
		if rng.IntN(3) == 0 { // shared with other lines, as a parser shares a repeated cell's
			return sharedAmounts[rng.IntN(len(sharedAmounts))]
		}
		d := decimal.New(rng.Int64N(2_000_001)-1_000_000, -int32(rng.IntN(8)))
		return &d
	}
	start := base.Add(time.Duration(rng.IntN(300)) * time.Hour)
	l := &finops.BillingLine{Line: line, Provider: text(), BillingAccount: text(), SubAccount: text(),
		ChargeStart: start, ChargeEnd: start.Add(time.Hour), ChargeCategory: finops.ChargeUsage, ChargeClass: text(),
		ChargeFrequency: text(), PricingCategory: text(), PricingMode: text(), CommitmentStatus: text(), CommitmentID: text(),
		ResourceID: text(), ResourceName: text(), ResourceType: text(), Service: text(), SKU: text(), InstanceType: text(),
		Region: text(), GPUModel: text(), GPUCount: rng.IntN(9), BilledCost: amount(), EffectiveCost: amount(),
		ListCost: amount(), Currency: text(), UsageQuantity: amount(), UsageUnit: text()}
	switch rng.IntN(4) {
	case 0:
		l.Tags = map[string]string{text(): text(), "k": text()}
	case 1:
		l.Tags = sharedTags[rng.IntN(len(sharedTags))]
	}
	return l
}

// sharedAmounts and sharedTags are values that lines of randomBindLine
// share, as a parser shares the decimal of a repeated number cell and the
// map of a repeated tag cell (finops.BillingLine): some equal in value and
// apart in pointer. Nothing writes them.
var (
	sharedAmounts = func() []*decimal.Decimal {
		var out []*decimal.Decimal
		for _, v := range []string{"0", "0", "1.5", "1.50", "-0.00000001", "24", "123456789012345678", "3.14159"} {
			d := decimal.RequireFromString(v)
			out = append(out, &d)
		}
		return out
	}()
	sharedTags = []map[string]string{{"team": "ml"}, {"team": "ml"}, {"team": "infra", "env": "prod"}, {"k": "007"}}
)

// TestImportStoresTextAsBefore: binding a canonical integer's text as an
// int64 (bindArg) stores every billing_lines column exactly as binding the
// text did. The expectation is an independent path: the same lines, sorted
// by start within each chunk (stable), inserted one row per statement
// through database/sql with every string bound as text (appendLineArgs,
// tags by encoding/json), into a second database; every column is compared
// as SQL's quote() writes it, which tells text from integer, row by row in
// id order. The scopes recorded for the import (their content hash) are
// compared with scopeSource's, which reads the reference's lines back.
// Seeded, so a failure repeats. It fails when bindArg turns "-0", "007" or
// "+5" into an integer. The sparse variants hold columns empty on most
// lines, so that batches leave out different sets of columns
// (billingInsert), more sets than the inserter keeps statements for; it
// fails when a batch leaves out a column one of its lines has. The
// variants whose fields keep their value for many lines give batches
// whose lines agree on some columns, bound once for all of them
// (billingShape.shared), in more shapes than the inserter keeps
// statements for; they fail when a batch shares a column its lines do not
// agree on, or goes through a kept statement that shares one, or that
// leaves out a column the batch has.
func TestImportStoresTextAsBefore(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(35, 7))
	base := utc(2025, 3, 1, 0, 0, 0)
	type variant struct {
		n      int
		sparse float64 // the chance that a sparse column is left empty on a line
		change float64 // when > 0, the chance that a field's value changes from one line to the next
	}
	var variants []variant
	for _, n := range []int{1, billingBatchRows + 3, billingChunkRows + 77, 2*billingChunkRows + 1} {
		variants = append(variants, variant{n, 0, 0})
	}
	// Columns empty on most lines, so that batches leave different sets of
	// them out (billingInsert): 0.98 gives more sets than billingStatements
	// (checked below), 1 the same set on every batch.
	variants = append(variants, variant{4*billingChunkRows + 5, 0.98, 0}, variant{billingChunkRows + 9, 1, 0})
	// Fields that keep their value for a thousand lines or so, so that the
	// lines of a batch agree on some columns, which it binds once
	// (billingShape.shared), and batches agree on different sets, more than
	// the inserter keeps statements for (checked below), so that some go
	// through another kept statement that fits them (billingShape.fits).
	variants = append(variants, variant{12*billingChunkRows + 3, 0.5, 1.0 / 1000}, variant{3 * billingChunkRows, 0, 1e-9})
	for _, v := range variants {
		n := v.n
		t.Run(fmt.Sprintf("%d/sparse%.2f/change%.5f", n, v.sparse, v.change), func(t *testing.T) {
			var lines []*finops.BillingLine
			for i := range n {
				l := randomBindLine(rng, i+2, base)
				if v.sparse > 0 {
					sparsen(rng, l, v.sparse)
				}
				if v.change > 0 && i > 0 {
					keepFields(rng, l, lines[i-1], v.change)
				}
				lines = append(lines, l)
			}
			sets, shapes := batchColumnSets(lines)
			if v.sparse > 0 && v.sparse < 1 && sets <= billingStatements {
				t.Fatalf("the lines give %d column sets, want more than billingStatements (%d)", sets, billingStatements)
			}
			if v.change > 0 && v.change < 1.0/10000 && shapes != 1 {
				t.Fatalf("the lines give %d shapes of batch, want 1 (every batch alike)", shapes)
			}
			if v.change > 1.0/10000 && shapes <= billingStatements {
				t.Fatalf("the lines give %d shapes of batch, want more than billingStatements (%d)", shapes, billingStatements)
			}
			s := openTest(t)
			res := mustImport(t, s, "bind.csv", feed(&ingest.Summary{Format: "focus", Kind: "billing", Rows: n}, lines, nil, nil))

			ref := openTest(t)
			refID := referenceInsert(t, ref, res.SourceID, lines)
			cols := "id, " + strings.Join(billingColumnNames(), ", ")
			q := "SELECT quote(" + strings.ReplaceAll(cols, ", ", "), quote(") + ") FROM billing_lines ORDER BY id"
			got, want := quoteRows(t, s, q), quoteRows(t, ref, q)
			if len(got) != n || len(want) != n {
				t.Fatalf("%d rows stored, %d in the reference, want %d", len(got), len(want), n)
			}
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("row %d:\n got %s\nwant %s", i+1, got[i], want[i])
				}
			}

			tx, err := ref.db.BeginTx(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer tx.Rollback()
			if err := scopeSource(ctx, tx, refID); err != nil {
				t.Fatal(err)
			}
			if err := tx.Commit(); err != nil {
				t.Fatal(err)
			}
			sq := "SELECT scope, first_start, last_start, last_end, lines, content FROM source_scopes ORDER BY scope"
			if g, w := quoteRows(t, s, sq), quoteRows(t, ref, sq); !slices.Equal(g, w) || len(g) == 0 {
				t.Errorf("scopes recorded by the import:\n%v\nread back from the reference:\n%v", g, w)
			}
		})
	}
}

// sparsen empties each of a line's nullable fields but its provider,
// billing account, service and costs with probability p.
func sparsen(rng *rand.Rand, l *finops.BillingLine, p float64) {
	for _, f := range []*string{&l.SubAccount, &l.ChargeClass, &l.ChargeFrequency, &l.PricingCategory, &l.PricingMode,
		&l.CommitmentStatus, &l.CommitmentID, &l.ResourceID, &l.ResourceName, &l.ResourceType, &l.SKU,
		&l.InstanceType, &l.Region, &l.GPUModel, &l.Currency, &l.UsageUnit} {
		if rng.Float64() < p {
			*f = ""
		}
	}
	if rng.Float64() < p {
		l.UsageQuantity = nil
	}
	if rng.Float64() < p {
		l.Tags = nil
	}
}

// keepFields gives each of l's fields (its start and line number aside)
// prev's value, but with probability change.
func keepFields(rng *rand.Rand, l, prev *finops.BillingLine, change float64) {
	keep := func() bool { return rng.Float64() >= change }
	for _, f := range []struct{ to, from *string }{{&l.Provider, &prev.Provider}, {&l.BillingAccount, &prev.BillingAccount},
		{&l.SubAccount, &prev.SubAccount}, {&l.ChargeClass, &prev.ChargeClass}, {&l.ChargeFrequency, &prev.ChargeFrequency},
		{&l.PricingCategory, &prev.PricingCategory}, {&l.PricingMode, &prev.PricingMode},
		{&l.CommitmentStatus, &prev.CommitmentStatus}, {&l.CommitmentID, &prev.CommitmentID},
		{&l.ResourceID, &prev.ResourceID}, {&l.ResourceName, &prev.ResourceName}, {&l.ResourceType, &prev.ResourceType},
		{&l.Service, &prev.Service}, {&l.SKU, &prev.SKU}, {&l.InstanceType, &prev.InstanceType}, {&l.Region, &prev.Region},
		{&l.GPUModel, &prev.GPUModel}, {&l.Currency, &prev.Currency}, {&l.UsageUnit, &prev.UsageUnit}} {
		if keep() {
			*f.to = *f.from
		}
	}
	for _, f := range []struct{ to, from **decimal.Decimal }{{&l.BilledCost, &prev.BilledCost},
		{&l.EffectiveCost, &prev.EffectiveCost}, {&l.ListCost, &prev.ListCost}, {&l.UsageQuantity, &prev.UsageQuantity}} {
		if keep() {
			*f.to = *f.from
		}
	}
	if keep() {
		l.GPUCount = prev.GPUCount
	}
	if keep() {
		l.ChargeEnd = l.ChargeStart.Add(prev.ChargeEnd.Sub(prev.ChargeStart))
	}
	if keep() {
		l.Tags = prev.Tags
	}
}

// batchColumnSets counts, over the batches cut as the inserter cuts them
// (chunks of billingChunkRows lines sorted by start, stable;
// billingBatchRows lines each), the distinct sets of columns that are not
// NULL on some line of a batch, and the distinct pairs of that set and the
// set of columns equal on every line of the batch, compared as stored
// text (a batch's shape, billingShape).
func batchColumnSets(lines []*finops.BillingLine) (sets, shapes int) {
	sorted := slices.Clone(lines)
	seen, seenShape := map[string]bool{}, map[string]bool{}
	for c := range slices.Chunk(sorted, billingChunkRows) {
		slices.SortStableFunc(c, func(a, b *finops.BillingLine) int { return a.ChargeStart.Compare(b.ChargeStart) })
		for batch := range slices.Chunk(c, billingBatchRows) {
			set, same := make([]byte, billingArity), make([]byte, billingArity)
			var first []any
			for j, l := range batch {
				var tags any
				if len(l.Tags) > 0 {
					b, _ := json.Marshal(l.Tags)
					tags = string(b)
				}
				args := appendLineArgs(nil, nil, l, tags)
				if j == 0 {
					first = args
				}
				for i, v := range args {
					if v != nil {
						set[i] = 1
					}
					if j == 0 || same[i] == 1 && fmt.Sprint(v) == fmt.Sprint(first[i]) && (v == nil) == (first[i] == nil) {
						same[i] = 1
					} else {
						same[i] = 0
					}
				}
			}
			for i := range same {
				same[i] &= set[i]
			}
			seen[string(set)] = true
			seenShape[string(set)+string(same)] = true
		}
	}
	return len(seen), len(seenShape)
}

// TestBindArg: bindArg turns exactly the strings strconv.FormatInt writes
// into that int64, for generated strings and bindPool; anything else is
// returned as it was.
func TestBindArg(t *testing.T) {
	rng := rand.New(rand.NewPCG(35, 8))
	cases := slices.Clone(bindPool)
	for range 20000 {
		b := make([]byte, rng.IntN(22))
		for i := range b {
			b[i] = "0123456789-+ .e"[rng.IntN(15)]
		}
		cases = append(cases, string(b), strconv.FormatInt(int64(rng.Uint64()), 10))
	}
	for _, s := range cases {
		got := bindArg(s)
		n, err := strconv.ParseInt(s, 10, 64)
		canonical := err == nil && strconv.FormatInt(n, 10) == s
		switch g := got.(type) {
		case int64:
			if !canonical || g != n {
				t.Errorf("bindArg(%q) = int64 %d, want it left as text", s, g)
			}
		case string:
			if canonical || g != s {
				t.Errorf("bindArg(%q) = %q, want int64 %d", s, g, n)
			}
		default:
			t.Errorf("bindArg(%q) = %T", s, got)
		}
	}
	for _, v := range []any{nil, int64(5)} {
		if got := bindArg(v); got != v {
			t.Errorf("bindArg(%v) = %v, want it unchanged", v, got)
		}
	}
}

// referenceInsert stores lines as one source, in the order a stable sort by
// charge start of each billingChunkRows lines gives, one row per INSERT through database/sql with every
// string as text; it returns the source's id, made to be source (a
// reference's ids must match the import's).
func referenceInsert(t *testing.T, s *Store, source int64, lines []*finops.BillingLine) int64 {
	t.Helper()
	ctx := context.Background()
	if _, err := s.db.ExecContext(ctx, `INSERT INTO source_files (id, uri, sha256, format, kind, rows, imported_at)
		VALUES (?, 'ref.csv', 'ref', 'focus', 'billing', ?, 0)`, source, len(lines)); err != nil {
		t.Fatal(err)
	}
	// Ids follow the start within each chunk of billingChunkRows lines of
	// the file (billing_insert.go).
	sorted := slices.Clone(lines)
	for c := range slices.Chunk(sorted, billingChunkRows) {
		slices.SortStableFunc(c, func(a, b *finops.BillingLine) int { return a.ChargeStart.Compare(b.ChargeStart) })
	}
	insert := "INSERT INTO billing_lines (" + billingColumns + ") VALUES (" + strings.Repeat("?,", billingArity-1) + "?)"
	for _, l := range sorted {
		if _, err := s.db.ExecContext(ctx, insert, appendLineArgs(nil, source, l, tagsText(t, l))...); err != nil {
			t.Fatal(err)
		}
	}
	return source
}

// quoteRows runs a query of quote()d columns: every value is SQL text
// (strings in quotes, NULL, numbers), so tableRows' joining of a row cannot
// make two different rows read alike.
func quoteRows(t *testing.T, s *Store, q string) []string {
	t.Helper()
	return tableRows(t, s.db, q)
}

// TestOmittedColumnsDefaultToNull: a column billingInsert may leave out of
// an INSERT is one the migrated schema lets be NULL and fills with NULL, so
// leaving it out stores what binding NULL stores; every other column (NOT
// NULL, or with another default, as gpu_count's 0) is in billingAlways,
// bound on every line, so that a missing value fails the INSERT instead of
// taking a default. Read from the schema, so a migration that gives a
// column a default or NOT NULL fails it until billingAlways says so.
// Column 0, the source id, is the statement's literal.
func TestOmittedColumnsDefaultToNull(t *testing.T) {
	s := openTest(t)
	rows, err := s.db.Query(`SELECT name, "notnull", dflt_value IS NOT NULL AND upper(dflt_value) <> 'NULL'
		FROM pragma_table_info('billing_lines')`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	type col struct{ notNull, hasDefault bool }
	schema := map[string]col{}
	for rows.Next() {
		var name string
		var c col
		if err := rows.Scan(&name, &c.notNull, &c.hasDefault); err != nil {
			t.Fatal(err)
		}
		schema[name] = c
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	names := billingColumnNames()
	if len(names) != billingArity {
		t.Fatalf("billingColumns names %d columns, billingArity is %d", len(names), billingArity)
	}
	for i, name := range names[1:] {
		c, ok := schema[name]
		if !ok {
			t.Fatalf("billingColumns names %s, which billing_lines does not have", name)
		}
		bit := billingBound(1) << (i + 1)
		if billingAll&bit == 0 {
			t.Errorf("%s (column %d) is not in billingAll", name, i+1)
		}
		if always := billingAlways&bit != 0; always != (c.notNull || c.hasDefault) {
			t.Errorf("%s: NOT NULL %v, a default other than NULL %v, in billingAlways %v: want it in billingAlways exactly when either holds",
				name, c.notNull, c.hasDefault, always)
		}
	}
}

// TestBatchArgsMatchLineArgs: the values billingBatch.add keeps for a line
// (reusing the previous line's boxes for the texts it repeats) are, type
// and value, what bindArg makes of appendLineArgs' for that line alone.
// Generated lines whose fields often repeat the previous line's, texts
// from bindPool (canonical integers and near misses) among them; every
// column of every line compared. It fails when a text is given the
// previous line's box without being equal to it, or its bound value is
// not the one bindArg gives.
func TestBatchArgsMatchLineArgs(t *testing.T) {
	rng := rand.New(rand.NewPCG(35, 9))
	base := utc(2025, 3, 1, 0, 0, 0)
	b := billingBatch{source: int64(7)}
	var prev *finops.BillingLine
	var prevArgs []any
	repeats := 0 // values equal to the previous line's in their column: what box and boxDecimal reuse
	for i := range 3 * billingChunkRows {
		l := randomBindLine(rng, i+2, base)
		if prev != nil {
			keepFields(rng, l, prev, 0.3)
		}
		prev = l
		if b.cur != nil && len(b.cur.starts) == billingChunkRows {
			b.cur = nil // as the writer hands a full chunk over
		}
		b.add(l)
		want := appendLineArgs(nil, int64(7), l, tagsText(t, l))
		for c, v := range want {
			if _, text := v.(string); text && prevArgs != nil && prevArgs[c] == v {
				repeats++
			}
		}
		prevArgs = slices.Clone(want)
		for c, v := range want {
			if v != nil {
				want[c] = bindArg(v)
			}
		}
		got := b.cur.args[len(b.cur.args)-billingArity:]
		for c := range want {
			if got[c] != want[c] {
				t.Fatalf("line %d, column %s: kept %#v, want %#v", i+2, billingColumnNames()[c], got[c], want[c])
			}
		}
	}
	if repeats < 10*billingChunkRows {
		t.Errorf("only %d texts repeat the previous line's: the lines repeat too little to test the reuse of boxes", repeats)
	}
}

// tagsText is a line's tags as the store keeps them, by encoding/json
// (independent of billingBatch.tagsJSON), or nil.
func tagsText(t *testing.T, l *finops.BillingLine) any {
	t.Helper()
	if len(l.Tags) == 0 {
		return nil
	}
	b, err := json.Marshal(l.Tags)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
