package report

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"
)

// fileSet writes the files of one report (xlsx, html, json) as one: each
// is streamed to a temporary file beside its path, and commit renames them
// all into place only once every one is complete. A failure in any writer,
// or in a rename, leaves none of the set's files: those already renamed are
// removed, or, where they replaced an earlier report of the same name, that
// earlier file is put back. Files the set did not write are never touched.
type fileSet struct {
	pending []pendingFile
}

// writeFiles writes dir/<base><suffix> for each suffix (".xlsx",
// "-daily.csv") with write, as one fileSet, and returns the paths; what
// ("report") names them in errors. The workbook (".xlsx", which takes most
// of the time; else the first file) is written on a goroutine of its own
// while the others are written in turn, so on two cores the page and the JSON take no
// time of their own; write must be safe for that. The first error is kept
// and then stop (if not nil) is called, to stop the writer still at work
// (WriteAllContext cancels its context): the error returned is that first
// one, never the stopped writer's.
func writeFiles(dir, base string, suffixes []string, what string, stop func(), write func(suffix string, w io.Writer) error) ([]string, error) {
	if len(suffixes) == 0 {
		return nil, nil
	}
	var (
		mu    sync.Mutex
		first error
	)
	fail := func(err error) { // stop is called once, after the first error is kept
		mu.Lock()
		isFirst := first == nil
		if isFirst {
			first = err
		}
		mu.Unlock()
		if isFirst && stop != nil {
			stop()
		}
	}
	tmps := make([]string, len(suffixes))
	paths := make([]string, len(suffixes))
	one := func(i int) { // each i is written by one goroutine, read after Wait
		paths[i] = filepath.Join(dir, base+suffixes[i])
		var err error
		if tmps[i], err = writeTemp(paths[i], func(w io.Writer) error { return write(suffixes[i], w) }); err != nil {
			fail(err)
		}
	}
	// The workbook wherever --format put it; else the first file.
	bg := max(slices.Index(suffixes, ".xlsx"), 0)
	var wg sync.WaitGroup
	wg.Go(func() { one(bg) })
	for i := range suffixes {
		if i == bg {
			continue
		}
		if mu.Lock(); first != nil {
			mu.Unlock()
			break
		}
		mu.Unlock()
		one(i)
	}
	wg.Wait()
	var set fileSet
	for i, tmp := range tmps {
		if tmp != "" {
			set.pending = append(set.pending, pendingFile{tmp: tmp, path: paths[i]})
		}
	}
	if first != nil {
		set.abort()
		return nil, fmt.Errorf("%w (none of this %s's files were kept)", first, what)
	}
	if err := set.commit(); err != nil {
		return nil, fmt.Errorf("%w (none of this %s's files were kept)", err, what)
	}
	return paths, nil
}

type pendingFile struct {
	tmp, path string
}

// abort removes the temporary files not committed.
func (s *fileSet) abort() {
	for _, p := range s.pending {
		os.Remove(p.tmp)
	}
	s.pending = nil
}

// commit renames every file into place, or, on a failure, undoes the
// renames done so far. An earlier file of the same name is kept as a hard
// link until the end, so it can be put back; where the file system has no
// hard links, that one file cannot be put back and is left as this run
// wrote it (complete).
func (s *fileSet) commit() (err error) {
	type done struct{ path, backup string }
	var renamed []done
	defer func() {
		if err == nil {
			for _, d := range renamed {
				if d.backup != "" {
					os.Remove(d.backup)
				}
			}
			return
		}
		s.abort()
		for i := len(renamed) - 1; i >= 0; i-- {
			d := renamed[i]
			if d.backup != "" {
				err = errors.Join(err, os.Rename(d.backup, d.path))
			} else {
				os.Remove(d.path)
			}
		}
	}()
	for len(s.pending) > 0 {
		p := s.pending[0]
		backup := ""
		if fi, statErr := os.Lstat(p.path); statErr == nil && fi.Mode().IsRegular() {
			if os.Link(p.path, p.tmp+".old") == nil {
				backup = p.tmp + ".old"
			}
		}
		if err := os.Rename(p.tmp, p.path); err != nil {
			if backup != "" {
				os.Remove(backup)
			}
			return fmt.Errorf("report: %w", err)
		}
		s.pending = s.pending[1:]
		renamed = append(renamed, done{path: p.path, backup: backup})
	}
	return nil
}
