package templates

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"strings"
	"testing"

	"github.com/finops-oss/finops/internal/testenv"
)

func TestReportParses(t *testing.T) {
	tpl := Report()
	for _, name := range []string{"report.html.tmpl", "report.css"} {
		if tpl.Lookup(name) == nil {
			t.Errorf("template %q missing", name)
		}
	}
	// A fresh template per call: callers cannot affect each other.
	if Report() == tpl {
		t.Error("Report returned a shared template")
	}
}

func TestEmailParses(t *testing.T) {
	if Email() == Email() {
		t.Error("Email returned a shared template")
	}
}

func TestEChartsMatchesPinnedHash(t *testing.T) {
	want, err := fs.ReadFile(assets, "assets/echarts.min.js.sha256")
	if err != nil {
		t.Fatalf("the pinned hash must be committed: %v", err)
	}
	lib := ECharts()
	if lib == nil {
		testenv.Missing(t, "echarts.min.js not fetched (make assets); the report renders without charts")
	}
	sum := sha256.Sum256(lib)
	if got := hex.EncodeToString(sum[:]); got != strings.Fields(string(want))[0] {
		t.Errorf("embedded echarts.min.js sha256 = %s, pinned %s", got, want)
	}
}
