package store

import (
	"errors"
	"fmt"
	"maps"
	"math/rand"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestImportPairsNeverLoseCharges imports generated pairs of files — a
// random first file, then a subset, a superset, a restatement (the same
// charges at new amounts), the same charges shifted by some days, a
// disjoint set, a mix, or the same charges reordered — under another
// name, as standard input, or at the same path. For every pair it checks,
// against a map of charge → amount built from the generated data (not by
// the store), that the second file either imported and the stored charges
// are the union of the two files' distinct charges (a charge of both at
// the later file's amount when the later file holds every charge of the
// first, at the first's when the first holds every charge of the later),
// or was refused (an OverlapError naming both files and --replace) and
// the stored charges are the first file's. Each pair has an account of its
// own, so all share one database.
func TestImportPairsNeverLoseCharges(t *testing.T) {
	const pairs = 300
	rng := rand.New(rand.NewSource(32))
	s := openTest(t)
	// want: per account, the charges that must be stored.
	want := map[string]map[pairKey]int64{}
	kinds := map[string]int{}
	outcomes := map[string]int{}
	for p := range pairs {
		account := fmt.Sprintf("acct-%03d", p)
		a, keys := pairFirstFile(rng)
		kind := []string{"subset", "superset", "restatement", "shifted", "disjoint", "mix", "reordered"}[rng.Intn(7)]
		kinds[kind]++
		b := pairSecondFile(rng, kind, a, keys)
		// Names: another file, both on standard input, or one path.
		nameA, nameB := "first.csv", "second.csv"
		switch rng.Intn(3) {
		case 1:
			nameA, nameB = StdinURI, StdinURI
		case 2:
			nameB = nameA
		}
		if _, err := pairChargeFile(account, nameA, a).importInto(s, false); err != nil {
			t.Fatalf("pair %d: first file: %v", p, err)
		}
		_, err := pairChargeFile(account, nameB, b).importInto(s, false)

		exp, refused := pairExpected(a, b)
		checkPairOutcome(t, p, kind, refused, err, nameA, nameB)
		outcomes[fmt.Sprint(refused)]++
		want[account] = exp
	}

	got := storedPairCharges(t, s)
	for account, exp := range want {
		if !maps.Equal(got[account], exp) {
			t.Errorf("%s: stored %v, want %v", account, got[account], exp)
		}
	}
	// Every kind and both outcomes were tried.
	if len(kinds) != 7 || outcomes["true"] < 20 || outcomes["false"] < 20 {
		t.Errorf("generated too narrow a set: kinds %v, refused/imported %v", kinds, outcomes)
	}
}

// pairKey is one charge of a generated pair: a resource on a November day.
type pairKey struct {
	res string
	day int
}

// pairFirstFile generates the first file: n distinct charges of 6
// resources on days 1–25, 0.01 … 50.00 each, and its keys in a fixed order
// so that the second file's draws do not depend on map order.
func pairFirstFile(rng *rand.Rand) (map[pairKey]int64, []pairKey) {
	n := 1 + rng.Intn(20)
	a := map[pairKey]int64{}
	for len(a) < n {
		a[pairKey{fmt.Sprintf("r%d", rng.Intn(6)), 1 + rng.Intn(25)}] = 1 + rng.Int63n(5000)
	}
	keys := slices.SortedFunc(maps.Keys(a), func(x, y pairKey) int { return strings.Compare(fmt.Sprint(x), fmt.Sprint(y)) })
	return a, keys
}

// pairNewCharge is a charge never in a first file: resources r6–r9.
func pairNewCharge(rng *rand.Rand) pairKey {
	return pairKey{fmt.Sprintf("r%d", 6+rng.Intn(4)), 1 + rng.Intn(30)}
}

// pairSecondFile generates the second file of the given kind from the
// first file a (keys: a's keys in order).
func pairSecondFile(rng *rand.Rand, kind string, a map[pairKey]int64, keys []pairKey) map[pairKey]int64 {
	b := map[pairKey]int64{}
	switch kind {
	case "subset":
		for _, k := range keys {
			if rng.Intn(2) == 0 {
				b[k] = a[k]
			}
		}
		if len(b) == 0 {
			b[keys[0]] = a[keys[0]]
		}
	case "superset", "restatement":
		for _, k := range keys {
			b[k] = a[k]
			if rng.Intn(3) == 0 {
				b[k] = 1 + rng.Int63n(5000) // restated
			}
		}
		if kind == "superset" {
			for range 1 + rng.Intn(5) {
				b[pairNewCharge(rng)] = 1 + rng.Int63n(5000)
			}
		}
	case "shifted":
		shift := 1 + rng.Intn(5)
		for _, k := range keys {
			b[pairKey{k.res, k.day + shift}] = a[k]
		}
	case "disjoint":
		for range 1 + rng.Intn(10) {
			b[pairNewCharge(rng)] = 1 + rng.Int63n(5000)
		}
	case "mix":
		pairMix(rng, a, keys, b)
	case "reordered":
		maps.Copy(b, a)
	}
	return b
}

// pairMix fills b with some of a's charges kept, some restated, some
// dropped, and a few new ones.
func pairMix(rng *rand.Rand, a map[pairKey]int64, keys []pairKey, b map[pairKey]int64) {
	for _, k := range keys {
		switch rng.Intn(3) {
		case 0:
			b[k] = a[k]
		case 1:
			b[k] = 1 + rng.Int63n(5000)
		}
	}
	for range rng.Intn(4) {
		b[pairNewCharge(rng)] = 1 + rng.Int63n(5000)
	}
	if len(b) == 0 {
		b[pairNewCharge(rng)] = 1
	}
}

// pairChargeFile writes the charges of m as a file of account, in map
// order (any order).
func pairChargeFile(account, name string, m map[pairKey]int64) chargeFile {
	f := chargeFile{name: name, account: account}
	for _, k := range slices.Collect(maps.Keys(m)) { // map order: any order
		f.charges = append(f.charges, charge{k.res, k.day, fmt.Sprintf("%d.%02d", m[k]/100, m[k]%100)})
	}
	return f
}

// pairExpected is the expected outcome, from the two maps alone: the
// charges that must be stored and whether the second file is refused.
func pairExpected(a, b map[pairKey]int64) (map[pairKey]int64, bool) {
	shared, aInB, bInA := 0, true, true
	for k := range a {
		if _, ok := b[k]; ok {
			shared++
		} else {
			aInB = false
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			bInA = false
		}
	}
	exp := maps.Clone(a)
	refused := false
	switch {
	case shared == 0: // two halves: both
		maps.Copy(exp, b)
	case aInB: // the later holds every charge: its amounts
		exp = maps.Clone(b)
	case bInA: // the first holds every charge of the later
	default:
		refused = true
	}
	return exp, refused
}

// checkPairOutcome checks the second file's import error against the
// expected outcome: a refusal naming both files and --replace, or none.
func checkPairOutcome(t *testing.T, p int, kind string, refused bool, err error, nameA, nameB string) {
	t.Helper()
	var oe *OverlapError
	switch {
	case refused && !errors.As(err, &oe):
		t.Errorf("pair %d (%s): the second file lacks some of the first's charges and shares some: want a refusal, got %v", p, kind, err)
	case refused && (!strings.Contains(err.Error(), "those of "+nameA) || !strings.Contains(err.Error(), "--replace "+nameB)):
		t.Errorf("pair %d (%s): the refusal names neither file nor --replace: %v", p, kind, err)
	case !refused && err != nil:
		t.Errorf("pair %d (%s): want an import, got %v", p, kind, err)
	}
}

// storedPairCharges reads what is stored, once for every pair: per
// account, charge → amount in cents.
func storedPairCharges(t *testing.T, s *Store) map[string]map[pairKey]int64 {
	t.Helper()
	lines, err := s.Lines(t.Context(), utc(2026, 11, 1, 0, 0, 0), utc(2026, 12, 1, 0, 0, 0))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]map[pairKey]int64{}
	for _, l := range lines {
		m := got[l.BillingAccount]
		if m == nil {
			m = map[pairKey]int64{}
			got[l.BillingAccount] = m
		}
		k := pairKey{l.ResourceID, l.ChargeStart.Day()}
		if l.ChargeStart.Month() != time.November {
			t.Fatalf("a line outside November: %+v", l)
		}
		if _, dup := m[k]; dup {
			t.Errorf("%s: charge %v stored twice", l.BillingAccount, k)
		}
		m[k] = l.BilledCost.Shift(2).IntPart()
	}
	return got
}
