package report

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/finops-oss/finops/internal/analysis"
	"github.com/finops-oss/finops/internal/workbook"
)

// findingsPrintCases: issue #27's Findings sheet printed at about 3 pt on
// 43 Letter pages for a team outside the Americas. Every sheet now names its
// paper from the report's zone, and the Findings sheet, with a long "What to
// do", prints one landscape page wide at 8 pt or more: LibreOffice prints it
// (TestWorkbooksPrint), and the PDF's page size and text size are read back.
var findingsPrintCases = []struct {
	zone         string
	paper        int
	width, hight float64 // landscape, in PDF points: A4 297 × 210 mm, Letter 11 × 8.5 in
}{
	{"Asia/Shanghai", workbook.PaperA4, 297 / 25.4 * 72, 210 / 25.4 * 72},
	{"America/New_York", workbook.PaperLetter, 11 * 72, 8.5 * 72},
	{"Europe/Berlin", workbook.PaperA4, 297 / 25.4 * 72, 210 / 25.4 * 72},
}

// writeFindingsBooks writes, for each of findingsPrintCases, a workbook of
// the Findings sheet alone (so every page of its PDF is one of its) into
// dir as findings-<i>.xlsx, after checking that every sheet of the whole
// workbook names the zone's paper.
func writeFindingsBooks(t *testing.T, dir string) []string {
	t.Helper()
	var names []string
	for i, tc := range findingsPrintCases {
		r := handResult(t)
		r.Period.TimeZone = tc.zone
		r.Findings = append(r.Findings, analysis.Finding{Kind: analysis.FindingForgotten, Severity: "high",
			Team: "research-platform", ResourceID: "ecs.gn7i-c32g1.32xlarge/i-bp1a2b3c4d5e6f7g8h9i", Money: 1234.5,
			Text: strings.Repeat("The machine sat idle all week while billed by the month; release it or share it. ", 8)})
		_, f := writeBook(t, r)
		for _, sheet := range f.GetSheetList() {
			pl, err := f.GetPageLayout(sheet)
			if err != nil {
				t.Fatal(err)
			}
			if pl.Size == nil || *pl.Size != tc.paper {
				t.Errorf("%s %s: paper %s, want %d", tc.zone, sheet, paperText(pl.Size), tc.paper)
			}
		}
		for _, sheet := range f.GetSheetList() {
			if sheet != sheetFindings {
				if err := f.DeleteSheet(sheet); err != nil {
					t.Fatal(err)
				}
			}
		}
		name := fmt.Sprintf("findings-%d", i)
		if err := f.SaveAs(filepath.Join(dir, name+".xlsx")); err != nil {
			t.Fatal(err)
		}
		names = append(names, name)
	}
	return names
}

// checkFindingsPrinted reads back the PDFs of writeFindingsBooks' files.
func checkFindingsPrinted(t *testing.T, dir string) {
	for i, tc := range findingsPrintCases {
		t.Run(tc.zone, func(t *testing.T) {
			pdf, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("findings-%d.pdf", i)))
			if err != nil {
				t.Fatal(err)
			}
			pages := pdfPages(t, pdf)
			if len(pages) == 0 || len(pages) > 2 {
				t.Errorf("the Findings sheet printed on %d pages, want 1 or 2", len(pages))
			}
			for i, p := range pages {
				if abs(p.width-tc.width) > 1 || abs(p.height-tc.hight) > 1 {
					t.Errorf("page %d is %.0f × %.0f pt, want %.0f × %.0f", i+1, p.width, p.height, tc.width, tc.hight)
				}
				if p.minFont < 8 {
					t.Errorf("page %d prints text at %.1f pt, want 8 pt or more", i+1, p.minFont)
				}
			}
		})
	}
}

func paperText(size *int) string {
	if size == nil {
		return "unset"
	}
	return strconv.Itoa(*size)
}

func abs(x float64) float64 { return max(x, -x) }

// pdfPage is what the test reads of a page LibreOffice printed.
type pdfPage struct{ width, height, minFont float64 }

