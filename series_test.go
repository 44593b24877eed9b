package finops

import (
	"reflect"
	"testing"
)

func TestGPUSeriesAdd(t *testing.T) {
	var g GPUSeries
	if g.Len() != 0 || len(g.Minutes()) != 0 {
		t.Fatalf("empty series: Len %d, Minutes %v", g.Len(), g.Minutes())
	}
	const m0 = 29013720
	// Steps of one byte (1…255) and the ones that do not fit (256 and more:
	// a GPU silent for hours, a series over months), each at the start, in
	// the middle and at the end, so every branch of Add and All is crossed.
	for _, tc := range []struct {
		name    string
		minutes []int64 // offsets from m0
	}{
		{"one minute", []int64{0}},
		{"consecutive", []int64{0, 1, 2}},
		{"a gap", []int64{0, 1, 60}},
		{"largest byte step", []int64{0, 255, 510}},
		{"smallest far step", []int64{0, 256, 257}},
		{"far steps in a row", []int64{0, 1000, 100000, 100001, 100001 + 1<<31}},
		{"far then byte then far", []int64{0, 300, 305, 5000}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var g GPUSeries
			var in []MinuteUtil
			for i, off := range tc.minutes {
				m := MinuteUtil{Minute: m0 + off, Util: float64(i) + 0.5}
				in = append(in, m)
				g.Add(m.Minute, m.Util)
			}
			last := in[len(in)-1].Minute
			if first, l, ok := g.Span(); first != m0 || g.Start != m0 || l != last || !ok || g.Len() != len(in) {
				t.Errorf("Span %d, %d, %v, Start %d, Len %d; want %d, %d, true, %d, %d", first, l, ok, g.Start, g.Len(), int64(m0), last, int64(m0), len(in))
			}
			if got := g.Minutes(); !reflect.DeepEqual(got, in) {
				t.Errorf("Minutes() = %v, want %v", got, in)
			}
			g.Grow(10)
			if got := g.Minutes(); !reflect.DeepEqual(got, in) {
				t.Errorf("after Grow: Minutes() = %v, want %v", got, in)
			}
		})
	}
}

// All stops when its caller does: the grid reads a series to its end, but a
// range loop with a break must not run on.
func TestGPUSeriesAllBreak(t *testing.T) {
	var g GPUSeries
	for m := int64(0); m < 5; m++ {
		g.Add(1000+m*300, 1)
	}
	n := 0
	for m := range g.All() {
		n++
		if m >= 1300 {
			break
		}
	}
	if n != 2 {
		t.Errorf("ranged over %d minutes before the break, want 2", n)
	}
}

// An outline has a span and no minutes; an empty series has neither.
func TestGPUSeriesSpan(t *testing.T) {
	var g GPUSeries
	if _, _, ok := g.Span(); ok {
		t.Error("empty series has a span")
	}
	g.Add(100, 1)
	g.Add(400, 2)
	g.SetSpan(90, 500)
	if first, last, ok := g.Span(); first != 90 || last != 500 || !ok || g.Len() != 0 || len(g.Minutes()) != 0 {
		t.Errorf("outline: Span %d, %d, %v, Len %d, Minutes %v; want 90, 500, true, 0, none", first, last, ok, g.Len(), g.Minutes())
	}
}

// TestGPUSeriesIdentity: Identity keeps every exported field (each set to a
// non-zero value by reflection, so a new field is covered without being
// named here) and drops the minutes and the span.
func TestGPUSeriesIdentity(t *testing.T) {
	var g GPUSeries
	v := reflect.ValueOf(&g).Elem()
	for i := range v.NumField() {
		f := v.Field(i)
		if !v.Type().Field(i).IsExported() {
			continue
		}
		switch f.Kind() {
		case reflect.String:
			f.SetString("x" + v.Type().Field(i).Name)
		case reflect.Int, reflect.Int64:
			f.SetInt(int64(i + 7))
		case reflect.Pointer:
			f.Set(reflect.New(f.Type().Elem()))
		default:
			t.Fatalf("field %s of kind %s: teach this test its non-zero value", v.Type().Field(i).Name, f.Kind())
		}
	}
	want := g
	g.Add(g.Start+1, 50)
	g.Add(g.Start+3, 60)
	c := g.Identity()
	cv, wv := reflect.ValueOf(c), reflect.ValueOf(want)
	for i := range cv.NumField() {
		name := cv.Type().Field(i).Name
		if !cv.Type().Field(i).IsExported() || name == "Start" {
			continue
		}
		if !reflect.DeepEqual(cv.Field(i).Interface(), wv.Field(i).Interface()) {
			t.Errorf("Identity().%s = %v, want %v", name, cv.Field(i).Interface(), wv.Field(i).Interface())
		}
	}
	if _, _, ok := c.Span(); ok || c.Len() != 0 || c.Start != 0 {
		t.Errorf("Identity kept minutes: len %d, start %d", c.Len(), c.Start)
	}
	if g.Len() != 2 {
		t.Errorf("Identity changed the series it copied: len %d", g.Len())
	}
}
