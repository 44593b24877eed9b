package main

import (
	"cmp"
	"fmt"
	"io"
	"sync/atomic"
	"time"

	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/deliver"
	"github.com/finops-oss/finops/ingest"
	"github.com/finops-oss/finops/sanitize"
	"github.com/schollz/progressbar/v3"
)

// bars draws the progress of long work on standard error: only when it is a
// terminal (or FINOPS_PROGRESS=1 says it is one the check cannot see), and
// never with --quiet, so that cron mail and scripts get no \r or bar
// characters. The packages doing the work know nothing of it: they take a
// callback or a reader, which a bar's methods fill.
type bars struct {
	w     io.Writer
	on    bool
	every time.Duration // the least time between two drawings
}

// progressEnv forces the bars on, for a terminal behind a pipe (tee) and
// for the tests.
const progressEnv = "FINOPS_PROGRESS"

func (m *Main) bars() bars {
	return bars{w: m.Stderr, on: !m.quiet && (interactive(m.Stderr) || m.Getenv(progressEnv) == "1"),
		every: cmp.Or(m.progressEvery, 100*time.Millisecond)}
}

// bar is one task's bar: units done of total, with rate and ETA; a file's
// bar counts bytes and shows the rows stored so far in its label. A nil
// *bar (bars off) does nothing.
type bar struct {
	pb    *progressbar.ProgressBar
	label string
	file  bool
	rows  atomic.Int64
}

// file begins the bar of a file of size bytes being read.
func (b bars) file(label string, size int64) *bar {
	return b.start(label, size, true, progressbar.OptionShowBytes(true), progressbar.OptionShowCount())
}

// bytes begins a bar of size bytes with no rows, labelled label and then
// what is done to them ("sha256", "upload"), which a cut of a long label
// keeps.
func (b bars) bytes(label, doing string, size int64) *bar {
	p := b.start(label, size, false, progressbar.OptionShowBytes(true), progressbar.OptionShowCount())
	if p != nil && doing != "" {
		p.pb.Describe(p.label + " " + doing)
	}
	return p
}

// steps begins a bar of n steps called unit ("days", "sheets", "files").
func (b bars) steps(label string, n int, unit string) *bar {
	return b.start(label, int64(n), false,
		progressbar.OptionShowCount(), progressbar.OptionSetItsString(unit), progressbar.OptionShowIts())
}

func (b bars) start(label string, total int64, file bool, opts ...progressbar.Option) *bar {
	if !b.on {
		return nil
	}
	label = sanitize.Terminal(label, 60) // a file name or URL must not act on the terminal
	opts = append(opts,
		progressbar.OptionSetWriter(b.w),
		progressbar.OptionSetDescription(label),
		progressbar.OptionSetWidth(20),
		progressbar.OptionThrottle(b.every),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionClearOnFinish(),
	)
	return &bar{pb: progressbar.NewOptions64(max(total, 1), opts...), label: label, file: file}
}

// deliveryBytes is a bar of bytes sent for package deliver.
func (b bars) deliveryBytes(label string, size int64) deliver.Progress {
	return byteBar{b.bytes(label, "", size)}
}

type byteBar struct{ b *bar }

func (s byteBar) Add(n int) { s.b.add(n) }
func (s byteBar) Done()     { s.b.done() }

// add counts n more units done: bytes read, a day fetched.
func (p *bar) add(n int) {
	if p == nil {
		return
	}
	p.describe()
	p.pb.Add64(int64(n))
}

func (p *bar) describe() {
	if p.file {
		p.pb.Describe(fmt.Sprintf("%s %d rows", p.label, p.rows.Load()))
	}
}

// row counts one more row stored; the next add shows the count.
func (p *bar) row() {
	if p != nil {
		p.rows.Add(1)
	}
}

// done shows the final count and clears the bar, so that the line printed
// next starts at the left margin.
func (p *bar) done() {
	if p == nil {
		return
	}
	p.describe()
	p.pb.Finish()
}

// above is w for lines printed while p is drawn: each write clears the bar
// first, and the next step draws it again below the line.
func (p *bar) above(w io.Writer) io.Writer {
	if p == nil {
		return w
	}
	return clearing{w, p}
}

type clearing struct {
	w io.Writer
	p *bar
}

func (c clearing) Write(b []byte) (int, error) {
	c.p.pb.Clear()
	return c.w.Write(b)
}

// sheetBar draws the sheets of a workbook as report fills them
// (report.Meta.Sheet): the count is only known at the first sheet.
type sheetBar struct {
	bars  bars
	label string
	bar   *bar
}

func (b bars) sheets(label string) *sheetBar { return &sheetBar{bars: b, label: label} }

func (s *sheetBar) sheet(name string, done, total int) {
	if s.bar == nil {
		s.bar = s.bars.steps(s.label, total, "sheets")
	}
	s.bar.add(1)
}

func (s *sheetBar) done() { s.bar.done() }

// rowSink counts the rows a parse hands on, for a bar.
type rowSink struct {
	ingest.Sink
	bar *bar
}

func (s rowSink) Billing(l *finops.BillingLine) error { s.bar.row(); return s.Sink.Billing(l) }
func (s rowSink) Sample(g *finops.GPUSample) error    { s.bar.row(); return s.Sink.Sample(g) }
func (s rowSink) TaskRun(r *finops.TaskRun) error     { s.bar.row(); return s.Sink.TaskRun(r) }
