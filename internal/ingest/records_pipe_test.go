package ingest

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"reflect"
	"strings"
	"testing"

	"github.com/finops-oss/finops"
)

// stopSink records the samples it takes and fails the failAt-th (the
// store's error), or cancels the parse's context at the cancelAt-th.
type stopSink struct {
	recSink
	failAt, cancelAt int
	cancel           context.CancelFunc
}

func (s *stopSink) Sample(x *finops.GPUSample) error {
	n := len(s.samples) + 1
	if n == s.failAt {
		return errors.New("disk full")
	}
	if n == s.cancelAt {
		s.cancel()
	}
	return s.recSink.Sample(x)
}

// genSMILog is a random nvidia-smi log of n rows with bad rows, blank
// lines, repeated headers and utilizations out of 0–100 mixed in.
func genSMILog(rng *rand.Rand, n int) string {
	const header = "timestamp, name, pci.bus_id, index, uuid, utilization.gpu [%], memory.total [MiB], memory.used [MiB], power.draw [W]\n"
	var b strings.Builder
	b.WriteString(header)
	for i := 0; i < n; i++ {
		g := i % 4
		util, idx, power, name, uuid := fmt.Sprint(rng.Intn(101), " %"), fmt.Sprint(g), "300.5 W", "NVIDIA A100-SXM4-80GB", fmt.Sprint("GPU-", g)
		switch rng.Intn(60) {
		case 0:
			util = "lots %" // a bad field
		case 1:
			util = "250 %" // no sample: dropped
		case 2:
			idx = "-3" // a bad index
		case 3:
			b.WriteString(header) // the header again
		case 4:
			b.WriteString("\n , ,\n") // blank lines
		case 5:
			name = `NVIDIA "A100"` // a bare quote: a malformed row
		case 6:
			power = "[N/A]"
		case 7:
			uuid += "\u202e" // an identifier that would print reversed: refused
		}
		fmt.Fprintf(&b, "2026/11/02 %02d:%02d:%02d.000, %s, 00000000:%02X:00.0, %s, %s, %s, 81920 MiB, %d MiB, %s\n",
			i/8/3600%24, i/8/60%60, i/8%60, name, g, idx, uuid, util, rng.Intn(81920), power)
	}
	return b.String()
}

// pipeOutcome is everything a parse told its caller.
type pipeOutcome struct {
	samples []finops.GPUSample
	sum     *Summary
	err     string
}

func parseSMIOnce(text string, opt Options, failAt, cancelAt int) pipeOutcome {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sink := &stopSink{failAt: failAt, cancelAt: cancelAt, cancel: cancel}
	sum, err := Parse(ctx, strings.NewReader(text), opt, sink)
	out := pipeOutcome{sum: sum}
	for _, s := range sink.samples {
		out.samples = append(out.samples, *s)
	}
	if err != nil {
		out.err = err.Error()
	}
	return out
}

// TestSMILogIsPiped: an nvidia-smi log read as CSV takes runPiped, unless
// Options.oneGoroutine says not to. Without it
// TestPipedParseMatchesOneGoroutine would compare one goroutine with
// itself and pass whatever runPiped did.
func TestSMILogIsPiped(t *testing.T) {
	for _, serial := range []bool{false, true} {
		r := &recordStream{src: newCSVReader(strings.NewReader(""), "smi.log"), setup: parserSetup{p: &smiParser{}}, serial: serial}
		if got := r.piped(); got == serial {
			t.Errorf("oneGoroutine %v: piped() = %v, want %v", serial, got, !serial)
		}
	}
}

// TestPipedParseMatchesOneGoroutine: reading and parsing an nvidia-smi log
// on a goroutine of its own (runPiped) delivers the same samples in the
// same order, the same summary (rejected rows, drops, repeats) and the same
// error as one goroutine doing it all, whatever ends the parse: the end of
// the file, one bad row more than --max-bad-rows allows, or the sink
// failing. A context cancelled while the file is read ends both with its
// error after a part of the samples a whole parse delivers (where depends
// on how far the reads had got, which differs by design).
func TestPipedParseMatchesOneGoroutine(t *testing.T) {
	rng := rand.New(rand.NewSource(35))
	for i := 0; i < 60; i++ {
		rows := 1 + rng.Intn(3000)
		if i%10 == 0 {
			rows = ctxCheckEvery + rng.Intn(3000) // past a look at the context
		}
		text := genSMILog(rng, rows)
		opt := Options{Name: "smi.log", Host: "h1", MaxBadRows: rng.Intn(rows/20 + 2)}
		failAt := 0
		if rng.Intn(2) == 0 {
			failAt = 1 + rng.Intn(rows)
		}
		serial := opt
		serial.oneGoroutine = true
		want := parseSMIOnce(text, serial, failAt, 0)
		got := parseSMIOnce(text, opt, failAt, 0)
		if cancelAt := 1 + rng.Intn(rows); failAt == 0 && cancelAt < len(want.samples) {
			checkCancelled(t, i, parseSMIOnce(text, opt, 0, cancelAt), want, cancelAt)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("case %d (%d rows, max bad %d, sink fails at %d):\n got %d samples, %v, %+v\nwant %d samples, %v, %+v",
				i, rows, opt.MaxBadRows, failAt, len(got.samples), got.err, got.sum, len(want.samples), want.err, want.sum)
		}
	}
}

// checkCancelled checks a parse whose context was cancelled at the
// cancelAt-th sample against the whole parse.
func checkCancelled(t *testing.T, i int, cut, whole pipeOutcome, cancelAt int) {
	t.Helper()
	if reflect.DeepEqual(cut, whole) {
		return
	}
	if !strings.HasSuffix(cut.err, context.Canceled.Error()) || len(cut.samples) < cancelAt ||
		len(cut.samples) > len(whole.samples) || !reflect.DeepEqual(cut.samples, whole.samples[:len(cut.samples)]) {
		t.Errorf("case %d, cancelled at sample %d: %v after %d samples: want context canceled after %d to %d of the samples",
			i, cancelAt, cut.err, len(cut.samples), cancelAt, len(whole.samples))
	}
}
