package source

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/finops-oss/finops/internal/ingest"
)

// Files expands a local source and plans its deliveries: where the files
// include billing-export manifests (AWS CUR, AWS Data Exports, Azure), only
// the files of each billing period's latest delivery are imported, keyed so
// that the store replaces earlier deliveries (ingest.PlanDeliveriesWithin).
func Files(pattern string) (*ingest.DeliveryPlan, error) {
	x, err := Expand(pattern)
	if err != nil {
		return nil, err
	}
	plan := ingest.PlanDeliveriesWithin(x.Files, Root(pattern))
	plan.Errs = append(x.Refused, plan.Errs...)
	plan.Notes = append(x.Notes, plan.Notes...)
	return plan, nil
}

// Root is the folder a source may read from: the folder itself, the static
// part of a glob, and for a single file no limit (a manifest named by hand
// may list files in a sibling folder, as Data Exports' do).
func Root(pattern string) string {
	if i := strings.IndexAny(pattern, "*?["); i >= 0 {
		return filepath.Dir(pattern[:i] + "x")
	}
	if fi, err := os.Stat(pattern); err == nil && fi.IsDir() {
		return pattern
	}
	return ""
}

// Expansion is what a path, folder or glob names.
type Expansion struct {
	Files   []string // regular files (or links to them), sorted
	Refused []error  // entries that are not regular files
	Notes   []string // links to folders inside a folder, not followed
}

// Expand turns a path, folder or glob into the files it names. A pattern
// that matches nothing is an error: a source that silently yields no files
// would make missing data look like zero spend. A path that exists is taken
// as it is, even when its name holds glob characters (a '[' of an escape
// sequence, "bill [copy].csv"). Entries that are not
// regular files (a FIFO, socket or device; a folder a glob matched) are
// refused one by one, from their stat, and never opened: the source's other
// files are still read. Links are followed to files, as a glob and a named
// file are, but not to folders inside a walked folder (no loops, no file
// read twice); those are named in a note.
func Expand(pattern string) (*Expansion, error) {
	x := &Expansion{}
	keep := func(p string) {
		if err := ingest.CheckRegular(p); err != nil {
			x.Refused = append(x.Refused, err)
			return
		}
		x.Files = append(x.Files, p)
	}
	if _, err := os.Lstat(pattern); err != nil && strings.ContainsAny(pattern, "*?[") {
		m, err := filepath.Glob(pattern)
		if err != nil {
			return nil, fmt.Errorf("%s: bad pattern: %w", pattern, err)
		}
		for _, p := range m {
			keep(p)
		}
	} else {
		fi, err := os.Stat(pattern)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", pattern, err)
		}
		if !fi.IsDir() {
			if err := ingest.CheckRegular(pattern); err != nil {
				return nil, err
			}
			return &Expansion{Files: []string{pattern}}, nil
		}
		err = filepath.WalkDir(pattern, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if strings.HasPrefix(d.Name(), ".") && p != pattern {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			if d.IsDir() {
				return nil
			}
			if d.Type()&fs.ModeSymlink != 0 {
				if fi, err := os.Stat(p); err == nil && fi.IsDir() {
					x.Notes = append(x.Notes, fmt.Sprintf("%s: a link to a folder, not followed; name it as a source of its own to read it", p))
					return nil
				}
			}
			keep(p)
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", pattern, err)
		}
	}
	if len(x.Files) == 0 && len(x.Refused) == 0 {
		if len(x.Notes) > 0 {
			return nil, fmt.Errorf("%s: no files match (%s)", pattern, x.Notes[0])
		}
		return nil, fmt.Errorf("%s: no files match", pattern)
	}
	sort.Strings(x.Files)
	return x, nil
}
