package tail

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"
)

var day = time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)

const header = "timestamp, index, name, utilization.gpu [%]\n"

// row is GPU 0's line at minute m after 00:00, util % busy.
func row(m, util int) string {
	return fmt.Sprintf("%s, 0, A100, %d\n", day.Add(time.Duration(m)*time.Minute).Format("2006/01/02 15:04:05.000"), util)
}

func rows(from, to, util int) string {
	var b strings.Builder
	for m := from; m < to; m++ {
		b.WriteString(row(m, util))
	}
	return b.String()
}

// cursorAfter is the cursor of a read that ended after the first n bytes of s.
func cursorAfter(t *testing.T, s string, n int64, hdr string) *Cursor {
	t.Helper()
	id, err := fingerprint(strings.NewReader(s), n)
	if err != nil {
		t.Fatal(err)
	}
	return &Cursor{Identity: id, Offset: n, Header: hdr}
}

// TestRead: where a read starts and ends. The header is 44 bytes and a row
// 37 ("2026/11/30 00:00:00.000" 23, ", 0" 3, ", A100" 6, ", 95" 4, "\n" 1);
// the lookback starts at 00:10, the eleventh row.
func TestRead(t *testing.T) {
	const h, r = 44, 37
	if len(header) != h || len(row(0, 95)) != r {
		t.Fatalf("header %d, row %d bytes: the offsets below are counted for 44 and 37", len(header), len(row(0, 95)))
	}
	from := day.Add(10 * time.Minute)
	hdr := strings.TrimSuffix(header, "\n")
	logged := header + rows(0, 20, 95)    // 44 + 20×37 = 784 bytes
	firstHalf := header + rows(0, 10, 95) // 44 + 10×37 = 414 bytes
	rotated := header + rows(0, 10, 50) + rows(10, 20, 95)
	for _, tc := range []struct {
		name       string
		file       string
		cur        func(t *testing.T) *Cursor
		start, end int64
		lines      int
		restarted  string
		header     string
	}{
		// A header counts as recent: a short log with one is read whole.
		{"new, with a header: from its start", logged, nil, 0, 784, 20, "new to the watch", hdr},
		// Rows 0–9 are before 00:10: the read starts at row 10, 10×37.
		{"new, headerless: from the lookback's first row", rows(0, 20, 95), nil, 370, 740, 10, "new to the watch", ""},
		{"grown: from the cursor", logged, func(t *testing.T) *Cursor { return cursorAfter(t, firstHalf, 414, hdr) },
			414, 784, 10, "", hdr},
		{"unchanged: nothing new", logged, func(t *testing.T) *Cursor { return cursorAfter(t, logged, 784, hdr) },
			784, 784, 0, "", hdr},
		// A row half written (no newline yet) waits for the next read.
		{"a line being written", firstHalf + "2026/11/30 00:10", nil, 0, 414, 10, "new to the watch", hdr},
		{"truncated: read anew", firstHalf, func(t *testing.T) *Cursor { return cursorAfter(t, logged, 784, hdr) },
			0, 414, 10, "shorter than the 784 bytes read before: truncated or replaced", hdr},
		// Row 0 now reads 50: the first 414 bytes differ from those read.
		{"rotated: read anew", rotated, func(t *testing.T) *Cursor { return cursorAfter(t, firstHalf, 414, hdr) },
			0, 784, 20, "its first bytes changed: rotated or replaced", hdr},
		{"no fingerprint: read anew", logged, func(*testing.T) *Cursor { return &Cursor{Offset: 414} },
			0, 784, 20, "no fingerprint recorded", hdr},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var cur *Cursor
			if tc.cur != nil {
				cur = tc.cur(t)
			}
			c, err := Read(strings.NewReader(tc.file), int64(len(tc.file)), "gpu-a.log", cur, from, time.UTC)
			if err != nil {
				t.Fatal(err)
			}
			if c.Start != tc.start || c.End != tc.end || c.Lines != tc.lines || c.Restarted != tc.restarted || c.Header != tc.header {
				t.Errorf("bytes %d-%d, %d lines, restarted %q, header %q; want %d-%d, %d, %q, %q",
					c.Start, c.End, c.Lines, c.Restarted, c.Header, tc.start, tc.end, tc.lines, tc.restarted, tc.header)
			}
			if want := tc.file[tc.start:tc.end]; string(c.Data) != want {
				t.Errorf("data %q, want %q", c.Data, want)
			}
			if want := fmt.Sprintf("gpu-a.log#bytes=%d-%d", tc.start, tc.end); c.URI() != want {
				t.Errorf("URI %q, want %q", c.URI(), want)
			}
			// The next read goes on from here, as the same file.
			next := c.Cursor()
			again, err := Read(strings.NewReader(tc.file), int64(len(tc.file)), "gpu-a.log", &next, from, time.UTC)
			if err != nil {
				t.Fatal(err)
			}
			if again.Restarted != "" || again.Start != tc.end || again.End != tc.end {
				t.Errorf("read again: bytes %d-%d, restarted %q; want nothing new from %d", again.Start, again.End, again.Restarted, tc.end)
			}
		})
	}
}

