package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// A file's sha256 decides whether its bytes were imported before
// (settledBefore, sameBytes): then its import changes nothing. Taken
// first, the digest cost a read of the whole file before its first row
// (0.09–0.16 s of a 200,000-line FOCUS import, issue #35); taken beside
// the parse (FileMeta.Hash), it runs on the core the parser and the
// inserter leave idle. The invariant: an import whose digest is taken
// beside its parse ends with the same result and the same database as one
// whose digest was known first, however early or late the digest arrives
// (TestHashBesideMatchesHashFirst). A file whose bytes were seen before is
// parsed only until its digest is known: the parse stops at its next
// check (errSeenBytes), what it wrote is rolled back, and the file is
// settled as before.

// hashingSHA256 is the sha256 of a source while its digest is being taken
// beside its parse: no digest reads so, and importFile stores the digest,
// or rolls the source back, before the next file.
const hashingSHA256 = "(being hashed)"

// seenCheckEvery is how many records a parse hands over between two looks
// at whether its digest is ready (writer.checkSeen).
const seenCheckEvery = 1024

// errSeenBytes stops a parse whose digest shows bytes imported before.
var errSeenBytes = errors.New("store: the file's bytes were imported before: its parse stops")

// pendingSum is a file's sha256 being taken beside its parse.
type pendingSum struct {
	done   chan struct{}
	cancel context.CancelFunc
	sum    string
	err    error
}

// startSum runs hash on a goroutine of its own. hash must return soon
// after ctx is done.
func startSum(ctx context.Context, hash func(context.Context) (string, error)) *pendingSum {
	ctx, cancel := context.WithCancel(ctx)
	p := &pendingSum{done: make(chan struct{}), cancel: cancel}
	go func() {
		defer close(p.done)
		p.sum, p.err = hash(ctx)
		if p.err == nil && p.sum == "" {
			p.err = errors.New("store: import: the file's hash returned no sha256")
		}
	}()
	return p
}

// ready returns the digest once it is taken (ok), without waiting.
func (p *pendingSum) ready() (sum string, ok bool, err error) {
	select {
	case <-p.done:
		return p.sum, true, p.err
	default:
		return "", false, nil
	}
}

// wait returns the digest once it is taken.
func (p *pendingSum) wait() (string, error) {
	<-p.done
	return p.sum, p.err
}

// stop ends the hash, whether or not it is done, and waits for it: every
// import stops its hash before it returns, so that no hash outlives it and
// a file settled without its digest (a delivery replaced before) is not
// read to its end for nothing.
func (p *pendingSum) stop() {
	p.cancel()
	<-p.done
}

// seenBytes reports whether the checks that read a file's digest would
// settle it before its parse: its bytes stored by an earlier import
// (sameBytes), or, for a file outside a delivery imported without
// --replace, replaced by a later one (settledBefore). It states again
// what those two look up; TestHashBesideMatchesHashFirst fails when they
// part.
func seenBytes(ctx context.Context, tx *sql.Tx, meta FileMeta) (bool, error) {
	query, args := `SELECT EXISTS (SELECT 1 FROM source_files WHERE sha256 = ?)`, []any{meta.SHA256}
	if meta.Period == "" && !meta.Replace {
		query += ` OR EXISTS (SELECT 1 FROM replaced_files WHERE sha256 = ?)`
		args = append(args, meta.SHA256)
	}
	var seen bool
	if err := tx.QueryRowContext(ctx, query, args...).Scan(&seen); err != nil {
		return false, fmt.Errorf("look up the file's sha256: %w", err)
	}
	return seen, nil
}

// checkSeen stops the parse (errSeenBytes) once the digest being taken
// beside it shows bytes imported before; it looks every seenCheckEvery
// records, and decides once. A digest that failed is left to importFile,
// which reports it when the parse ends.
func (w *writer) checkSeen() error {
	if w.beside == nil {
		return nil
	}
	if w.records++; w.records%seenCheckEvery != 0 {
		return nil
	}
	sum, ok, err := w.beside.ready()
	if !ok {
		return nil
	}
	w.beside = nil
	if err != nil {
		return nil
	}
	meta := w.meta
	meta.SHA256 = sum
	seen, err := seenBytes(w.ctx, w.tx, meta)
	if err != nil {
		return err
	}
	if seen {
		return errSeenBytes
	}
	return nil
}
