// Package nvml is the collector behind `finops collect nvml`: it samples every
// GPU through NVML (github.com/NVIDIA/go-nvml) and appends the readings to
// rotating spool files that `finops ingest` reads.
//
// Spool format: nvidia-smi --query-gpu CSV, so the nvidia-smi parser reads it
// with no new format, with UTC timestamps that carry their "Z" (never host
// local time) and one extra column:
//
//	timestamp, hostname, index, name, uuid, utilization.gpu [%], memory.used [MiB], memory.total [MiB], power.draw [W], compute_apps
//	2026-11-23T08:00:00.000Z, gpu-a, 0, NVIDIA A100-SXM4-80GB, GPU-…, 87, 40000, 81920, 300.50, 2
//
// A MIG instance is its own row (its MIG-… UUID, its parent's index) with
// utilization [N/A]: NVML reports none for MIG instances. compute_apps counts
// the processes with a compute context. Files are named
// nvml-<host>-<YYYYMMDDTHH>Z.csv.part while written and renamed to .csv when
// their period is over (or the collector stops), so a glob of *.csv only
// ever sees finished files.
//
// The collector is built only with -tags nvml and cgo (go-nvml loads
// libnvidia-ml.so.1 with dlopen); the default pure-Go build says how to get it
// instead of collecting. The spool reader and writer are in every build.
package nvml

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// BuildHint is how to get a finops that can collect. The default build leaves
// go-nvml out (it needs cgo, and its C headers warn on every cold build) so
// finops stays pure Go everywhere but on the GPU hosts that sample NVML.
const BuildHint = "CGO_ENABLED=1 go build -tags nvml -o finops-nvml ./cmd/finops (or make build-nvml; see deploy/README.md)"

// Options configure the collector.
type Options struct {
	Dir      string        // spool folder, created if missing
	Host     string        // written in every row; default os.Hostname()
	Interval time.Duration // sampling interval, default 30 s
	Rotate   time.Duration // a new file this often (UTC-aligned), default 1 h
	Keep     time.Duration // finished files older than this are deleted; 0 keeps all
	Log      *slog.Logger
}

func (o *Options) defaults() error {
	if o.Dir == "" {
		return fmt.Errorf("nvml: no spool folder")
	}
	if o.Host == "" {
		h, err := os.Hostname()
		if err != nil {
			return fmt.Errorf("nvml: host name: %w", err)
		}
		o.Host = h
	}
	if o.Interval <= 0 {
		o.Interval = 30 * time.Second
	}
	if o.Rotate <= 0 {
		o.Rotate = time.Hour
	}
	if o.Log == nil {
		o.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return nil
}

// Header is the spool files' CSV header.
const Header = "timestamp, hostname, index, name, uuid, utilization.gpu [%], memory.used [MiB], memory.total [MiB], power.draw [W], compute_apps"

// Row is one reading of one GPU or MIG instance; nil is [N/A].
type Row struct {
	Time        time.Time
	Index       int
	Name, UUID  string
	Util        *float64 // percent
	MemUsedMiB  *float64
	MemTotalMiB *float64
	PowerW      *float64
	ComputeApps *int
}

func cellF(b *bytes.Buffer, v *float64, prec int) {
	b.WriteString(", ")
	if v == nil || math.IsNaN(*v) || math.IsInf(*v, 0) {
		b.WriteString("[N/A]")
		return
	}
	b.WriteString(fmt.Sprintf("%.*f", prec, *v))
}

// clean keeps a cell from breaking the ", "-separated row.
func clean(s string) string {
	s = strings.Map(func(r rune) rune {
		if r == ',' || r == '\n' || r == '\r' || r == '"' {
			return ' '
		}
		return r
	}, strings.TrimSpace(s))
	if s == "" {
		return "[N/A]"
	}
	return s
}

// format writes rows as spool lines.
func format(host string, rows []Row) []byte {
	var b bytes.Buffer
	for _, r := range rows {
		b.WriteString(r.Time.UTC().Format("2006-01-02T15:04:05.000Z"))
		b.WriteString(", " + clean(host))
		fmt.Fprintf(&b, ", %d, %s, %s", r.Index, clean(r.Name), clean(r.UUID))
		cellF(&b, r.Util, 0)
		cellF(&b, r.MemUsedMiB, 0)
		cellF(&b, r.MemTotalMiB, 0)
		cellF(&b, r.PowerW, 2)
		if r.ComputeApps == nil {
			b.WriteString(", [N/A]\n")
		} else {
			fmt.Fprintf(&b, ", %d\n", *r.ComputeApps)
		}
	}
	return b.Bytes()
}

// Spool appends rows to the current period's file and rotates.
type Spool struct {
	opt    Options
	f      *os.File
	period time.Time // start of the open file's period
}

// OpenSpool prepares the folder: leftover .part files of earlier runs are
// finished (renamed to .csv), after cutting a line a crash left half-written.
func OpenSpool(opt Options) (*Spool, error) {
	if err := opt.defaults(); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(opt.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("nvml: spool folder: %w", err)
	}
	s := &Spool{opt: opt}
	parts, _ := filepath.Glob(filepath.Join(opt.Dir, "nvml-*.csv.part"))
	for _, p := range parts {
		if err := finishPart(p); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// finishPart cuts a trailing partial line and renames p to .csv. It reads
// the file from the end until the last newline, not the whole spool file.
func finishPart(p string) error {
	f, err := os.OpenFile(p, os.O_RDWR, 0)
	if err != nil {
		return fmt.Errorf("nvml: %w", err)
	}
	end, err := completeLength(f)
	if err == nil {
		err = f.Truncate(end)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("nvml: finish %s: %w", p, err)
	}
	if err := os.Rename(p, strings.TrimSuffix(p, ".part")); err != nil {
		return fmt.Errorf("nvml: finish %s: %w", p, err)
	}
	return nil
}

// completeLength is the length of f up to and including its last newline
// (0 when it has none), read backwards a block at a time.
func completeLength(f *os.File) (int64, error) {
	fi, err := f.Stat()
	if err != nil {
		return 0, err
	}
	buf := make([]byte, 64<<10)
	for end := fi.Size(); end > 0; {
		start := max(end-int64(len(buf)), 0)
		b := buf[:end-start]
		if _, err := f.ReadAt(b, start); err != nil {
			return 0, err
		}
		if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
			return start + int64(i) + 1, nil
		}
		end = start
	}
	return 0, nil
}

func (s *Spool) name(period time.Time) string {
	host := strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == ' ' || r == os.PathSeparator {
			return '_'
		}
		return r
	}, s.opt.Host)
	return filepath.Join(s.opt.Dir, fmt.Sprintf("nvml-%s-%sZ.csv.part", host, period.UTC().Format("20060102T1504")))
}

