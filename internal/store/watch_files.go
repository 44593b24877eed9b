package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"
)

// fileCursorPrefix keeps the cursors of log files apart from those of
// servers (prometheus://…) in watch_cursors.
const fileCursorPrefix = "file:"

// FileCursor is where the watch stopped reading a growing log file.
type FileCursor struct {
	Path string
	// Identity tells this file from one that replaced it at the same path
	// (rotated, truncated, rewritten): a fingerprint of its first bytes.
	Identity string
	// Offset is the byte after the last complete line read.
	Offset int64
	// Header is the file's header line, or the field list of a headerless
	// log as "fields:timestamp,uuid,…": a tail is parsed with it.
	Header string
	// Until is when the file was last read.
	Until time.Time
	// Gone deletes the cursor (a spool's .csv.part renamed to .csv hands its
	// cursor on).
	Gone bool
}

// FileCursors returns the cursors of every log file the watch reads, by path.
func (s *Store) FileCursors(ctx context.Context) (map[string]FileCursor, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT source, identity, offset, header, until FROM watch_cursors
		WHERE source >= ? AND source < ?`, fileCursorPrefix, "file;")
	if err != nil {
		return nil, fmt.Errorf("store: watch file cursors: %w", err)
	}
	defer rows.Close()
	out := map[string]FileCursor{}
	for rows.Next() {
		var c FileCursor
		var until int64
		if err := rows.Scan(&c.Path, &c.Identity, &c.Offset, &c.Header, &until); err != nil {
			return nil, fmt.Errorf("store: watch file cursors: %w", err)
		}
		c.Path, c.Until = strings.TrimPrefix(c.Path, fileCursorPrefix), time.Unix(until, 0).UTC()
		out[c.Path] = c
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: watch file cursors: %w", err)
	}
	return out, nil
}

// setFileCursors writes cursors in the pass's ledger transaction.
func setFileCursors(ctx context.Context, tx *sql.Tx, cs []FileCursor) error {
	for _, c := range cs {
		var err error
		if c.Gone {
			_, err = tx.ExecContext(ctx, `DELETE FROM watch_cursors WHERE source = ?`, fileCursorPrefix+c.Path)
		} else {
			_, err = tx.ExecContext(ctx, `INSERT INTO watch_cursors (source, until, identity, offset, header) VALUES (?,?,?,?,?)
				ON CONFLICT(source) DO UPDATE SET until = excluded.until, identity = excluded.identity,
				offset = excluded.offset, header = excluded.header`,
				fileCursorPrefix+c.Path, c.Until.Unix(), c.Identity, c.Offset, c.Header)
		}
		if err != nil {
			return fmt.Errorf("store: watch cursor of %s: %w", c.Path, err)
		}
	}
	return nil
}
