package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Outcomes of a watch action.
const (
	ActionPending     = "pending"     // recorded, about to run
	ActionDone        = "done"        // exit code 0
	ActionFailed      = "failed"      // a non-zero exit, or it could not start
	ActionTimeout     = "timeout"     // killed at watch.command_timeout
	ActionInterrupted = "interrupted" // the pass died while it ran: never run again
	ActionBusy        = "busy"        // the re-check just before could not confirm it idle (busy, silent, gone, unreadable)
	ActionDryRun      = "dry-run"     // watch.act is off, or --dry-run
	ActionRefused     = "refused"     // protected, or not in watch.allow
)

// WatchSpell is an open spell of the ledger.
type WatchSpell struct {
	ID                      int64
	Resource, Team, Kind    string
	Since, Opened, Reminded time.Time
	Graced                  time.Time // zero before the grace alert
	Acted                   bool
	Rate                    float64 // per hour; 0 when unknown
	Currency                string
	RateKnown               bool
}

// WatchEvent is one decision of a pass, recorded with its messages and
// action in RecordWatch.
type WatchEvent struct {
	SpellID     int64  // 0 for Kind "open": the spell is created
	Kind        string // open, remind, close, grace, act
	SpellKind   string // idle, lifetime (open)
	Event       string
	Resource    string
	Team        string
	Since       time.Time // open: the spell's start
	Rate        float64   // open: hourly rate (RateKnown)
	RateKnown   bool
	Currency    string
	Title       string
	Body        string
	Burnt       float64
	BurntKnown  bool
	CloseReason string   // close
	Channels    []string // where the message goes; none for a silent record
	Action      *WatchAction
}

// WatchAction is a command the watch decided on.
type WatchAction struct {
	ID        int64
	Resource  string
	Team      string
	DecidedAt time.Time
	Action    string
	Argv      []string
	Outcome   string
	Reason    string
	ExitCode  *int
	Output    string
	Finished  time.Time
	IdleSince time.Time
	Rate      float64 // per hour, in Currency, when the action was decided
	RateKnown bool
	Currency  string
}

// WatchMessage is one message waiting for (or done with) its channel.
type WatchMessage struct {
	ID                    int64
	Channel               string
	At                    time.Time
	Event, Resource, Team string
	Title, Body           string
	Since                 time.Time
	Burnt                 float64
	BurntKnown            bool
	Currency              string
	Attempts              int
}

