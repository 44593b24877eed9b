package pass

import (
	"context"
	"fmt"
	"github.com/finops-oss/finops/internal/source"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/finops-oss/finops/internal/deliver"
	"github.com/finops-oss/finops/internal/ingest"
	"github.com/finops-oss/finops/internal/ingest/tail"
	"github.com/finops-oss/finops/internal/store"
)

// The watch reads nvidia-smi logs and NVML spools by their tail (package
// tail). The cursors move in the pass's ledger transaction
// (store.RecordWatch), so a pass killed after it stored a tail reads the
// tail again.

// tailRead is what one pass read of one file.
type tailRead struct {
	path       string
	start, end int64 // bytes [start, end) parsed; start == end: nothing new
	lines      int
	restarted  string // why the file was read anew ("" when it went on from its cursor)
	cursor     store.FileCursor
}

// readTails reads the new complete lines of every log and spool file (the
// in-progress .csv.part ones too) into the store. It returns the cursors to
// record and the problems, each naming its file.
func readTails(ctx context.Context, o Options, from, now time.Time) ([]tailRead, []string, error) {
	if len(o.Tails) == 0 {
		return nil, nil, nil
	}
	cursors, err := o.Store.FileCursors(ctx)
	if err != nil {
		return nil, nil, err
	}
	var reads []tailRead
	var failed []string
	for _, s := range o.Tails {
		var files []string
		if s.InProgress != "" {
			// A spool with only the hour being written is not empty.
			files, _ = filepath.Glob(s.InProgress)
		}
		x, err := source.Expand(s.Pattern)
		switch {
		case err != nil && len(files) == 0:
			failed = append(failed, err.Error())
		case err == nil:
			for _, err := range x.Refused {
				failed = append(failed, err.Error())
			}
			files = append(files, x.Files...)
		}
		for _, path := range files {
			if archived, err := ingest.Archived(path); err != nil {
				failed = append(failed, deliver.Redact(err.Error()))
				continue
			} else if archived {
				continue // a rotated archive: history, not the tail
			}
			r, err := readTail(ctx, o, s, path, cursors, from, now)
			if err != nil {
				if ctx.Err() != nil {
					return nil, nil, ctx.Err()
				}
				failed = append(failed, deliver.Redact(err.Error()))
				continue
			}
			reads = append(reads, r...)
		}
	}
	return reads, failed, nil
}

// readTail reads one file from its cursor (or, new to the watch, from at most
// the lookback back) to its last complete line and stores the samples. A
// .csv whose .csv.part cursor it continues (the spool renamed it) hands that
// cursor on: the returned reads then also delete it.
func readTail(ctx context.Context, o Options, s Tail, path string, cursors map[string]store.FileCursor, from, now time.Time) ([]tailRead, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	var ra io.ReaderAt = f
	if o.TailReader != nil {
		ra = o.TailReader(path, f)
	}
	var out []tailRead
	var cur *tail.Cursor
	if c, ok := cursors[path]; ok {
		cur = &tail.Cursor{Identity: c.Identity, Offset: c.Offset, Header: c.Header}
	} else if part, ok := cursors[path+".part"]; ok && strings.HasSuffix(path, ".csv") {
		cur = &tail.Cursor{Identity: part.Identity, Offset: part.Offset, Header: part.Header}
		out = append(out, tailRead{path: part.Path, cursor: store.FileCursor{Path: part.Path, Gone: true}})
	}
	ch, err := tail.Read(ra, fi.Size(), path, cur, from, s.Parse.Location)
	if err != nil {
		return nil, err
	}
	if len(ch.Data) > 0 {
		fields, err := storeTail(ctx, o, s, ch)
		if err != nil {
			return nil, err
		}
		ch.Parsed(fields)
	}
	next := ch.Cursor()
	return append(out, tailRead{path: path, start: ch.Start, end: ch.End, lines: ch.Lines, restarted: ch.Restarted,
		cursor: store.FileCursor{Path: path, Identity: next.Identity, Offset: next.Offset, Header: next.Header, Until: now}}), nil
}

// storeTail parses a chunk with the file's header (or field list) and stores
// its samples as a source of its own, named by its byte range. It returns
// the field list a headerless log was read with.
func storeTail(ctx context.Context, o Options, s Tail, ch *tail.Chunk) ([]string, error) {
	uri := ch.URI()
	in, fields := ch.Input()
	opt := s.Parse
	opt.Name = uri
	if len(opt.SMIFields) == 0 {
		opt.SMIFields = fields
	}
	var read []string
	_, err := o.Store.Import(ctx, store.FileMeta{URI: uri, SHA256: ch.SHA256(), Host: opt.Host},
		func(ctx context.Context, sink ingest.Sink) (*ingest.Summary, error) {
			// A host clock far ahead would make its GPU read as busy next
			// year and never idle now: refused, as in ingest.
			guard := ingest.NewClockGuard(sink, uri, o.Now())
			sm, err := ingest.Parse(ctx, in, opt, guard)
			if err == nil {
				err = guard.Finish(sm)
			}
			if err == nil && sm.Kind != ingest.KindUtilization {
				return nil, fmt.Errorf("%s: configured as %s but the file is %s (%s)", uri, ingest.KindUtilization, sm.Kind, sm.Format)
			}
			if sm != nil {
				read = sm.SMIFields
			}
			return sm, err
		})
	return read, err
}

// printTails says what each log file gave, and returns the lines read.
func printTails(w io.Writer, reads []tailRead) int {
	n := 0
	for _, r := range reads {
		if r.cursor.Gone {
			continue
		}
		n += r.lines
		if r.end == r.start {
			continue
		}
		from := ""
		if r.restarted != "" {
			from = " (read anew: " + r.restarted + ")"
		}
		fmt.Fprintf(w, "watch: %s: %d new lines, bytes %d-%d%s\n", r.path, r.lines, r.start, r.end, from)
	}
	return n
}
