package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/testenv"
)

// maxPrintedPages bounds the demo workbook (four teams) as LibreOffice
// prints it: issue 33's 12 pages. It printed 11 when measured (LibreOffice
// 7.4, A4 from the demo's Asia/Shanghai zone), each sheet one page wide at
// 8 pt or more and the hourly utilization and billing lines left out
// (README §Printing); 39 before that, 28 of them hourly utilization, and 92
// before the page setup.
const maxPrintedPages = 12

// pdfPage matches a page object of a PDF as LibreOffice writes it
// (uncompressed object dictionaries): /Type /Page, not /Pages.
var pdfPage = regexp.MustCompile(`/Type\s*/Page\b[^s]`)

// checkPrintedWorkbook converts the demo's workbook to PDF with headless
// LibreOffice and counts its pages. Whether a chart is split across pages
// is not checked: the PDF draws charts as paths with nothing naming them.
func checkPrintedWorkbook(t *testing.T, out string) {
	soffice, err := exec.LookPath("soffice")
	if err != nil {
		testenv.Missing(t, "soffice not found: install LibreOffice Calc (apt-get install -y libreoffice-calc-nogui) to print the demo workbook")
	}
	pdfDir := t.TempDir()
	cmd := exec.Command(soffice, "--headless", "-env:UserInstallation=file://"+filepath.ToSlash(t.TempDir()),
		"--convert-to", "pdf", "--outdir", pdfDir, filepath.Join(out, "finops-2026-W48.xlsx"))
	start := time.Now()
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("soffice: %v\n%s", err, b)
	}
	pdf, err := os.ReadFile(filepath.Join(pdfDir, "finops-2026-W48.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	pages := len(pdfPage.FindAll(pdf, -1))
	t.Logf("LibreOffice printed the demo workbook on %d pages in %v", pages, time.Since(start).Round(time.Second))
	if pages == 0 || pages > maxPrintedPages {
		t.Errorf("the demo workbook prints on %d pages, want 1..%d: has a sheet lost its page setup (report/xlsx)?", pages, maxPrintedPages)
	}
}