// OpenSpells returns the spells not closed yet.
func (s *Store) OpenSpells(ctx context.Context) ([]WatchSpell, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, resource, team, kind, since, opened_at, reminded_at,
		coalesce(graced_at, 0), acted, rate, currency FROM watch_spells WHERE closed_at IS NULL ORDER BY resource, kind`)
	if err != nil {
		return nil, fmt.Errorf("store: open watch spells: %w", err)
	}
	defer rows.Close()
	var out []WatchSpell
	for rows.Next() {
		var w WatchSpell
		var since, opened, reminded, graced int64
		var rate sql.NullFloat64
		if err := rows.Scan(&w.ID, &w.Resource, &w.Team, &w.Kind, &since, &opened, &reminded, &graced, &w.Acted,
			&rate, &w.Currency); err != nil {
			return nil, fmt.Errorf("store: open watch spells: %w", err)
		}
		w.Since, w.Opened, w.Reminded = time.Unix(since, 0).UTC(), time.Unix(opened, 0).UTC(), time.Unix(reminded, 0).UTC()
		if graced != 0 {
			w.Graced = time.Unix(graced, 0).UTC()
		}
		w.Rate, w.RateKnown = rate.Float64, rate.Valid
		out = append(out, w)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: open watch spells: %w", err)
	}
	return out, nil
}

// RecordWatch records one pass's decisions at at in one immediate
// transaction: spells opened, reminded, graced, acted on and closed, an
// event per decision, a pending message per channel, and each action as
// pending (or with its final outcome when it will not run), and the log
// files' cursors. It returns the ids of the pending actions, in the order of
// evs. Nothing is sent or run before this commits, so a pass killed at any
// point never alerts twice or acts twice: what is recorded is what the next
// pass sees. The cursors move only here, so a pass killed after it stored a
// tail reads it again (its samples are stored once: gpu_minutes keeps each
// sample's offset) and never skips one.
func (s *Store) RecordWatch(ctx context.Context, at time.Time, evs []WatchEvent, cursors []FileCursor) ([]int64, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("store: record watch: %w", err)
	}
	defer tx.Rollback()
	var pending []int64
	t := at.Unix()
	for i := range evs {
		e := &evs[i]
		id := e.SpellID
		switch e.Kind {
		case "open":
			res, err := tx.ExecContext(ctx, `INSERT INTO watch_spells (resource, team, kind, since, opened_at, reminded_at,
				rate, currency) VALUES (?,?,?,?,?,?,?,?)`, e.Resource, e.Team, e.SpellKind, e.Since.Unix(), t, t,
				nullFloat(e.Rate, e.RateKnown), e.Currency)
			if err != nil {
				return nil, fmt.Errorf("store: record watch: open a spell for %s: %w", e.Resource, err)
			}
			if id, err = res.LastInsertId(); err != nil {
				return nil, fmt.Errorf("store: record watch: %w", err)
			}
		case "remind":
			_, err = tx.ExecContext(ctx, `UPDATE watch_spells SET reminded_at = ? WHERE id = ?`, t, id)
		case "grace":
			_, err = tx.ExecContext(ctx, `UPDATE watch_spells SET graced_at = ? WHERE id = ?`, t, id)
		case "act":
			_, err = tx.ExecContext(ctx, `UPDATE watch_spells SET acted = 1 WHERE id = ?`, id)
		case "close":
			_, err = tx.ExecContext(ctx, `UPDATE watch_spells SET closed_at = ?, close_reason = ?, burnt = ? WHERE id = ?`,
				t, e.CloseReason, nullFloat(e.Burnt, e.BurntKnown), id)
		default:
			return nil, fmt.Errorf("store: record watch: unknown decision %q", e.Kind)
		}
		if err != nil {
			return nil, fmt.Errorf("store: record watch: %s %s: %w", e.Kind, e.Resource, err)
		}
		res, err := tx.ExecContext(ctx, `INSERT INTO watch_events (spell_id, at, kind, event, resource, team, title, body, burnt)
			VALUES (?,?,?,?,?,?,?,?,?)`, id, t, e.Kind, e.Event, e.Resource, e.Team, e.Title, e.Body, nullFloat(e.Burnt, e.BurntKnown))
		if err != nil {
			return nil, fmt.Errorf("store: record watch: %w", err)
		}
		ev, err := res.LastInsertId()
		if err != nil {
			return nil, fmt.Errorf("store: record watch: %w", err)
		}
		for _, ch := range e.Channels {
			if _, err := tx.ExecContext(ctx, `INSERT INTO watch_messages (event_id, channel) VALUES (?,?)`, ev, ch); err != nil {
				return nil, fmt.Errorf("store: record watch: %w", err)
			}
		}
		if a := e.Action; a != nil {
			argv, err := json.Marshal(a.Argv)
			if err != nil {
				return nil, fmt.Errorf("store: record watch: %w", err)
			}
			res, err := tx.ExecContext(ctx, `INSERT INTO watch_actions (event_id, resource, team, decided_at, action, argv,
				outcome, reason, idle_since, rate, currency) VALUES (?,?,?,?,?,?,?,?,?,?,?)`, ev, e.Resource, e.Team, t,
				a.Action, string(argv), a.Outcome, nullString(a.Reason), a.IdleSince.Unix(), nullFloat(a.Rate, e.RateKnown), a.Currency)
			if err != nil {
				return nil, fmt.Errorf("store: record watch: %w", err)
			}
			if a.Outcome == ActionPending {
				aid, err := res.LastInsertId()
				if err != nil {
					return nil, fmt.Errorf("store: record watch: %w", err)
				}
				pending = append(pending, aid)
			}
		}
	}
	if err := setFileCursors(ctx, tx, cursors); err != nil {
		return nil, err
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("store: record watch: %w", err)
	}
	return pending, nil
}

// InterruptPendingActions marks the actions a dead pass left pending as
// interrupted (the caller holds the run lock, so no pass is running them):
// whether the command ran is unknown, and running it again could stop a
// resource someone restarted since. It returns how many.
func (s *Store) InterruptPendingActions(ctx context.Context, at time.Time) (int, error) {
	res, err := s.db.ExecContext(ctx, `UPDATE watch_actions SET outcome = ?, finished_at = ?,
		reason = 'the watch pass stopped while the command ran (killed or crashed): not run again'
		WHERE outcome = ?`, ActionInterrupted, at.Unix(), ActionPending)
	if err != nil {
		return 0, fmt.Errorf("store: interrupted watch actions: %w", err)
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}

// FinishAction records how a pending action ended.
func (s *Store) FinishAction(ctx context.Context, id int64, outcome, reason string, exitCode *int, output string, at time.Time) error {
	var code any
	if exitCode != nil {
		code = *exitCode
	}
	res, err := s.db.ExecContext(ctx, `UPDATE watch_actions SET outcome = ?, reason = ?, exit_code = ?, output = ?,
		finished_at = ? WHERE id = ? AND outcome = ?`, outcome, nullString(reason), code, nullString(output), at.Unix(), id, ActionPending)
	if err != nil {
		return fmt.Errorf("store: finish watch action %d: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("store: finish watch action %d: not pending", id)
	}
	return nil
}

// Action returns one recorded action.
func (s *Store) Action(ctx context.Context, id int64) (*WatchAction, error) {
	acts, err := s.actions(ctx, `WHERE id = ?`, id)
	if err != nil {
		return nil, err
	}
	if len(acts) == 0 {
		return nil, fmt.Errorf("store: watch action %d: %w", id, sql.ErrNoRows)
	}
	return &acts[0], nil
}

// Actions returns the actions decided in [from, to), oldest first.
func (s *Store) Actions(ctx context.Context, from, to time.Time) ([]WatchAction, error) {
	return s.actions(ctx, `WHERE decided_at >= ? AND decided_at < ? ORDER BY decided_at, id`, from.Unix(), to.Unix())
}

func (s *Store) actions(ctx context.Context, where string, args ...any) ([]WatchAction, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, resource, team, decided_at, action, argv, outcome, coalesce(reason,''),
		exit_code, coalesce(output,''), coalesce(finished_at,0), idle_since, rate, currency FROM watch_actions `+where, args...)
	if err != nil {
		return nil, fmt.Errorf("store: watch actions: %w", err)
	}
	defer rows.Close()
	var out []WatchAction
	for rows.Next() {
		var a WatchAction
		var decided, finished, since int64
		var argv string
		var code sql.NullInt64
		var rate sql.NullFloat64
		if err := rows.Scan(&a.ID, &a.Resource, &a.Team, &decided, &a.Action, &argv, &a.Outcome, &a.Reason, &code,
			&a.Output, &finished, &since, &rate, &a.Currency); err != nil {
			return nil, fmt.Errorf("store: watch actions: %w", err)
		}
		if err := json.Unmarshal([]byte(argv), &a.Argv); err != nil {
			return nil, fmt.Errorf("store: watch action %d: argv: %w", a.ID, err)
		}
		a.DecidedAt, a.IdleSince = time.Unix(decided, 0).UTC(), time.Unix(since, 0).UTC()
		if finished != 0 {
			a.Finished = time.Unix(finished, 0).UTC()
		}
		if code.Valid {
			c := int(code.Int64)
			a.ExitCode = &c
		}
		a.Rate, a.RateKnown = rate.Float64, rate.Valid
		out = append(out, a)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: watch actions: %w", err)
	}
	return out, nil
}

