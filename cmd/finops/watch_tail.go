package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/finops-oss/finops/config"
	"github.com/finops-oss/finops/ingest"
	"github.com/finops-oss/finops/store"
)

// The watch reads nvidia-smi logs and NVML spools by their tail: a cursor
// per file (store.FileCursor) says where the last pass stopped, and only the
// complete lines after it are parsed. The cursors move in the pass's ledger
// transaction (store.RecordWatch), so a pass killed after it stored a tail
// reads the tail again.

// fingerprintBytes is how much of a file's start identifies it: past the
// header, the first rows' timestamps tell one log from the next.
const fingerprintBytes = 1024

// seekBlock is how far back each step of the search for the lookback's start
// reads in a file new to the watch.
const seekBlock = 64 << 10

// tailRead is what one pass read of one file.
type tailRead struct {
	path       string
	start, end int64 // bytes [start, end) parsed; start == end: nothing new
	lines      int
	restarted  string // why the file was read anew ("" when it went on from its cursor)
	cursor     store.FileCursor
}

// watchTails reads the new complete lines of every nvidia-smi log and NVML
// spool file (the in-progress .csv.part ones too) into the store. It returns
// the cursors to record and the problems, each naming its file.
func (m *Main) watchTails(ctx context.Context, st *store.Store, c *config.Config, specs []sourceSpec, from, now time.Time) ([]tailRead, []string, error) {
	cursors, err := st.FileCursors(ctx)
	if err != nil {
		return nil, nil, err
	}
	var reads []tailRead
	var failed []string
	for _, s := range specs {
		var files []string
		if s.inProgress != "" {
			// A spool with only the hour being written is not empty.
			files, _ = filepath.Glob(s.inProgress)
		}
		x, err := expand(s.name)
		switch {
		case err != nil && len(files) == 0:
			failed = append(failed, err.Error())
		case err == nil:
			for _, err := range x.refused {
				failed = append(failed, err.Error())
			}
			files = append(files, x.files...)
		}
		for _, path := range files {
			if archived, err := ingest.Archived(path); err != nil {
				failed = append(failed, redact(err.Error()))
				continue
			} else if archived {
				continue // a rotated archive: history, not the tail
			}
			r, err := m.readTail(ctx, st, c, s, path, cursors, from, now)
			if err != nil {
				if ctx.Err() != nil {
					return nil, nil, ctx.Err()
				}
				failed = append(failed, redact(err.Error()))
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
func (m *Main) readTail(ctx context.Context, st *store.Store, c *config.Config, s sourceSpec, path string,
	cursors map[string]store.FileCursor, from, now time.Time) ([]tailRead, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	size := fi.Size()
	var ra io.ReaderAt = f
	if m.watchTailReader != nil {
		ra = m.watchTailReader(path, f)
	}
	var out []tailRead
	cur, known := cursors[path]
	if part, ok := cursors[path+".part"]; !known && ok && strings.HasSuffix(path, ".csv") {
		cur, known = part, true
		out = append(out, tailRead{path: part.Path, cursor: store.FileCursor{Path: part.Path, Gone: true}})
	}
	r := tailRead{path: path}
	if known {
		r.restarted = sameFile(ra, size, cur)
	} else {
		r.restarted = "new to the watch"
	}
	header := cur.Header
	if r.restarted == "" {
		r.start = cur.Offset
	} else {
		if header, err = logHeader(ra); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if r.start, err = lookbackStart(ra, size, from, s.location); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	data, err := completeLines(ra, r.start, size)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	r.end = r.start + int64(len(data))
	r.lines = bytes.Count(data, []byte("\n"))
	if r.start == 0 && strings.HasPrefix(header, "fields:") {
		header = "" // a headerless log read from its start: its fields are told again
	}
	if r.start == 0 && header != "" && !strings.HasPrefix(header, "fields:") {
		r.lines-- // the header is no row
	}
	if len(data) > 0 {
		fields, err := m.storeTail(ctx, st, c, s, path, r.start, header, data)
		if err != nil {
			return nil, err
		}
		if header == "" && len(fields) > 0 {
			header = "fields:" + strings.Join(fields, ",")
		}
	}
	id, err := fingerprint(ra, r.end)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	r.cursor = store.FileCursor{Path: path, Identity: id, Offset: r.end, Header: header, Until: now}
	return append(out, r), nil
}

// sameFile says why a file is to be read from the start again, or "" when it
// is the one its cursor was taken from, grown or not.
func sameFile(f io.ReaderAt, size int64, cur store.FileCursor) string {
	if size < cur.Offset {
		return fmt.Sprintf("shorter than the %d bytes read before: truncated or replaced", cur.Offset)
	}
	n, _, _ := strings.Cut(cur.Identity, ":")
	length, err := strconv.ParseInt(n, 10, 64)
	if err != nil {
		return "no fingerprint recorded"
	}
	if id, err := fingerprint(f, length); err != nil || id != cur.Identity {
		return "its first bytes changed: rotated or replaced"
	}
	return ""
}

// fingerprint identifies a file by its first bytes, up to read (the part
// already read: what follows may still change).
func fingerprint(f io.ReaderAt, read int64) (string, error) {
	n := min(read, fingerprintBytes)
	h := sha256.New()
	if _, err := io.Copy(h, io.NewSectionReader(f, 0, n)); err != nil {
		return "", err
	}
	return fmt.Sprintf("%d:%s", n, hex.EncodeToString(h.Sum(nil))), nil
}

// logHeader is a log's header line ("timestamp, name, …"), or "" when its
// first line is a row.
func logHeader(f io.ReaderAt) (string, error) {
	buf := make([]byte, 4096)
	n, err := f.ReadAt(buf, 0)
	if err != nil && err != io.EOF {
		return "", err
	}
	line, _, complete := bytes.Cut(buf[:n], []byte("\n"))
	if !complete {
		return "", nil // not even one complete line yet: looked at again next pass
	}
	first, _, _ := bytes.Cut(bytes.TrimPrefix(line, []byte("\ufeff")), []byte(","))
	if strings.EqualFold(strings.TrimSpace(string(first)), "timestamp") {
		return string(bytes.TrimRight(line, "\r")), nil
	}
	return "", nil
}

// lookbackStart is where a file new to the watch is read from: the first line
// stamped at or after from. It reads back from the end a block at a time
// until a block starts before from, so a log of months costs the lookback
// and a block, not its history. Lines whose time cannot be read (a header)
// count as recent.
func lookbackStart(f io.ReaderAt, size int64, from time.Time, loc *time.Location) (int64, error) {
	if loc == nil {
		loc = time.UTC
	}
	pos := size
	for pos > 0 {
		pos = max(0, pos-seekBlock)
		buf := make([]byte, min(seekBlock, size-pos))
		if _, err := f.ReadAt(buf, pos); err != nil && err != io.EOF {
			return 0, err
		}
		start := 0
		if pos > 0 {
			i := bytes.IndexByte(buf, '\n')
			if i < 0 {
				continue // one line longer than a block: look further back
			}
			start = i + 1
		}
		line, _, _ := bytes.Cut(buf[start:], []byte("\n"))
		if t, ok := ingest.SMILineTime(line, loc); !ok || !t.Before(from) {
			if pos == 0 {
				return 0, nil
			}
			continue
		}
		// This block starts before from: the first line at or after it is here
		// or at the next block's first line.
		for off := start; off < len(buf); {
			line, _, complete := bytes.Cut(buf[off:], []byte("\n"))
			if !complete {
				break
			}
			if t, ok := ingest.SMILineTime(line, loc); !ok || !t.Before(from) {
				return pos + int64(off), nil
			}
			off += len(line) + 1
		}
		return pos + int64(bytes.LastIndexByte(buf, '\n')+1), nil
	}
	return 0, nil
}

// completeLines reads [start, size) up to its last newline: a line still
// being written waits for the next pass.
func completeLines(f io.ReaderAt, start, size int64) ([]byte, error) {
	if start >= size {
		return nil, nil
	}
	data := make([]byte, size-start)
	if _, err := f.ReadAt(data, start); err != nil && err != io.EOF {
		return nil, err
	}
	return data[:bytes.LastIndexByte(data, '\n')+1], nil
}

// storeTail parses a tail with the file's header (or field list) and stores
// its samples as a source of its own, named by its byte range. It returns
// the field list a headerless log was read with.
func (m *Main) storeTail(ctx context.Context, st *store.Store, c *config.Config, s sourceSpec, path string, start int64,
	header string, data []byte) ([]string, error) {
	uri := fmt.Sprintf("%s#bytes=%d-%d", path, start, start+int64(len(data)))
	var in io.Reader = bytes.NewReader(data)
	if fields, ok := strings.CutPrefix(header, "fields:"); ok {
		if len(s.smiFields) == 0 {
			s.smiFields = strings.Split(fields, ",")
		}
	} else if header != "" && start > 0 {
		in = io.MultiReader(strings.NewReader(header+"\n"), in)
	}
	// The path is in the digest: two hosts' logs may hold the same bytes.
	h := sha256.New()
	fmt.Fprintf(h, "watch tail\x00%s\x00%d\x00", path, start)
	h.Write(data)
	var fields []string
	_, err := st.Import(ctx, store.FileMeta{URI: uri, SHA256: hex.EncodeToString(h.Sum(nil)), Host: s.host},
		func(ctx context.Context, sink ingest.Sink) (*ingest.Summary, error) {
			// A host clock far ahead would make its GPU read as busy next
			// year and never idle now: refused, as in ingest.
			guard := ingest.NewClockGuard(sink, uri, m.Now())
			sm, err := parseInput(ctx, in, c, s, uri, guard)
			if err == nil {
				err = guard.Finish(sm)
			}
			if err == nil && sm.Kind != s.kind {
				return nil, fmt.Errorf("%s: configured as %s but the file is %s (%s)", uri, s.kind, sm.Kind, sm.Format)
			}
			if sm != nil {
				fields = sm.SMIFields
			}
			return sm, err
		})
	return fields, err
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