// TestReadLongLog: a log of 2,000 rows (74,000 bytes, more than a 64 KiB
// block) new to the watch starts at the lookback's first row, 1,990×37 =
// 73,630, and only the last block and the fingerprint's 1 KiB are read,
// not the whole log.
func TestReadLongLog(t *testing.T) {
	log := rows(0, 2000, 95)
	counted := &countingReader{r: strings.NewReader(log)}
	c, err := Read(counted, int64(len(log)), "long.log", nil, day.Add(1990*time.Minute), time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	if c.Start != 73630 || c.End != 74000 || c.Lines != 10 {
		t.Errorf("bytes %d-%d, %d lines; want 73630-74000, 10", c.Start, c.End, c.Lines)
	}
	// The header probe (4 KiB), a block (64 KiB), the tail (370) and the
	// fingerprint (1 KiB): 4,096 + 65,536 + 370 + 1,024 = 71,026 at most.
	if counted.n > 71026 {
		t.Errorf("read %d bytes of a %d-byte log, want at most 71026", counted.n, len(log))
	}
}

type countingReader struct {
	r io.ReaderAt
	n int
}

func (c *countingReader) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.r.ReadAt(p, off)
	c.n += n
	return n, err
}

// TestChunkInput: what a chunk hands the parser, and the header its cursor
// keeps.
func TestChunkInput(t *testing.T) {
	data := []byte(row(10, 95))
	hdr := strings.TrimSuffix(header, "\n")
	for _, tc := range []struct {
		name       string
		c          Chunk
		parsed     []string // the field list the parse reports
		wantIn     string
		wantFields []string
		wantHeader string // in the cursor after the parse
	}{
		{"past the header: the header goes first", Chunk{Start: 414, Header: hdr, Data: data}, nil,
			header + string(data), nil, hdr},
		{"from the start: the file's own header", Chunk{Start: 0, Header: hdr, Data: []byte(header + string(data))}, nil,
			header + string(data), nil, hdr},
		{"headerless, fields told before", Chunk{Start: 370, Header: "fields:timestamp,index,name,utilization.gpu", Data: data}, nil,
			string(data), []string{"timestamp", "index", "name", "utilization.gpu"}, "fields:timestamp,index,name,utilization.gpu"},
		{"headerless, read with the configured fields", Chunk{Start: 0, Data: data}, []string{"timestamp", "utilization.gpu"},
			string(data), nil, "fields:timestamp,utilization.gpu"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in, fields := tc.c.Input()
			got, err := io.ReadAll(in)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.wantIn || fmt.Sprint(fields) != fmt.Sprint(tc.wantFields) {
				t.Errorf("input %q, fields %q; want %q, %q", got, fields, tc.wantIn, tc.wantFields)
			}
			tc.c.Parsed(tc.parsed)
			if h := tc.c.Cursor().Header; h != tc.wantHeader {
				t.Errorf("cursor header %q, want %q", h, tc.wantHeader)
			}
		})
	}
}

// TestChunkDigest: two hosts' logs may hold the same bytes; their chunks
// are different sources.
func TestChunkDigest(t *testing.T) {
	data := []byte(rows(0, 3, 95))
	a := Chunk{Path: "a/gpu.log", Data: data}
	b := Chunk{Path: "b/gpu.log", Data: data}
	later := Chunk{Path: "a/gpu.log", Start: 111, Data: data}
	if a.SHA256() == b.SHA256() || a.SHA256() == later.SHA256() {
		t.Errorf("same digest for other paths or offsets: %s %s %s", a.SHA256(), b.SHA256(), later.SHA256())
	}
	if c := (Chunk{Path: "a/gpu.log", Data: bytes.Clone(data)}); c.SHA256() != a.SHA256() {
		t.Error("the same chunk read twice has two digests")
	}
}

// TestReadIndexFirst: a log of the HPC guides' recipe
// (--query-gpu=index,timestamp,utilization.gpu --format=csv) keeps its header
// though timestamp is not its first field, and its rows' times are read from
// their second field, so a long one new to the watch starts at the lookback:
// 2,000 rows a minute apart, from 1,990 minutes on, so the header's line and
// 1,990 rows before the start, and 10 rows read.
func TestReadIndexFirst(t *testing.T) {
	hdr := "index, timestamp, utilization.gpu [%]"
	at := func(m int) string {
		return fmt.Sprintf("0, %s, 95 %%\n", day.Add(time.Duration(m)*time.Minute).Format("2006/01/02 15:04:05.000"))
	}
	var b strings.Builder
	b.WriteString(hdr + "\n")
	for m := 0; m < 2000; m++ {
		b.WriteString(at(m))
	}
	log := b.String()
	r := int64(len(at(0)))
	c, err := Read(strings.NewReader(log), int64(len(log)), "hpc.log", nil, day.Add(1990*time.Minute), time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	wantStart := int64(len(hdr)+1) + 1990*r
	if c.Header != hdr || c.Start != wantStart || c.Lines != 10 {
		t.Errorf("header %q, start %d, %d lines; want %q, %d, 10", c.Header, c.Start, c.Lines, hdr, wantStart)
	}
	if in, fields := c.Input(); fields != nil {
		t.Errorf("fields %v for a log with a header", fields)
	} else if got, _ := io.ReadAll(in); !strings.HasPrefix(string(got), hdr+"\n"+at(1990)) {
		t.Errorf("input starts %q, want the header then row 1990", string(got)[:80])
	}
}