// PendingWatchMessages returns the watch's messages not sent yet, oldest first.
func (s *Store) PendingWatchMessages(ctx context.Context) ([]WatchMessage, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT m.id, m.channel, e.at, e.event, e.resource, e.team, e.title, e.body,
		s.since, e.burnt, s.currency, m.attempts
		FROM watch_messages m JOIN watch_events e ON e.id = m.event_id JOIN watch_spells s ON s.id = e.spell_id
		WHERE m.sent_at IS NULL ORDER BY e.at, m.id`)
	if err != nil {
		return nil, fmt.Errorf("store: pending watch messages: %w", err)
	}
	defer rows.Close()
	var out []WatchMessage
	for rows.Next() {
		var m WatchMessage
		var at, since int64
		var burnt sql.NullFloat64
		if err := rows.Scan(&m.ID, &m.Channel, &at, &m.Event, &m.Resource, &m.Team, &m.Title, &m.Body, &since, &burnt,
			&m.Currency, &m.Attempts); err != nil {
			return nil, fmt.Errorf("store: pending watch messages: %w", err)
		}
		m.At, m.Since = time.Unix(at, 0).UTC(), time.Unix(since, 0).UTC()
		m.Burnt, m.BurntKnown = burnt.Float64, burnt.Valid
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: pending watch messages: %w", err)
	}
	return out, nil
}

// MessageSent marks a message delivered; MessageFailed counts a failed try
// (it stays pending, and the next pass sends it again).
func (s *Store) MessageSent(ctx context.Context, id int64, at time.Time) error {
	if _, err := s.db.ExecContext(ctx, `UPDATE watch_messages SET sent_at = ?, attempts = attempts + 1, error = NULL WHERE id = ?`,
		at.Unix(), id); err != nil {
		return fmt.Errorf("store: watch message %d sent: %w", id, err)
	}
	return nil
}

// MessageFailed records a failed delivery; errText must hold no secret.
func (s *Store) MessageFailed(ctx context.Context, id int64, errText string) error {
	if _, err := s.db.ExecContext(ctx, `UPDATE watch_messages SET attempts = attempts + 1, error = ? WHERE id = ?`,
		errText, id); err != nil {
		return fmt.Errorf("store: watch message %d failed: %w", id, err)
	}
	return nil
}

// WatchCursor is where a telemetry source was read up to (zero: never).
func (s *Store) WatchCursor(ctx context.Context, source string) (time.Time, error) {
	var until int64
	err := s.db.QueryRowContext(ctx, `SELECT until FROM watch_cursors WHERE source = ?`, source).Scan(&until)
	if errors.Is(err, sql.ErrNoRows) {
		return time.Time{}, nil
	}
	if err != nil {
		return time.Time{}, fmt.Errorf("store: watch cursor %s: %w", source, err)
	}
	return time.Unix(until, 0).UTC(), nil
}

// SetWatchCursor records where a source was read up to.
func (s *Store) SetWatchCursor(ctx context.Context, source string, until time.Time) error {
	if _, err := s.db.ExecContext(ctx, `INSERT INTO watch_cursors (source, until) VALUES (?, ?)
		ON CONFLICT(source) DO UPDATE SET until = excluded.until`, source, until.Unix()); err != nil {
		return fmt.Errorf("store: watch cursor %s: %w", source, err)
	}
	return nil
}

func nullFloat(v float64, ok bool) any {
	if !ok {
		return nil
	}
	return v
}

// WatchRecord is one line of `finops watch --history`: a decision, with its
// command's outcome when it was an action.
type WatchRecord struct {
	At                    time.Time
	Kind, Event           string
	Resource, Team, Title string
	Burnt                 float64
	BurntKnown            bool
	Currency              string
	Action                *WatchAction
}

// WatchHistory returns the decisions made in [from, to), oldest first.
func (s *Store) WatchHistory(ctx context.Context, from, to time.Time) ([]WatchRecord, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT e.at, e.kind, e.event, e.resource, e.team, e.title, e.burnt, s.currency,
		coalesce(a.id, 0) FROM watch_events e JOIN watch_spells s ON s.id = e.spell_id
		LEFT JOIN watch_actions a ON a.event_id = e.id
		WHERE e.at >= ? AND e.at < ? ORDER BY e.at, e.id`, from.Unix(), to.Unix())
	if err != nil {
		return nil, fmt.Errorf("store: watch history: %w", err)
	}
	defer rows.Close()
	var out []WatchRecord
	var actionIDs []int64
	for rows.Next() {
		var r WatchRecord
		var at, aid int64
		var burnt sql.NullFloat64
		if err := rows.Scan(&at, &r.Kind, &r.Event, &r.Resource, &r.Team, &r.Title, &burnt, &r.Currency, &aid); err != nil {
			return nil, fmt.Errorf("store: watch history: %w", err)
		}
		r.At, r.Burnt, r.BurntKnown = time.Unix(at, 0).UTC(), burnt.Float64, burnt.Valid
		out = append(out, r)
		actionIDs = append(actionIDs, aid)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: watch history: %w", err)
	}
	rows.Close()
	// The window's actions in one query, not one per action.
	acts, err := s.actions(ctx, `WHERE event_id IN (SELECT id FROM watch_events WHERE at >= ? AND at < ?)`,
		from.Unix(), to.Unix())
	if err != nil {
		return nil, err
	}
	byID := make(map[int64]*WatchAction, len(acts))
	for i := range acts {
		byID[acts[i].ID] = &acts[i]
	}
	for i, id := range actionIDs {
		if id != 0 {
			out[i].Action = byID[id]
		}
	}
	return out, nil
}
