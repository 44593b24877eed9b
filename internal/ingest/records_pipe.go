package ingest

import (
	"context"
	"fmt"
	"io"
)

// A log of a million nvidia-smi samples spent about a third of its ingest
// reading rows and checking their text, and the rest parsing them and
// handing them to the store, all on one goroutine while a second core
// idled. runPiped reads and checks rows on a goroutine of its own and
// parses and delivers them on the caller's, in file order.
//
// The invariant (records_pipe_test.go compares the two on generated
// logs): runPiped delivers the same records in the same order, counts the
// same bad rows and ends with the same error as run on one goroutine,
// whatever ends the file (its end, one bad row too many, the sink). Only a
// cancelled context may end it at another row, as reads run ahead.

// pipeParser marks a row parser whose rows are worth reading ahead:
// runPiped calls nothing of it on the reading goroutine (it has no width
// check of its own: widthChecker), and calls its parse on the caller's
// goroutine only, so it keeps its state to itself as run has it.
type pipeParser interface {
	rowParser
	pipelined()
}

// pipeBatch is how many rows go from the reading goroutine to the
// delivering one at a time: a channel operation per row would cost more
// than some rows take to parse. pipeDepth batches may wait, so the rows in
// flight stay bounded (a few thousand lines) whatever the file's size.
const (
	pipeBatch = 256
	pipeDepth = 4
)

// pipeRow is one record read and checked: the record, a bad one (perr: the
// reader's or the checks' error), or the end of the file (err: io.EOF or
// what ended it).
type pipeRow struct {
	line int
	rec  []string
	perr *ParseError
	err  error
}

// batch is rows and the cells of their records, reused once the
// delivering goroutine is done with them.
type batch struct {
	rows  []pipeRow
	cells []string
}

// piped reports whether run reads rows on a goroutine of its own: for CSV
// (whose records are strings the reader never writes again, unlike
// Parquet's cells) read by a parser that says it may be (pipeParser).
func (r *recordStream) piped() bool {
	_, csv := r.src.(*csvReader)
	_, ok := r.setup.p.(pipeParser)
	return csv && ok && !r.serial
}

// runPiped is run with the reading on a goroutine of its own. The
// goroutine has stopped, and reads no more of src, when runPiped returns.
func (r *recordStream) runPiped(ctx context.Context) error {
	full := make(chan *batch, pipeDepth)
	free := make(chan *batch, pipeDepth+2)
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer close(full)
		r.produce(ctx, full, free, stop)
	}()
	err := r.consume(full, free)
	close(stop)
	for range full {
		// Drain, so that the goroutine's last send does not wait.
	}
	<-done
	return err
}

// produce reads and checks records into batches until the file ends, an
// error ends it, or stop is closed.
func (r *recordStream) produce(ctx context.Context, full chan<- *batch, free <-chan *batch, stop <-chan struct{}) {
	b := &batch{}
	send := func() bool {
		select {
		case full <- b:
		case <-stop:
			return false
		}
		select {
		case b = <-free:
			b.rows, b.cells = b.rows[:0], b.cells[:0]
		default:
			b = &batch{}
		}
		return true
	}
	for n := 1; ; n++ {
		row, ok := r.readRow(ctx, n)
		if !ok {
			continue
		}
		if row.rec != nil {
			// The reader reuses its record's slice, not the strings in it.
			at := len(b.cells)
			b.cells = append(b.cells, row.rec...)
			row.rec = b.cells[at:len(b.cells):len(b.cells)]
		}
		b.rows = append(b.rows, row)
		if row.err != nil {
			send()
			return
		}
		if len(b.rows) == pipeBatch && !send() {
			return
		}
	}
}

// readRow reads and checks the n-th record after the header, as run's
// loop does; not ok for a blank one, which run skips.
func (r *recordStream) readRow(ctx context.Context, n int) (row pipeRow, ok bool) {
	if n%ctxCheckEvery == 0 {
		if err := ctx.Err(); err != nil {
			return pipeRow{err: err}, true
		}
	}
	rec, line, bad, err := r.next()
	switch {
	case err != nil:
		return pipeRow{line: line, err: err}, true
	case bad != nil:
		return pipeRow{line: line, perr: bad}, true
	case blankRecord(rec):
		return pipeRow{}, false
	}
	if perr := r.check(rec, line); perr != nil {
		return pipeRow{line: line, perr: perr}, true
	}
	return pipeRow{line: line, rec: rec}, true
}

// consume parses and delivers the rows and counts the bad ones, batch
// after batch, as run does; a batch goes back to free once done with.
func (r *recordStream) consume(full <-chan *batch, free chan<- *batch) error {
	for b := range full {
		for i := range b.rows {
			if err := r.take(&b.rows[i]); err != nil {
				return err
			}
		}
		select {
		case free <- b:
		default:
		}
	}
	return nil
}

// take is run's loop body for one row the reading goroutine read.
func (r *recordStream) take(row *pipeRow) error {
	switch {
	case row.err == io.EOF:
		return nil
	case row.err != nil:
		return row.err
	case row.perr != nil:
		return r.sum.reject(r.rowErr(row.perr), r.maxBad)
	}
	out, perr := r.parseChecked(row.rec, row.line)
	if perr != nil {
		return r.sum.reject(r.rowErr(perr), r.maxBad)
	}
	if err := r.deliver(out); err != nil {
		return fmt.Errorf("%s: %w", (&ParseError{File: r.name, Line: row.line, Row: r.src.numbersRows()}).location(), err)
	}
	return nil
}
