package prom

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/prometheus/common/model"
)

// decodeString runs decodeMatrix over body as answer does (through
// boundedValues) and returns what each got: a call's labels and points.
func decodeString(t *testing.T, body string) ([]model.SampleStream, []string, error) {
	t.Helper()
	br := &boundedValues{r: strings.NewReader(body), max: maxValueBytes}
	br.dec = json.NewDecoder(br)
	var got []model.SampleStream
	warns, err := decodeMatrix(br.dec, func(ss *model.SampleStream) {
		// ss.Values is reused for the next batch: keep a copy.
		got = append(got, model.SampleStream{Metric: ss.Metric, Values: append([]model.SamplePair(nil), ss.Values...)})
	})
	return got, warns, err
}

// TestDecodeMatrixBatches: a series longer than maxBatch reaches each in
// parts with its labels, in order, every point once; a series without points
// still reaches it once (the host list reads labels only); null points and
// histograms are skipped; labels after the values are taken when the values
// fit a batch, and refused when they do not (they would have to be held).
func TestDecodeMatrixBatches(t *testing.T) {
	n := 2*maxBatch + 10
	var b strings.Builder
	b.WriteString(`{"status":"success","warnings":["w"],"data":{"resultType":"matrix","result":[{"metric":{"UUID":"GPU-a"},"values":[`)
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `[%d.5,"%d"]`, 1000+i, i%100)
	}
	b.WriteString(`,null]},{"metric":{"UUID":"GPU-b"},"values":[]},` +
		`{"values":[[7,"1"]],"histograms":[[7,{"count":"1","sum":"2","buckets":[[0,"0","1","1"]]}]],"metric":{"UUID":"GPU-c"}}]}}`)
	got, warns, err := decodeString(t, b.String())
	if err != nil {
		t.Fatal(err)
	}
	if len(warns) != 1 || warns[0] != "w" {
		t.Errorf("warnings %q", warns)
	}
	if len(got) != 5 {
		t.Fatalf("%d calls, want 3 for GPU-a, 1 for GPU-b, 1 for GPU-c", len(got))
	}
	k := 0
	for _, ss := range got[:3] {
		if ss.Metric["UUID"] != "GPU-a" || len(ss.Values) > maxBatch {
			t.Errorf("a batch of %d points labelled %v", len(ss.Values), ss.Metric)
		}
		for _, p := range ss.Values {
			if p.Timestamp != model.Time((1000+k)*1000+500) || p.Value != model.SampleValue(k%100) {
				t.Fatalf("point %d: %v", k, p)
			}
			k++
		}
	}
	if k != n {
		t.Errorf("%d points of GPU-a, want %d", k, n)
	}
	if got[3].Metric["UUID"] != "GPU-b" || len(got[3].Values) != 0 {
		t.Errorf("GPU-b: %v", got[3])
	}
	if got[4].Metric["UUID"] != "GPU-c" || len(got[4].Values) != 1 || got[4].Values[0].Timestamp != 7000 {
		t.Errorf("GPU-c: %v", got[4])
	}

	b.Reset()
	b.WriteString(`{"status":"success","data":{"resultType":"matrix","result":[{"values":[`)
	for i := range maxBatch + 1 {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `[%d,"1"]`, i)
	}
	b.WriteString(`],"metric":{"UUID":"GPU-a"}}]}}`)
	if _, _, err := decodeString(t, b.String()); err == nil || !strings.Contains(err.Error(), "before its metric") {
		t.Errorf("values before the labels, over a batch: %v", err)
	}

	for _, bad := range []string{`[1,"1",2]`, `[1]`, `["1","1"]`, `[1,1]`, `{}`} {
		body := `{"status":"success","data":{"resultType":"matrix","result":[{"metric":{},"values":[` + bad + `]}]}}`
		if _, _, err := decodeString(t, body); err == nil {
			t.Errorf("point %s: no error", bad)
		}
	}
}

// TestDecodeMatrixBoundsValues: one value the decoder would have to buffer
// whole (a label, a warning) is refused past maxValueBytes, not held.
func TestDecodeMatrixBoundsValues(t *testing.T) {
	big := strings.Repeat("x", 2*maxValueBytes)
	for _, body := range []string{
		`{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"note":"` + big + `"},"values":[]}]}}`,
		`{"status":"success","warnings":["` + big + `"],"data":{"resultType":"matrix","result":[]}}`,
		`{"status":"success","data":{"resultType":"matrix","result":[],"extra":"` + big + `"}}`,
	} {
		if _, _, err := decodeString(t, body); err == nil || !strings.Contains(err.Error(), "over 1048576 bytes") {
			t.Errorf("a 2 MiB value: %v", err)
		}
	}
	// Just under the bound: taken.
	ok := strings.Repeat("x", maxValueBytes-100)
	got, _, err := decodeString(t, `{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"note":"`+ok+`"},"values":[[1,"2"]]}]}}`)
	if err != nil || len(got) != 1 || len(got[0].Metric["note"]) != len(ok) {
		t.Errorf("a label under the bound: %v", err)
	}
}
