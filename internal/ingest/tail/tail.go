// Package tail reads nvidia-smi logs and NVML spool files by their tail: a
// cursor per file says where the last read stopped, and only the complete
// lines after it are handed on to be parsed. It knows files, not the
// database: the watch pass keeps the cursors in the store's ledger.
package tail

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/finops-oss/finops/internal/ingest"
)

// fingerprintBytes is how much of a file's start identifies it: past the
// header, the first rows' timestamps tell one log from the next.
const fingerprintBytes = 1024

// seekBlock is how far back each step of the search for the lookback's start
// reads in a file new to the watch.
const seekBlock = 64 << 10

// fieldsPrefix marks a Header that is no line of the file but the field list
// a headerless log was read with.
const fieldsPrefix = "fields:"

// Cursor is where the last read of a file stopped.
type Cursor struct {
	Identity string // the fingerprint of the part read: "length:sha256"
	Offset   int64  // bytes read, up to the end of a complete line
	Header   string // the file's header line, "fields:a,b" for a headerless log, or ""
}

// Chunk is what one read of one file gave: bytes [Start, End), its new
// complete lines.
type Chunk struct {
	Path       string
	Start, End int64
	Lines      int    // rows among them (the header is no row)
	Restarted  string // why the file was read anew ("" when it went on from its cursor)
	Header     string // the header to parse Data with, and to keep in the cursor
	Identity   string // the fingerprint of [0, End)
	Data       []byte
}

// Read reads f (size bytes, named path) from cur, or, when cur is nil (new
// to the watch) or no longer matches the file (truncated, rotated), from the
// first line stamped at or after from (times without a zone read in loc), up
// to its last complete line: a line still being written waits for the next
// read.
func Read(f io.ReaderAt, size int64, path string, cur *Cursor, from time.Time, loc *time.Location) (*Chunk, error) {
	c := &Chunk{Path: path, Restarted: "new to the watch"}
	if cur != nil {
		c.Restarted = sameFile(f, size, *cur)
		c.Header = cur.Header
	}
	var err error
	if c.Restarted == "" {
		c.Start = cur.Offset
	} else {
		if c.Header, err = logHeader(f); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if c.Start, err = lookbackStart(f, size, from, loc); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	if c.Data, err = completeLines(f, c.Start, size); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	c.End = c.Start + int64(len(c.Data))
	c.Lines = bytes.Count(c.Data, []byte("\n"))
	if c.Start == 0 && strings.HasPrefix(c.Header, fieldsPrefix) {
		c.Header = "" // a headerless log read from its start: its fields are told again
	}
	if c.Start == 0 && c.Header != "" && !strings.HasPrefix(c.Header, fieldsPrefix) {
		c.Lines-- // the header is no row
	}
	if c.Identity, err = fingerprint(f, c.End); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// URI names the chunk as a source of its own: the file and its byte range.
func (c *Chunk) URI() string { return fmt.Sprintf("%s#bytes=%d-%d", c.Path, c.Start, c.End) }

// SHA256 is the chunk's digest. The path and offset are in it: two hosts'
// logs may hold the same bytes.
func (c *Chunk) SHA256() string {
	h := sha256.New()
	fmt.Fprintf(h, "watch tail\x00%s\x00%d\x00", c.Path, c.Start)
	h.Write(c.Data)
	return hex.EncodeToString(h.Sum(nil))
}

// Input is what to parse: the data, behind the file's header line when the
// chunk starts past it; fields is the field list a headerless log was read
// with before (nil when none).
func (c *Chunk) Input() (in io.Reader, fields []string) {
	in = bytes.NewReader(c.Data)
	if list, ok := strings.CutPrefix(c.Header, fieldsPrefix); ok {
		return in, strings.Split(list, ",")
	}
	if c.Header != "" && c.Start > 0 {
		in = io.MultiReader(strings.NewReader(c.Header+"\n"), in)
	}
	return in, nil
}

// Parsed keeps the field list a headerless log was read with, so the next
// read of its tail uses the same.
func (c *Chunk) Parsed(fields []string) {
	if c.Header == "" && len(fields) > 0 {
		c.Header = fieldsPrefix + strings.Join(fields, ",")
	}
}

// Cursor is where the next read goes on from.
func (c *Chunk) Cursor() Cursor { return Cursor{Identity: c.Identity, Offset: c.End, Header: c.Header} }

// sameFile says why a file is to be read from the start again, or "" when it
// is the one its cursor was taken from, grown or not.
func sameFile(f io.ReaderAt, size int64, cur Cursor) string {
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
	// The parser's own rule: timestamp may stand anywhere in the header.
	if ingest.SMIHeaderLine(bytes.TrimPrefix(line, []byte("\ufeff"))) {
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