// Write appends the rows of one sampling round, rotating first when their
// time is in a new period.
func (s *Spool) Write(at time.Time, rows []Row) error {
	period := at.UTC().Truncate(s.opt.Rotate)
	if s.f != nil && !period.Equal(s.period) {
		if err := s.finish(); err != nil {
			return err
		}
		s.prune(at)
	}
	if s.f == nil {
		p := s.name(period)
		if _, err := os.Stat(strings.TrimSuffix(p, ".part")); err == nil {
			// A file of this period was finished by an earlier run: start another.
			p = strings.TrimSuffix(p, ".csv.part") + fmt.Sprintf("-%d.csv.part", at.Unix())
		}
		f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return fmt.Errorf("nvml: %w", err)
		}
		if fi, err := f.Stat(); err == nil && fi.Size() == 0 {
			if _, err := f.WriteString(Header + "\n"); err != nil {
				f.Close()
				return fmt.Errorf("nvml: %w", err)
			}
		}
		s.f, s.period = f, period
	}
	if len(rows) == 0 {
		return nil
	}
	// One write per round: a reader never sees half a round, a crash at
	// worst half a line (cut when the spool is opened again).
	if _, err := s.f.Write(format(s.opt.Host, rows)); err != nil {
		return fmt.Errorf("nvml: write %s: %w", s.f.Name(), err)
	}
	return nil
}

func (s *Spool) finish() error {
	if s.f == nil {
		return nil
	}
	name := s.f.Name()
	err := s.f.Sync()
	if cerr := s.f.Close(); err == nil {
		err = cerr
	}
	s.f = nil
	if err != nil {
		return fmt.Errorf("nvml: close %s: %w", name, err)
	}
	if err := os.Rename(name, strings.TrimSuffix(name, ".part")); err != nil {
		return fmt.Errorf("nvml: finish %s: %w", name, err)
	}
	return nil
}

// prune deletes finished files whose last write is older than Keep.
func (s *Spool) prune(now time.Time) {
	if s.opt.Keep <= 0 {
		return
	}
	files, _ := filepath.Glob(filepath.Join(s.opt.Dir, "nvml-*.csv"))
	for _, p := range files {
		if fi, err := os.Stat(p); err == nil && now.Sub(fi.ModTime()) > s.opt.Keep {
			if err := os.Remove(p); err == nil {
				s.opt.Log.Info("nvml: deleted old spool file", "file", p)
			}
		}
	}
}

// Close finishes the open file.
func (s *Spool) Close() error { return s.finish() }