var (
	pdfObject    = regexp.MustCompile(`(?s)(\d+) 0 obj(.*?)endobj`)
	pdfIsPage    = regexp.MustCompile(`/Type\s*/Page\b[^s]`)
	pdfMediaBox  = regexp.MustCompile(`/MediaBox\s*\[\s*([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s*\]`)
	pdfContents  = regexp.MustCompile(`/Contents\s*(\d+) 0 R`)
	pdfLengthRef = regexp.MustCompile(`/Length\s+(\d+) 0 R`)
	pdfLength    = regexp.MustCompile(`/Length\s+(\d+)\b`)
	pdfFontSize  = regexp.MustCompile(`([\d.]+) Tf`)
)

// pdfContent is the decoded content stream of object id: its /Length bytes
// (a number or a reference to one, as LibreOffice writes it) after "stream",
// read from the file itself since the deflated bytes may hold "endobj" or
// "endstream", then inflated when the object says FlateDecode.
func pdfContent(t *testing.T, pdf []byte, objs map[string][]byte, id string) []byte {
	t.Helper()
	obj := objs[id]
	n := -1
	if m := pdfLengthRef.FindSubmatch(obj); m != nil {
		n, _ = strconv.Atoi(strings.TrimSpace(string(objs[string(m[1])])))
	} else if m := pdfLength.FindSubmatch(obj); m != nil {
		n, _ = strconv.Atoi(string(m[1]))
	}
	start := bytes.Index(pdf, []byte("\n"+id+" 0 obj"))
	if start < 0 || n < 0 {
		t.Fatalf("PDF object %s: not found or no /Length", id)
	}
	body := pdf[start:]
	k := bytes.Index(body, []byte("stream"))
	if k < 0 {
		t.Fatalf("PDF object %s: no stream", id)
	}
	body = body[k+len("stream"):]
	body = bytes.TrimPrefix(bytes.TrimPrefix(body, []byte("\r")), []byte("\n"))
	if len(body) < n {
		t.Fatalf("PDF object %s: stream shorter than its /Length %d", id, n)
	}
	data := body[:n]
	if !bytes.Contains(obj[:bytes.Index(obj, []byte("stream"))], []byte("FlateDecode")) {
		return data
	}
	zr, err := zlib.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("PDF object %s: %v", id, err)
	}
	text, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("PDF object %s: %v", id, err)
	}
	return text
}

// pdfPages reads each page's media box and the smallest font size its
// content stream sets, from a PDF as LibreOffice writes it (uncompressed
// object dictionaries, deflated content streams, text at its printed size).
func pdfPages(t *testing.T, pdf []byte) []pdfPage {
	t.Helper()
	objs := map[string][]byte{}
	var order []string
	for _, m := range pdfObject.FindAllSubmatch(pdf, -1) {
		objs[string(m[1])] = m[2]
		order = append(order, string(m[1]))
	}
	var pages []pdfPage
	for _, id := range order {
		o := objs[id]
		if !pdfIsPage.Match(o) {
			continue
		}
		box, contents := pdfMediaBox.FindSubmatch(o), pdfContents.FindSubmatch(o)
		if box == nil || contents == nil {
			t.Fatalf("PDF page object %s has no media box or contents: %q", id, o)
		}
		num := func(b []byte) float64 {
			v, err := strconv.ParseFloat(string(b), 64)
			if err != nil {
				t.Fatal(err)
			}
			return v
		}
		p := pdfPage{width: num(box[3]) - num(box[1]), height: num(box[4]) - num(box[2]), minFont: 1e9}
		text := pdfContent(t, pdf, objs, string(contents[1]))
		for _, m := range pdfFontSize.FindAllSubmatch(text, -1) {
			p.minFont = min(p.minFont, num(m[1]))
		}
		if p.minFont == 1e9 {
			// Every page prints at least its repeated header row: a page
			// without text is one this reader failed to read, not a pass.
			t.Fatalf("PDF page object %s: no text size found in its contents", id)
		}
		pages = append(pages, p)
	}
	return pages
}
