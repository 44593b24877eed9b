package store

import (
	"context"
	"fmt"
	"time"
)

// WatchAlert is one message the watch delivered to one channel.
type WatchAlert struct {
	SentAt                time.Time
	Resource, Team, Event string
	Channel               string // watch.channels[i] as "type#i"
	Title                 string // from the bill: untrusted
}

// WatchActivity is what the watch did in a report's window: the messages
// delivered in it and the actions decided in it, oldest first.
type WatchActivity struct {
	Alerts  []WatchAlert
	Actions []WatchAction
}

// queryWatchAlerts reads the messages sent in [from, to) through
// watch_messages_sent (migration 8); pending and held messages are not
// alerts yet.
const queryWatchAlerts = `SELECT m.sent_at, e.resource, e.team, e.event, m.channel, e.title
	FROM watch_messages m JOIN watch_events e ON e.id = m.event_id
	WHERE m.sent_at IS NOT NULL AND m.sent_at >= ? AND m.sent_at < ? ORDER BY m.sent_at, m.id`

// WatchActivity returns the watch's alerts sent and actions decided in
// [from, to), for the weekly report's Watch section.
func (s *Store) WatchActivity(ctx context.Context, from, to time.Time) (*WatchActivity, error) {
	rows, err := s.db.QueryContext(ctx, queryWatchAlerts, from.Unix(), to.Unix())
	if err != nil {
		return nil, fmt.Errorf("store: watch alerts: %w", err)
	}
	defer rows.Close()
	var out WatchActivity
	for rows.Next() {
		var a WatchAlert
		var sent int64
		if err := rows.Scan(&sent, &a.Resource, &a.Team, &a.Event, &a.Channel, &a.Title); err != nil {
			return nil, fmt.Errorf("store: watch alerts: %w", err)
		}
		a.SentAt = time.Unix(sent, 0).UTC()
		out.Alerts = append(out.Alerts, a)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: watch alerts: %w", err)
	}
	rows.Close()
	if out.Actions, err = s.Actions(ctx, from, to); err != nil {
		return nil, err
	}
	return &out, nil
}
