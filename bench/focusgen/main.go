// Command focusgen writes a large FOCUS 1.0 CSV for the ingest benchmark
// (bench/run.sh). It repeats the rows of the FOCUS sample export
// (testdata/ingest/focus_sample.csv), shifting each pass by one day and
// giving every row its own Id and resource, so the output looks like a long
// real export: about 750 bytes a row, NULLs, tags, 15-digit decimals.
// With -quote-all every field is quoted (numbers and NULL too, as some
// exporters write them) and with -distinct every row has a resource of its
// own (a fleet of short-lived instances), the two costs the issue #15
// export adds to a parser and a store.
//
//	go run ./bench/focusgen -rows 200000 -o /tmp/focus-200k.csv
//	go run ./bench/focusgen -rows 200000 -quote-all -distinct -o /tmp/focus-quoted.csv
package main

import (
	"encoding/csv"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"
)

func main() {
	rows := flag.Int("rows", 200000, "data rows to write")
	out := flag.String("o", "", "output file (default stdout)")
	sample := flag.String("sample", "testdata/ingest/focus_sample.csv", "FOCUS sample to repeat")
	quoteAll := flag.Bool("quote-all", false, "quote every field, numbers and NULL included")
	distinct := flag.Bool("distinct", false, "give every row a resource id of its own (default: one per sample row and pass)")
	flag.Parse()
	if err := run(*sample, *out, *rows, *quoteAll, *distinct); err != nil {
		fmt.Fprintln(os.Stderr, "focusgen:", err)
		os.Exit(1)
	}
}

func run(samplePath, outPath string, rows int, quoteAll, distinct bool) error {
	f, err := os.Open(samplePath)
	if err != nil {
		return err
	}
	recs, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil {
		return fmt.Errorf("%s: %w", samplePath, err)
	}
	if len(recs) < 2 {
		return errors.New(samplePath + ": no rows")
	}
	hdr, tmpl := recs[0], recs[1:]
	col := map[string]int{}
	for i, h := range hdr {
		col[h] = i
	}
	for _, need := range []string{"ChargePeriodStart", "ChargePeriodEnd", "Id", "ResourceId", "BilledCost", "EffectiveCost"} {
		if _, ok := col[need]; !ok {
			return fmt.Errorf("%s: no column %s", samplePath, need)
		}
	}

	var w io.Writer = os.Stdout
	if outPath != "" {
		of, err := os.Create(outPath)
		if err != nil {
			return err
		}
		defer of.Close()
		w = of
	}
	bw := newQuotingWriter(w)
	bw.all = quoteAll
	bw.write(hdr)
	rec := make([]string, len(hdr))
	for i := range rows {
		t := tmpl[i%len(tmpl)]
		pass := i / len(tmpl)
		copy(rec, t)
		shift := time.Duration(pass) * 24 * time.Hour
		for _, c := range []string{"ChargePeriodStart", "ChargePeriodEnd"} {
			rec[col[c]] = shiftTime(t[col[c]], shift)
		}
		rec[col["Id"]] = strconv.Itoa(i + 1)
		if r := t[col["ResourceId"]]; r != "NULL" && r != "" {
			if distinct {
				rec[col["ResourceId"]] = r + "-" + strconv.Itoa(i)
			} else {
				rec[col["ResourceId"]] = r + "-" + strconv.Itoa(pass)
			}
		}
		// Vary the costs a little from pass to pass (exact decimal arithmetic).
		for _, c := range []string{"BilledCost", "EffectiveCost"} {
			rec[col[c]] = scale(t[col[c]], pass)
		}
		bw.write(rec)
	}
	return bw.flush()
}

func shiftTime(s string, d time.Duration) string {
	t, err := time.Parse("2006-01-02 15:04:05", s)
	if err != nil {
		return s
	}
	return t.Add(d).Format("2006-01-02 15:04:05")
}

// scale multiplies an amount by 1.000 … 1.036, keeping its number of
// fractional digits (the sample writes up to 15).
func scale(s string, pass int) string {
	d, err := decimal.NewFromString(s)
	if err != nil {
		return s
	}
	digits := 0
	if _, frac, ok := strings.Cut(s, "."); ok {
		digits = len(frac)
	}
	f := decimal.New(int64(1000+pass%37), -3)
	return d.Mul(f).StringFixed(int32(digits))
}

// numericColumns are the columns the FOCUS sample writes unquoted.
var numericColumns = map[string]bool{"BilledCost": true, "ConsumedQuantity": true, "ContractedCost": true,
	"ContractedUnitPrice": true, "EffectiveCost": true, "ListCost": true, "PricingQuantity": true, "Id": true}

// quotingWriter writes CSV as the FOCUS sample does: every field quoted
// except the NULL literal and the numeric columns (all: every field).
type quotingWriter struct {
	w      io.Writer
	all    bool
	buf    []byte
	err    error
	plain  []bool
	header bool
}

func newQuotingWriter(w io.Writer) *quotingWriter { return &quotingWriter{w: w} }

func (q *quotingWriter) write(rec []string) {
	if q.plain == nil {
		q.plain = make([]bool, len(rec))
		for i, h := range rec {
			q.plain[i] = numericColumns[h]
		}
		q.header = true
	}
	for i, f := range rec {
		if i > 0 {
			q.buf = append(q.buf, ',')
		}
		if !q.header && !q.all && (f == "NULL" || q.plain[i]) {
			q.buf = append(q.buf, f...)
			continue
		}
		q.buf = append(q.buf, '"')
		q.buf = append(q.buf, strings.ReplaceAll(f, `"`, `""`)...)
		q.buf = append(q.buf, '"')
	}
	q.buf = append(q.buf, '\n')
	q.header = false
	if len(q.buf) > 1<<20 {
		q.flush()
	}
}

func (q *quotingWriter) flush() error {
	if q.err == nil && len(q.buf) > 0 {
		_, q.err = q.w.Write(q.buf)
	}
	q.buf = q.buf[:0]
	return q.err
}
