// Package progress draws the progress of long work on a terminal: a file's
// bytes read and rows stored, bytes hashed or uploaded, days fetched, sheets
// written. The packages doing the work know nothing of it: they take a
// callback or a reader, which a bar's methods fill.
package progress

import (
	"fmt"
	"io"
	"sync/atomic"
	"time"

	"github.com/finops-oss/finops/internal/sanitize"
	"github.com/schollz/progressbar/v3"
)

// Bars draws bars on W when On: the caller decides (a terminal, never with
// --quiet, so that cron mail and scripts get no \r or bar characters).
// Every is the least time between two drawings.
type Bars struct {
	W     io.Writer
	On    bool
	Every time.Duration
}

// Bar is one task's bar: units done of total, with rate and ETA; a file's
// bar counts bytes and shows the rows stored so far in its label. A nil
// *Bar (bars off) does nothing.
type Bar struct {
	pb    *progressbar.ProgressBar
	label string
	file  bool
	rows  atomic.Int64
}

// File begins the bar of a file of size bytes being read.
func (b Bars) File(label string, size int64) *Bar {
	return b.start(label, size, true, progressbar.OptionShowBytes(true), progressbar.OptionShowCount())
}

// Bytes begins a bar of size bytes with no rows, labelled label and then
// what is done to them ("sha256", "upload"), which a cut of a long label
// keeps.
func (b Bars) Bytes(label, doing string, size int64) *Bar {
	p := b.start(label, size, false, progressbar.OptionShowBytes(true), progressbar.OptionShowCount())
	if p != nil && doing != "" {
		p.pb.Describe(p.label + " " + doing)
	}
	return p
}

// Steps begins a bar of n steps called unit ("days", "sheets", "files").
func (b Bars) Steps(label string, n int, unit string) *Bar {
	return b.start(label, int64(n), false,
		progressbar.OptionShowCount(), progressbar.OptionSetItsString(unit), progressbar.OptionShowIts())
}

func (b Bars) start(label string, total int64, file bool, opts ...progressbar.Option) *Bar {
	if !b.On {
		return nil
	}
	label = sanitize.Terminal(label, 60) // a file name or URL must not act on the terminal
	opts = append(opts,
		progressbar.OptionSetWriter(b.W),
		progressbar.OptionSetDescription(label),
		progressbar.OptionSetWidth(20),
		progressbar.OptionThrottle(b.Every),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionClearOnFinish(),
	)
	return &Bar{pb: progressbar.NewOptions64(max(total, 1), opts...), label: label, file: file}
}

// Add counts n more units done: bytes read, a day fetched.
func (p *Bar) Add(n int) {
	if p == nil {
		return
	}
	p.describe()
	p.pb.Add64(int64(n))
}

func (p *Bar) describe() {
	if p.file {
		p.pb.Describe(fmt.Sprintf("%s %d rows", p.label, p.rows.Load()))
	}
}

// Row counts one more row stored; the next Add shows the count.
func (p *Bar) Row() {
	if p != nil {
		p.rows.Add(1)
	}
}

// Done shows the final count and clears the bar, so that the line printed
// next starts at the left margin.
func (p *Bar) Done() {
	if p == nil {
		return
	}
	p.describe()
	p.pb.Finish()
}

// Above is w for lines printed while p is drawn: each write clears the bar
// first, and the next step draws it again below the line.
func (p *Bar) Above(w io.Writer) io.Writer {
	if p == nil {
		return w
	}
	return clearing{w, p}
}

type clearing struct {
	w io.Writer
	p *Bar
}

func (c clearing) Write(b []byte) (int, error) {
	c.p.pb.Clear()
	return c.w.Write(b)
}

// Sheets draws the sheets of a workbook as report fills them
// (report.Meta.Sheet): the count is only known at the first sheet.
type Sheets struct {
	bars  Bars
	label string
	bar   *Bar
}

// Sheets begins the bar of a workbook's sheets.
func (b Bars) Sheets(label string) *Sheets { return &Sheets{bars: b, label: label} }

// Sheet counts one more sheet written, of total.
func (s *Sheets) Sheet(name string, done, total int) {
	if s.bar == nil {
		s.bar = s.bars.Steps(s.label, total, "sheets")
	}
	s.bar.Add(1)
}

// Done clears the bar.
func (s *Sheets) Done() { s.bar.Done() }
