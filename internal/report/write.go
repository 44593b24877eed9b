package report

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/finops-oss/finops/internal/sanitize"

	"github.com/finops-oss/finops/internal/analysis"
	"github.com/finops-oss/finops/internal/capped"
)

// Formats returns the report format names WriteAll accepts, in the order
// it writes them (the registry's, outputs.go).
func Formats() []string { return outputNames(false) }

// DefaultFormats returns the formats WriteAll writes when given none.
func DefaultFormats() []string { return outputNames(true) }

// WriteAll writes the report in each format to dir as finops-<label>.<format>
// (finops-<label>-<team>.<format> for a team's slice, Meta.Team; csv is one
// file per table, finops-<label>-<table>.csv) and returns
// the paths written. The label and team are reduced to [A-Za-z0-9_.-], so data
// can never name a file outside dir. Each report is streamed into a temporary
// file in dir, and all are renamed into place once every one is complete
// (fileSet): readers (and a crash) only ever see complete reports, a failure
// in any format leaves none of them, and a large workbook is never held in
// memory twice. nil or empty formats means DefaultFormats.
func WriteAll(dir string, r *analysis.Result, formats []string, meta Meta) ([]string, error) {
	return WriteAllContext(context.Background(), dir, r, formats, meta)
}

// WriteAllContext is WriteAll that stops with ctx's error once ctx is done:
// a fleet's workbook takes seconds, and a signal must not wait for it. The
// report being written is then removed; those already written stay. It looks
// at ctx before each format and, in the workbook, before each sheet and row;
// the HTML page and JSON take a fraction of a second at fleet scale.
func WriteAllContext(ctx context.Context, dir string, r *analysis.Result, formats []string, meta Meta) ([]string, error) {
	if r == nil {
		return nil, fmt.Errorf("report: nil result")
	}
	if len(formats) == 0 {
		formats = DefaultFormats()
	}
	var want []string // file-name suffixes: ".xlsx", "-daily.csv"
	for _, f := range formats {
		f = strings.ToLower(strings.TrimSpace(f))
		o, ok := lookupOutput(f)
		if !ok {
			return nil, fmt.Errorf("report: unknown format %q (valid: %s)", f, strings.Join(Formats(), ", "))
		}
		for _, s := range o.files(r) {
			if !slices.Contains(want, s) {
				want = append(want, s)
			}
		}
	}
	// A fresh out folder (first run, a new --out) is created, not an error.
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	// The workbook is written beside the other formats (writeFiles): a
	// failure in one stops the workbook at its next row.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	return writeFiles(dir, BaseName(r, meta), want, "report", cancel, func(f string, w io.Writer) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		for _, o := range outputFormats() {
			if slices.Contains(o.files(r), f) {
				return o.write(ctx, w, r, meta, f)
			}
		}
		return fmt.Errorf("report: no writer for %q", f)
	})
}

// BaseName is the file name WriteAll gives the reports, without extension:
// "finops-2026-W47", or "finops-2026-W47-nlp" for a team's slice.
func BaseName(r *analysis.Result, meta Meta) string {
	base := "finops-" + sanitize.FileLabel(r.Period.Label, "report")
	if meta.Team != "" {
		base += "-" + sanitize.FileLabelUnique(meta.Team, "team")
	}
	return base
}

// WriteFileAtomic streams write's output into a temporary file next to path,
// makes it readable by all (0644), syncs it and renames it over path. The
// rename is atomic within one directory, so a reader (and a crash) only ever
// sees a complete file; on any error the temporary file is removed and path
// is untouched. Every file finops writes goes through it (the several files
// of one report through a fileSet).
func WriteFileAtomic(path string, write func(io.Writer) error) error {
	// The rename replaces whatever path names: a device or pipe given by
	// mistake (--textfile /dev/full) would become a regular file. Only a
	// regular file, or nothing, is replaced.
	if fi, err := os.Lstat(path); err == nil && !fi.Mode().IsRegular() && fi.Mode()&os.ModeSymlink == 0 {
		return fmt.Errorf("report: %s is %s, not a regular file: finops writes only regular files; name a file (its folder must be writable)",
			path, capped.FileType(fi.Mode()))
	}
	tmp, err := writeTemp(path, write)
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("report: %w", err)
	}
	return nil
}

// writeTemp streams write's output into a new temporary file next to path,
// readable by all and synced, and returns its name; on any error it is
// removed.
func writeTemp(path string, write func(io.Writer) error) (name string, err error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return "", fmt.Errorf("report: %w", err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	bw := bufio.NewWriterSize(tmp, 256<<10)
	if err = write(bw); err != nil {
		return "", err
	}
	if err = bw.Flush(); err != nil {
		return "", fmt.Errorf("report: write %s: %w", path, err)
	}
	// Reports are meant to be read by others (web server, mail, S3 upload);
	// CreateTemp's 0600 would surprise them.
	if err = tmp.Chmod(0o644); err != nil {
		return "", fmt.Errorf("report: %w", err)
	}
	if err = tmp.Sync(); err != nil {
		return "", fmt.Errorf("report: sync %s: %w", path, err)
	}
	if err = tmp.Close(); err != nil {
		return "", fmt.Errorf("report: close %s: %w", path, err)
	}
	return tmp.Name(), nil
}
