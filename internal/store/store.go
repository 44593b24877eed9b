// Package store keeps every imported record in one SQLite file: schema,
// migrations, imports (one transaction per file) and the queries analysis needs.
package store

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// Store is an open finops database.
type Store struct {
	db   *sql.DB
	path string
	now  func() time.Time
}

// pageSize is the page size of a database finops creates.
const pageSize = 32768

// dsn sets the pragmas in the connection string so every pooled connection
// gets them, not only the first one.
func dsn(path string) string {
	q := url.Values{}
	// A new database gets 32 KiB pages: finops writes it in large batches
	// and reads it in scans, where SQLite's default 4 KiB means eight times
	// the pages to search, write to the WAL and copy back at the checkpoint.
	// A 200,000-line FOCUS import took 2.40 s instead of 3.00 s (median of
	// three interleaved runs; docs/BENCHMARKS.md §Billing ingest), the
	// reports and the review read as fast as before. SQLite only applies it
	// to an empty file: an existing database keeps its page size (a WAL
	// database cannot change it), and a snapshot (VACUUM INTO) is written
	// with 32 KiB pages.
	q.Add("_pragma", fmt.Sprintf("page_size(%d)", pageSize))
	// The shorthand key, not a _pragma: the driver runs the _pragma values
	// in alphabetical order, and journal_mode before page_size would create
	// the file with the default page size.
	q.Set("_journal_mode", "WAL")
	q.Add("_pragma", "busy_timeout(10000)")
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "synchronous(NORMAL)")
	// Multi-row inserts into tables with foreign keys write a statement journal;
	// keeping temporary data in memory saves a file write per batch (≈15% of ingest).
	q.Add("_pragma", "temp_store(MEMORY)")
	q.Set("_txlock", "immediate")
	return "file:" + path + "?" + q.Encode()
}

// Open opens (creating if needed) the database at path and migrates it to
// the current schema. A database file with more than one hard link is
// refused (*LinkedError): SQLite would keep a WAL per name and lose writes.
func Open(ctx context.Context, path string) (*Store, error) {
	if err := checkOneName(path); err != nil {
		return nil, err
	}
	db, err := sql.Open("sqlite", dsn(path))
	if err != nil {
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	s := &Store{db: db, path: path, now: time.Now}
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	if err := s.migrate(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }

// Path is the database file.
func (s *Store) Path() string { return s.path }

// DB exposes the handle for tests and maintenance commands.
func (s *Store) DB() *sql.DB { return s.db }

// SetClock replaces the clock used for imported_at stamps (tests).
func (s *Store) SetClock(now func() time.Time) { s.now = now }
