package store

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/internal/ingest"
	"github.com/shopspring/decimal"
)

// The invariant of scope.go: no import ever removes a charge that no
// retained delivery contains, unless the user said so (--replace). These
// tests are issue #32's cases (TestNoImportLosesCharges), a delivery that
// drops money (TestPeriodChangeNamesTheDrop), and generated pairs of files
// checked against a map of the charges built from the generated data
// (TestImportPairsNeverLoseCharges).

// charge is one billing line of a test file: a resource on a day of
// November 2026 at a cost.
type charge struct {
	res  string
	day  int
	cost string
}

// chargeFile is a billing file made of explicit charges.
type chargeFile struct {
	name    string
	format  string // FOCUS unless set
	account string // 111 unless set
	charges []charge
}

func (f chargeFile) parse() ParseFunc {
	var lines []*finops.BillingLine
	total := decimal.Zero
	for i, c := range f.charges {
		l := usageLine(i+2, c.res, utc(2026, 11, c.day, 0, 0, 0), utc(2026, 11, c.day+1, 0, 0, 0), c.cost)
		l.Provider, l.BillingAccount, l.SKU = "AWS", cmp.Or(f.account, "111"), "BoxUsage:p4d.24xlarge"
		lines = append(lines, l)
		total = total.Add(decimal.RequireFromString(c.cost))
	}
	format := f.format
	if format == "" {
		format = ingest.FormatFOCUS
	}
	return feed(&ingest.Summary{Format: format, Kind: ingest.KindBilling, Rows: len(lines), TotalCost: total}, lines, nil, nil)
}

// meta: the bytes are the charges, so a file rewritten with other charges
// has another sha256, and the same charges under another name the same.
func (f chargeFile) meta(replace bool) FileMeta {
	return FileMeta{URI: f.name, SHA256: shaOf(f.format + f.account + fmt.Sprint(f.charges)), Replace: replace}
}

func (f chargeFile) importInto(s *Store, replace bool) (*ImportResult, error) {
	return s.Import(context.Background(), f.meta(replace), f.parse())
}

// f1Charges is issue #32's f1.csv: 20 FOCUS lines, one per resource and
// day — gpu-NN on 2026-11-NN for NN = 01 … 20 — at 10.00 USD each: 200.00.
func f1Charges() []charge {
	var out []charge
	for d := 1; d <= 20; d++ {
		out = append(out, charge{fmt.Sprintf("gpu-%02d", d), d, "10.00"})
	}
	return out
}

// pick returns f1's charges of the given resources' numbers.
func pick(nums ...int) []charge {
	all := f1Charges()
	var out []charge
	for _, n := range nums {
		out = append(out, all[n-1])
	}
	return out
}

func evens() []int { return []int{2, 4, 6, 8, 10, 12, 14, 16, 18, 20} }

