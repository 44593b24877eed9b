package ingest

import (
	"context"
	"io"
)

// A log of a million nvidia-smi samples spent about a third of its ingest
// reading rows and checking their text, a third parsing them and the rest
// handing them to the store, all on one goroutine while a second core
// idled. runPiped reads and checks rows on one goroutine, parses them on
// a second and delivers them on the caller's, in file order.
//
// The invariant (records_pipe_test.go compares the two on generated
// logs): runPiped delivers the same records in the same order, counts the
// same bad rows and ends with the same error as run on one goroutine,
// whatever ends the file (its end, one bad row too many, the sink). Only a
// cancelled context may end it at another row, as reads run ahead.

// pipeParser marks a row parser whose rows are worth reading ahead and
// parsing on a goroutine of their own (runPiped): runPiped calls nothing
// of it on the reading goroutine (it has no width check of its own:
// widthChecker), its parse only on the parsing one, and nothing it
// returns may share state with it that the caller's goroutine, which
// delivers the records, would touch.
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
	rec  []string // valid until the batch goes back to free
	out  parsed   // rec parsed (by the parsing goroutine)
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
// (csvReader's records hold strings it never writes again, so a copy of
// the slice keeps them; no other source is known to) read by a parser that
// says it may be (pipeParser).
func (r *recordStream) piped() bool {
	_, csv := r.src.(*csvReader)
	_, ok := r.setup.p.(pipeParser)
	return csv && ok && !r.serial
}

// runPiped is run with the reading and the parsing on goroutines of their
// own. They have stopped, and read no more of src, when runPiped returns.
func (r *recordStream) runPiped(ctx context.Context) error {
	read := make(chan *batch, pipeDepth)
	ready := make(chan *batch, pipeDepth)
	free := make(chan *batch, 2*pipeDepth+3)
	stop := make(chan struct{})
	done := make(chan struct{}, 2)
	go func() {
		defer func() { done <- struct{}{} }()
		defer close(read)
		r.produce(ctx, read, free, stop)
	}()
	go func() {
		defer func() { done <- struct{}{} }()
		defer close(ready)
		r.parseBatches(read, ready, stop)
	}()
	err := r.consume(ready, free)
	close(stop)
	for range ready {
		// Drain, so that no goroutine's last send waits.
	}
	for range read {
	}
	<-done
	<-done
	return err
}

// parseBatches parses the rows read and checked, batch after batch.
func (r *recordStream) parseBatches(read <-chan *batch, ready chan<- *batch, stop <-chan struct{}) {
	for b := range read {
		for i := range b.rows {
			row := &b.rows[i]
			if row.err == nil && row.perr == nil {
				row.out, row.perr = r.parseRow(row.rec, row.line)
			}
		}
		select {
		case ready <- b:
		case <-stop:
			return
		}
	}
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
			clear(b.rows) // let the delivered samples go
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

// consume delivers the rows and counts the bad ones, batch after batch,
// as run does; a batch goes back to free once done with.
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

// take is run's loop body for one row read and parsed.
func (r *recordStream) take(row *pipeRow) error {
	switch {
	case row.err == io.EOF:
		return nil
	case row.err != nil:
		return row.err
	case row.perr != nil:
		return r.sum.reject(r.rowErr(row.perr), r.maxBad)
	}
	// The parsing goroutine has the most to do: the check of the
	// record's identifiers, which is pure, is done here.
	if perr := checkParsedIDs(r.name, row.line, r.setup.header, row.rec, row.out); perr != nil {
		return r.sum.reject(r.rowErr(perr), r.maxBad)
	}
	return r.deliverAt(row.out, row.line)
}
