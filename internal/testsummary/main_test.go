package main

import (
	"reflect"
	"strings"
	"testing"

	"github.com/finops-oss/finops/internal/testenv"
)

// The streams are written by hand in go test -json's shape (as Go 1.26's
// test2json emits them for -v output), and the wanted text is what plain
// go test prints for the same run, written out by hand.
func TestSummarize(t *testing.T) {
	const pkg = "example.com/m/publish"
	for _, tc := range []struct {
		name       string
		stream     string
		wantOut    string
		wantSkips  []skip
		wantFailed bool
	}{
		{
			name: "pass and skip",
			stream: `{"Action":"start","Package":"example.com/m/publish"}
{"Action":"run","Package":"example.com/m/publish","Test":"TestA"}
{"Action":"output","Package":"example.com/m/publish","Test":"TestA","Output":"=== RUN   TestA\n"}
{"Action":"output","Package":"example.com/m/publish","Test":"TestA","Output":"--- PASS: TestA (0.00s)\n"}
{"Action":"pass","Package":"example.com/m/publish","Test":"TestA"}
{"Action":"run","Package":"example.com/m/publish","Test":"TestS3"}
{"Action":"output","Package":"example.com/m/publish","Test":"TestS3","Output":"=== RUN   TestS3\n"}
{"Action":"output","Package":"example.com/m/publish","Test":"TestS3","Output":"    s3_test.go:41: versitygw not found: go install github.com/versity/versitygw/cmd/versitygw@v1.8.0\n"}
{"Action":"output","Package":"example.com/m/publish","Test":"TestS3","Output":"--- SKIP: TestS3 (0.00s)\n"}
{"Action":"skip","Package":"example.com/m/publish","Test":"TestS3"}
{"Action":"output","Package":"example.com/m/publish","Output":"PASS\n"}
{"Action":"output","Package":"example.com/m/publish","Output":"ok  \texample.com/m/publish\t0.012s\n"}
{"Action":"pass","Package":"example.com/m/publish"}
{"Action":"output","Package":"example.com/m/none","Output":"?   \texample.com/m/none\t[no test files]\n"}
{"Action":"skip","Package":"example.com/m/none"}
`,
			wantOut:   "ok  \texample.com/m/publish\t0.012s\n?   \texample.com/m/none\t[no test files]\n",
			wantSkips: []skip{{pkg, "TestS3", "versitygw not found: go install github.com/versity/versitygw/cmd/versitygw@v1.8.0"}},
		},
		{
			name: "failing subtest and a build error",
			stream: `{"Action":"run","Package":"example.com/m/publish","Test":"TestB"}
{"Action":"output","Package":"example.com/m/publish","Test":"TestB","Output":"=== RUN   TestB\n"}
{"Action":"run","Package":"example.com/m/publish","Test":"TestB/x"}
{"Action":"output","Package":"example.com/m/publish","Test":"TestB/x","Output":"=== RUN   TestB/x\n"}
{"Action":"output","Package":"example.com/m/publish","Test":"TestB/x","Output":"    b_test.go:9: got 1, want 2\n"}
{"Action":"output","Package":"example.com/m/publish","Test":"TestB/x","Output":"    --- FAIL: TestB/x (0.00s)\n"}
{"Action":"fail","Package":"example.com/m/publish","Test":"TestB/x"}
{"Action":"output","Package":"example.com/m/publish","Test":"TestB","Output":"--- FAIL: TestB (0.00s)\n"}
{"Action":"fail","Package":"example.com/m/publish","Test":"TestB"}
{"Action":"output","Package":"example.com/m/publish","Output":"FAIL\n"}
{"Action":"output","Package":"example.com/m/publish","Output":"FAIL\texample.com/m/publish\t0.010s\n"}
{"Action":"fail","Package":"example.com/m/publish"}
{"ImportPath":"example.com/m/broken","Action":"build-output","Output":"# example.com/m/broken\n"}
{"ImportPath":"example.com/m/broken","Action":"build-output","Output":"broken/x.go:3:1: syntax error\n"}
{"ImportPath":"example.com/m/broken","Action":"build-fail"}
# example.com/m/vetted
`,
			wantOut: "    b_test.go:9: got 1, want 2\n    --- FAIL: TestB/x (0.00s)\n--- FAIL: TestB (0.00s)\nFAIL\nFAIL\texample.com/m/publish\t0.010s\n" +
				"# example.com/m/broken\nbroken/x.go:3:1: syntax error\n# example.com/m/vetted\n",
			wantFailed: true,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out strings.Builder
			skips, failed, err := summarize(strings.NewReader(tc.stream), &out)
			if err != nil {
				t.Fatal(err)
			}
			if out.String() != tc.wantOut {
				t.Errorf("output:\n%q\nwant\n%q", out.String(), tc.wantOut)
			}
			if !reflect.DeepEqual(skips, tc.wantSkips) {
				t.Errorf("skips %+v, want %+v", skips, tc.wantSkips)
			}
			if failed != tc.wantFailed {
				t.Errorf("failed %v, want %v", failed, tc.wantFailed)
			}
		})
	}
}

// The summary's last lines name every skipped test and how to run it; with
// none skipped it says so, so a quiet ok is never ambiguous.
func TestPrintSkips(t *testing.T) {
	var none strings.Builder
	printSkips(&none, nil)
	if none.String() != "\nno test skipped\n" {
		t.Errorf("no skips: %q", none.String())
	}
	var some strings.Builder
	printSkips(&some, []skip{{"example.com/m/publish", "TestS3", testenv.MissingPrefix + "versitygw not found"},
		{"example.com/m/report", "TestHTMLInChromium", testenv.MissingPrefix + "chromium not found"}})
	for _, want := range []string{
		"\n2 test(s) skipped:\n",
		"  example.com/m/publish TestS3: missing part: versitygw not found\n",
		"  example.com/m/report TestHTMLInChromium: missing part: chromium not found\n",
		"CI=true or FINOPS_TEST_REQUIRE=1",
	} {
		if !strings.Contains(some.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, some.String())
		}
	}
	// Only benchmarks skipped: nothing to install, so no install hint.
	var bench strings.Builder
	printSkips(&bench, []skip{{"example.com/m/report", "TestWorkbookPeakRSS", "set FINOPS_BENCH_RSS=1"}})
	if strings.Contains(bench.String(), "CI=true") {
		t.Errorf("install hint after benchmark skips only:\n%s", bench.String())
	}
}