// TestNoImportLosesCharges: issue #32's files after f1.csv. Today's main
// let a filtered export that "reaches further" replace f1 (the month fell to
// 120.00 though 210.00 of distinct charges were delivered), as it let a
// file of the same name win; each is now refused, naming both files, the
// charges only in f1.csv and --replace, and the total stays 200.00.
func TestNoImportLosesCharges(t *testing.T) {
	f1 := chargeFile{name: "f1.csv", charges: f1Charges()}
	later := charge{"gpu-21", 21, "10.00"}
	cheap := charge{"gpu-21", 21, "1.00"}
	tests := []struct {
		name    string
		second  chargeFile
		replace bool
		// wantErr: parts of the refusal; "" when it imports.
		wantErr    []string
		wantTotal  string
		wantStored string
		wantAction string // what the second file's import says of f1.csv
	}{{
		// a1f.csv: f1's gpu-01 line, the 10 lines of the even resources
		// (gpu-02 … gpu-20, days 2 … 20) and gpu-21 on 11-21: 12 lines,
		// 120.00. f1's charges it lacks: the odd resources gpu-03 … gpu-19,
		// 9 lines, 9 × 10.00 = 90.00.
		name:   "filtered export reaching further",
		second: chargeFile{name: "a1f.csv", charges: append(append(pick(1), pick(evens()...)...), later)},
		// a1f covers 11-01 … 11-22 (gpu-21's day ends then), f1 11-01 …
		// 11-21; they share gpu-01 and the 10 even charges: 11.
		wantErr: []string{"a1f.csv: its charges of AWS account 111, 2026-11 (2026-11-01 00:00 .. 2026-11-22 00:00, 12 lines, 120.00 USD)",
			"those of f1.csv, imported before (2026-11-01 00:00 .. 2026-11-21 00:00, 20 lines, 200.00 USD)", "with 11 charges in both",
			"charges only in f1.csv: 9, 90.00 USD", "finops ingest --replace a1f.csv"},
		wantTotal:  "200.00",
		wantStored: "f1.csv:20",
	}, {
		// The same starting one day later (no gpu-01 line): 11 lines;
		// f1's charges it lacks: gpu-01 and the 9 odd ones, 100.00.
		name:       "filtered export starting a day later",
		second:     chargeFile{name: "a1g.csv", charges: append(pick(evens()...), later)},
		wantErr:    []string{"those of f1.csv", "charges only in f1.csv: 10, 100.00 USD", "--replace a1g.csv"},
		wantTotal:  "200.00",
		wantStored: "f1.csv:20",
	}, {
		// Two lines: f1's 11-01 line and gpu-21 at 1.00 on 11-21; f1's
		// other 19 charges, 190.00, are in no other file.
		name:       "two-line file",
		second:     chargeFile{name: "two.csv", charges: []charge{pick(1)[0], cheap}},
		wantErr:    []string{"those of f1.csv", "charges only in f1.csv: 19, 190.00 USD", "--replace two.csv"},
		wantTotal:  "200.00",
		wantStored: "f1.csv:20",
	}, {
		// The same two lines piped in: standard input is a file like any.
		name:       "two lines on standard input",
		second:     chargeFile{name: StdinURI, charges: []charge{pick(1)[0], cheap}},
		wantErr:    []string{"stdin: its charges", "those of f1.csv", "charges only in f1.csv: 19, 190.00 USD", "--replace stdin"},
		wantTotal:  "200.00",
		wantStored: "f1.csv:20",
	}, {
		// f1.csv rewritten where it lay with 2 of its lines and one later
		// line: its name gives it no right to delete the other 18 (180.00).
		name:       "the same path rewritten",
		second:     chargeFile{name: "f1.csv", charges: []charge{pick(1)[0], pick(2)[0], cheap}},
		wantErr:    []string{"those of f1.csv", "charges only in f1.csv: 18, 180.00 USD", "--replace f1.csv"},
		wantTotal:  "200.00",
		wantStored: "f1.csv:20",
	}, {
		// a1f.csv with --replace: the user said so. It wins where it
		// reaches (11-01 … 11-21), so all 20 of f1's lines go and the
		// month is a1f's 12 × 10.00 = 120.00, 9 charges (90.00) lost.
		name:       "filtered export with --replace",
		second:     chargeFile{name: "a1f.csv", charges: append(append(pick(1), pick(evens()...)...), later)},
		replace:    true,
		wantTotal:  "120.00",
		wantStored: "a1f.csv:12",
		wantAction: OverlapReplaced,
	}, {
		// Every charge of f1 (gpu-05 restated 10.00 → 12.50) and gpu-21:
		// it replaces f1: 19 × 10.00 + 12.50 + 10.00 = 212.50.
		name:       "superset with a restated amount",
		second:     chargeFile{name: "f1-later.csv", charges: append(append(pick(1, 2, 3, 4), charge{"gpu-05", 5, "12.50"}), append(pick(6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20), later)...)},
		wantTotal:  "212.50",
		wantStored: "f1-later.csv:21",
		wantAction: OverlapReplaced,
	}, {
		// f1's first ten days only (an older snapshot imported late): it
		// holds no charge f1 lacks; left out, 200.00.
		name:       "subset",
		second:     chargeFile{name: "f1-early.csv", charges: pick(1, 2, 3, 4, 5, 6, 7, 8, 9, 10)},
		wantTotal:  "200.00",
		wantStored: "f1.csv:20",
		wantAction: OverlapKept,
	}, {
		// gpu-21 … gpu-25 on days 21 … 25: no charge in common, both
		// kept: 200.00 + 5 × 10.00 = 250.00.
		name:       "disjoint",
		second:     chargeFile{name: "f2.csv", charges: []charge{{"gpu-21", 21, "10.00"}, {"gpu-22", 22, "10.00"}, {"gpu-23", 23, "10.00"}, {"gpu-24", 24, "10.00"}, {"gpu-25", 25, "10.00"}}},
		wantTotal:  "250.00",
		wantStored: "f1.csv:20 f2.csv:5",
	}, {
		// f1's charges under another name (its Parquet copy): once, 200.00.
		name:       "identical content",
		second:     chargeFile{name: "f1.parquet", format: ingest.FormatFOCUS, charges: append(f1Charges()[10:], f1Charges()[:10]...)},
		wantTotal:  "200.00",
		wantStored: "f1.csv:20",
		wantAction: OverlapSame,
	}, {
		// A CUR data file imported without its manifest, filtered as a1f:
		// the format gives no right to delete charges either.
		name:       "filtered CUR without a manifest",
		second:     chargeFile{name: "cur-filtered.csv.gz", format: ingest.FormatCUR, charges: append(append(pick(1), pick(evens()...)...), later)},
		wantErr:    []string{"those of f1.csv", "charges only in f1.csv: 9, 90.00 USD", "--replace cur-filtered.csv.gz"},
		wantTotal:  "200.00",
		wantStored: "f1.csv:20",
	}, {
		// A CUR data file holding half of f1 and nothing else: left out.
		name:       "subset CUR without a manifest",
		second:     chargeFile{name: "cur-half.csv.gz", format: ingest.FormatCUR, charges: pick(evens()...)},
		wantTotal:  "200.00",
		wantStored: "f1.csv:20",
		wantAction: OverlapKept,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := openTest(t)
			if _, err := f1.importInto(s, false); err != nil {
				t.Fatal(err)
			}
			res, err := tt.second.importInto(s, tt.replace)
			if len(tt.wantErr) > 0 {
				var oe *OverlapError
				if !errors.As(err, &oe) {
					t.Fatalf("import %s: err = %v, want an OverlapError", tt.second.name, err)
				}
				for _, w := range tt.wantErr {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("the refusal does not say %q:\n%v", w, err)
					}
				}
			} else {
				if err != nil {
					t.Fatalf("import %s: %v", tt.second.name, err)
				}
				var action string
				for _, n := range res.Overlaps {
					if n.Other == f1.name {
						action = n.Action
					}
				}
				if action != tt.wantAction {
					t.Errorf("overlap action = %q, want %q (%+v)", action, tt.wantAction, res.Overlaps)
				}
			}
			if got := novemberTotal(t, s); got != tt.wantTotal {
				t.Errorf("total = %s, want %s", got, tt.wantTotal)
			}
			if got := storedURIs(t, s); got != tt.wantStored {
				t.Errorf("stored = %s, want %s", got, tt.wantStored)
			}
		})
	}
}

