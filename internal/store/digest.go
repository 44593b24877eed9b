package store

import (
	"context"
	"fmt"
	"slices"
	"time"
)

// Digest statuses, per period, scope and channel (run_digests, migration 13).
const (
	DigestPending = "pending"
	DigestSent    = "sent"
	DigestFailed  = "failed"
	// DigestAbandoned: its channel left watch.channels (or stopped taking
	// the scope's messages), so nothing can send it any more.
	DigestAbandoned = "abandoned"
)

// Digest is one period's digest for one scope and one chat channel.
type Digest struct {
	Period     string
	Scope      string // a team's name; "" for the fleet digest
	Channel    string // watch.channels[i] as "type#i"
	Generation int
	Title      string
	Body       string
	Currency   string
	Status     string
	Attempts   int
	SentAt     time.Time // zero until sent
	Error      string
}

// DigestMessage is what QueueDigest stores: the platform-neutral text,
// which each channel's sender escapes and cuts for its platform.
type DigestMessage struct {
	Title, Body, Currency string
}

// QueueDigest records one period's digest of a scope for channels and
// returns the channels that still need it, sorted. A channel that already
// has it is skipped unless resend is set (a new generation). One that has
// not keeps its attempts and takes msg, the digest as built now. A channel
// of this period and scope that is no longer listed, and was not sent to,
// is forgotten.
func (s *Store) QueueDigest(ctx context.Context, runID int64, period, scope string, channels []string, resend bool,
	msg DigestMessage) (pending []string, err error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("store: queue digest: %w", err)
	}
	defer tx.Rollback()
	type row struct {
		status string
		gen    int
	}
	have := map[string]row{}
	rows, err := tx.QueryContext(ctx, `SELECT channel, status, generation FROM run_digests WHERE period = ? AND scope = ?`, period, scope)
	if err != nil {
		return nil, fmt.Errorf("store: queue digest: %w", err)
	}
	for rows.Next() {
		var ch string
		var r row
		if err := rows.Scan(&ch, &r.status, &r.gen); err != nil {
			rows.Close()
			return nil, fmt.Errorf("store: queue digest: %w", err)
		}
		have[ch] = r
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: queue digest: %w", err)
	}
	for ch, r := range have {
		if r.status != DigestSent && !slices.Contains(channels, ch) {
			if _, err := tx.ExecContext(ctx, `DELETE FROM run_digests WHERE period = ? AND scope = ? AND channel = ?`,
				period, scope, ch); err != nil {
				return nil, fmt.Errorf("store: queue digest: %w", err)
			}
		}
	}
	now := s.now().Unix()
	for _, ch := range channels {
		if slices.Contains(pending, ch) {
			continue
		}
		r, ok := have[ch]
		gen := 1
		switch {
		case ok && r.status == DigestSent && !resend:
			continue
		case ok && r.status == DigestSent:
			gen = r.gen + 1
		case ok:
			gen = r.gen
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO run_digests (period, scope, channel, generation, title, body, currency,
				status, built_at, run_id) VALUES (?,?,?,?,?,?,?,?,?,?)
			ON CONFLICT (period, scope, channel) DO UPDATE SET generation = excluded.generation, title = excluded.title,
				body = excluded.body, currency = excluded.currency, status = excluded.status, built_at = excluded.built_at,
				run_id = excluded.run_id,
				sent_at = NULL, error = CASE WHEN run_digests.status = 'sent' THEN NULL ELSE run_digests.error END`,
			period, scope, ch, gen, msg.Title, msg.Body, msg.Currency, DigestPending, now, runID); err != nil {
			return nil, fmt.Errorf("store: queue digest: %w", err)
		}
		pending = append(pending, ch)
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("store: queue digest: %w", err)
	}
	slices.Sort(pending)
	return pending, nil
}

// DigestStatus maps each channel of one period's digest of a scope to its
// status (dry runs use it to say what a run would send).
func (s *Store) DigestStatus(ctx context.Context, period, scope string) (map[string]string, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT channel, status FROM run_digests WHERE period = ? AND scope = ?`, period, scope)
	if err != nil {
		return nil, fmt.Errorf("store: digest status: %w", err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var ch, st string
		if err := rows.Scan(&ch, &st); err != nil {
			return nil, fmt.Errorf("store: digest status: %w", err)
		}
		out[ch] = st
	}
	return out, rows.Err()
}

// PendingDigests lists every digest some channel still needs, of any
// period (this run's and those earlier runs failed to send), oldest period
// first.
func (s *Store) PendingDigests(ctx context.Context) ([]Digest, error) {
	return s.digests(ctx, `WHERE status IN ('pending', 'failed') ORDER BY period, scope, channel`)
}

// Digests lists one period's digests ("" for every period).
func (s *Store) Digests(ctx context.Context, period string) ([]Digest, error) {
	return s.digests(ctx, `WHERE period = ? OR ? = '' ORDER BY period, scope, channel`, period, period)
}

func (s *Store) digests(ctx context.Context, where string, args ...any) ([]Digest, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT period, scope, channel, generation, title, body, currency, status, attempts,
		coalesce(sent_at, 0), coalesce(error, '') FROM run_digests `+where, args...)
	if err != nil {
		return nil, fmt.Errorf("store: digests: %w", err)
	}
	defer rows.Close()
	var out []Digest
	for rows.Next() {
		var d Digest
		var sent int64
		if err := rows.Scan(&d.Period, &d.Scope, &d.Channel, &d.Generation, &d.Title, &d.Body, &d.Currency, &d.Status,
			&d.Attempts, &sent, &d.Error); err != nil {
			return nil, fmt.Errorf("store: digests: %w", err)
		}
		if sent != 0 {
			d.SentAt = time.Unix(sent, 0).UTC()
		}
		out = append(out, d)
	}
	return out, rows.Err()
}

// MarkDigest records how one try of a digest fared: status DigestSent,
// DigestFailed (errText says why; it must hold no secret: it is stored and
// uploaded in snapshots) or DigestAbandoned.
func (s *Store) MarkDigest(ctx context.Context, runID int64, period, scope, channel, status, errText string) error {
	var sentAt any
	if status == DigestSent {
		sentAt = s.now().Unix()
	}
	inc := 1
	if status == DigestAbandoned {
		inc = 0
	}
	if _, err := s.db.ExecContext(ctx, `UPDATE run_digests SET status = ?, error = ?, run_id = ?, attempts = attempts + ?,
		sent_at = coalesce(?, sent_at) WHERE period = ? AND scope = ? AND channel = ?`,
		status, nullString(errText), runID, inc, sentAt, period, scope, channel); err != nil {
		return fmt.Errorf("store: record digest %s: %w", status, err)
	}
	return nil
}
