package store

import (
	"context"
	"fmt"
	"time"
)

// What became of an object an incremental pull saw (remote_objects.outcome).
const (
	SeenStored    = "stored"    // imported: its bytes are in source_files (or replaced_files, once a later file replaced them)
	SeenUnchanged = "unchanged" // imported, and found to change nothing: the same bytes or charges as another file, or a superseded delivery
	SeenFailed    = "failed"    // downloaded, and its import failed (or was never tried): downloaded again next time
	SeenLeftOut   = "left-out"  // never imported: a manifest, or a file the delivery planning left out
)

// SeenObject is one object of a remote source as an incremental pull saw it
// (remote_objects, migration 18).
type SeenObject struct {
	URL          string
	Size         int64
	ETag         string
	MD5          string // hex
	LastModified time.Time
	SHA256       string // of the downloaded bytes; "" when never downloaded
	Outcome      string // SeenStored, SeenUnchanged, SeenFailed or SeenLeftOut
	// Held is read, never written: whether the database holds the bytes of
	// SHA256 now (source_files or replaced_files). A stored object whose
	// bytes are gone is not imported any more.
	Held bool
}

// SeenUnder returns the recorded objects whose URL starts with prefix
// ("s3://bucket/exports/").
func (s *Store) SeenUnder(ctx context.Context, prefix string) ([]SeenObject, error) {
	// A range on the primary key: "\xff" never occurs in UTF-8, so every
	// URL starting with prefix sorts below prefix+"\xff".
	rows, err := s.db.QueryContext(ctx, `SELECT r.url, r.size, r.etag, r.md5, r.last_modified, r.sha256, r.outcome,
		r.sha256 <> '' AND (EXISTS (SELECT 1 FROM source_files f WHERE f.sha256 = r.sha256)
			OR EXISTS (SELECT 1 FROM replaced_files x WHERE x.sha256 = r.sha256))
		FROM remote_objects r WHERE r.url >= ? AND r.url < ? ORDER BY r.url`, prefix, prefix+"\xff")
	if err != nil {
		return nil, fmt.Errorf("store: read the objects seen under %s: %w", prefix, err)
	}
	defer rows.Close()
	var out []SeenObject
	for rows.Next() {
		var o SeenObject
		var lm int64
		if err := rows.Scan(&o.URL, &o.Size, &o.ETag, &o.MD5, &lm, &o.SHA256, &o.Outcome, &o.Held); err != nil {
			return nil, fmt.Errorf("store: read the objects seen under %s: %w", prefix, err)
		}
		if lm != 0 {
			o.LastModified = time.Unix(0, lm).UTC()
		}
		out = append(out, o)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: read the objects seen under %s: %w", prefix, err)
	}
	return out, nil
}

// RecordSeen records objs (each replacing its URL's earlier row) and
// forgets the objects of forget (URLs no longer listed), in one
// transaction: a pull of 10,000 objects writes once, not 10,000 times.
func (s *Store) RecordSeen(ctx context.Context, objs []SeenObject, forget []string) error {
	if len(objs) == 0 && len(forget) == 0 {
		return nil
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store: record the objects seen: %w", err)
	}
	defer tx.Rollback() // no-op after Commit
	now := s.now().Unix()
	ins, err := tx.PrepareContext(ctx, `INSERT OR REPLACE INTO remote_objects
		(url, size, etag, md5, last_modified, sha256, outcome, seen_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return fmt.Errorf("store: record the objects seen: %w", err)
	}
	defer ins.Close()
	for _, o := range objs {
		var lm int64
		if !o.LastModified.IsZero() {
			lm = o.LastModified.UnixNano()
		}
		if _, err := ins.ExecContext(ctx, o.URL, o.Size, o.ETag, o.MD5, lm, o.SHA256, o.Outcome, now); err != nil {
			return fmt.Errorf("store: record %s as seen: %w", o.URL, err)
		}
	}
	for _, u := range forget {
		if _, err := tx.ExecContext(ctx, `DELETE FROM remote_objects WHERE url = ?`, u); err != nil {
			return fmt.Errorf("store: forget %s: %w", u, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store: record the objects seen: %w", err)
	}
	return nil
}