// TestReplaceSaysWhatItLoses: --replace deletes charges on purpose, and
// its note counts them: a1f.csv lacks 9 of f1's (90.00), f1's gpu-05 is
// not restated by it (only present or absent), so 0 restated.
func TestReplaceSaysWhatItLoses(t *testing.T) {
	s := openTest(t)
	if _, err := (chargeFile{name: "f1.csv", charges: f1Charges()}).importInto(s, false); err != nil {
		t.Fatal(err)
	}
	a1f := chargeFile{name: "a1f.csv", charges: append(append(pick(1), pick(evens()...)...), charge{"gpu-21", 21, "10.00"})}
	res, err := a1f.importInto(s, true)
	if err != nil {
		t.Fatal(err)
	}
	want := OverlapNote{Scope: "AWS account 111, 2026-11", Other: "f1.csv", Action: OverlapReplaced, Lines: 20, Forced: true, Lost: 9, LostCost: "90.00 USD"}
	if len(res.Overlaps) != 1 || res.Overlaps[0] != want {
		t.Errorf("notes = %+v, want [%+v]", res.Overlaps, want)
	}
}

// TestKeptSubsetCountsOtherAmounts: a file whose every charge f1.csv holds
// adds none and is left out, its other amounts counted in the note: f1's
// first five charges with gpu-05 at 12.50 instead of 10.00 — 1 at another
// amount; the month stays f1's 200.00.
func TestKeptSubsetCountsOtherAmounts(t *testing.T) {
	s := openTest(t)
	if _, err := (chargeFile{name: "f1.csv", charges: f1Charges()}).importInto(s, false); err != nil {
		t.Fatal(err)
	}
	res, err := (chargeFile{name: "early.csv", charges: append(pick(1, 2, 3, 4), charge{"gpu-05", 5, "12.50"})}).importInto(s, false)
	if err != nil {
		t.Fatal(err)
	}
	want := OverlapNote{Scope: "AWS account 111, 2026-11", Other: "f1.csv", Action: OverlapKept, Lines: 5, Restated: 1}
	if !res.Superseded || len(res.Overlaps) != 1 || res.Overlaps[0] != want {
		t.Errorf("result %+v, notes %+v; want superseded, [%+v]", res, res.Overlaps, want)
	}
	if got := novemberTotal(t, s); got != "200.00" {
		t.Errorf("total = %s, want 200.00", got)
	}
}
