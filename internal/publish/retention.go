package publish

import (
	"context"
	"fmt"
	"path"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/finops-oss/finops/internal/objkey"
)

var (
	weekLabel  = regexp.MustCompile(`^(\d{4})-W(\d{2})$`)
	rangeLabel = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}_(\d{4}-\d{2}-\d{2})$`)
)

// PeriodEnd is when a period label's period ends: the Monday after an ISO
// week ("2026-W47"), the day after the last day of a date range
// ("2026-10-31_2026-11-30"). Midnight UTC: retention counts weeks, so the
// time zone does not matter.
func PeriodEnd(label string) (time.Time, bool) {
	if m := weekLabel.FindStringSubmatch(label); m != nil {
		y, _ := strconv.Atoi(m[1])
		w, _ := strconv.Atoi(m[2])
		if w < 1 || w > 53 {
			return time.Time{}, false
		}
		jan4 := time.Date(y, 1, 4, 0, 0, 0, 0, time.UTC)
		monday := jan4.AddDate(0, 0, -((int(jan4.Weekday()) + 6) % 7))
		start := monday.AddDate(0, 0, 7*(w-1))
		if yy, ww := start.ISOWeek(); yy != y || ww != w {
			return time.Time{}, false // W53 of a year that has 52
		}
		return start.AddDate(0, 0, 7), true
	}
	if m := rangeLabel.FindStringSubmatch(label); m != nil {
		t, err := time.Parse(time.DateOnly, m[1])
		if err != nil {
			return time.Time{}, false
		}
		return t.AddDate(0, 0, 1), true
	}
	return time.Time{}, false
}

// PruneSnapshots deletes the database snapshots under the prefix whose
// period ended more than weeks weeks before now. Only keys of the exact form
// <prefix>/<period>/finops-<period>.db.gz are snapshots; reports and anything
// else are never deleted, nor the snapshot of period keep (this run's), nor
// one whose period label does not parse. weeks <= 0 deletes nothing. It
// returns the keys deleted.
func (c *S3) PruneSnapshots(ctx context.Context, weeks int, now time.Time, keep string) ([]string, error) {
	if weeks <= 0 {
		return nil, nil
	}
	base := c.prefix
	if base != "" {
		base += "/"
	}
	objs, err := c.List(ctx, base)
	if err != nil {
		return nil, err
	}
	cutoff := now.Add(-time.Duration(weeks) * 7 * 24 * time.Hour)
	var deleted []string
	for _, o := range objs {
		rel := strings.TrimPrefix(o.Key, base)
		period, name := path.Split(rel)
		period = strings.TrimSuffix(period, "/")
		if strings.Contains(period, "/") || name != objkey.SnapshotName(period) || period == objkey.SafeName(keep) {
			continue
		}
		end, ok := PeriodEnd(period)
		if !ok || !end.Before(cutoff) {
			continue
		}
		if err := c.Delete(ctx, o.Key); err != nil {
			return deleted, fmt.Errorf("publish: retention: %w", err)
		}
		deleted = append(deleted, o.Key)
	}
	return deleted, nil
}
