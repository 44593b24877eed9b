package report

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
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
// ("report") names them in errors.
func writeFiles(dir, base string, suffixes []string, what string, write func(suffix string, w io.Writer) error) ([]string, error) {
	var set fileSet
	var paths []string
	for _, f := range suffixes {
		path := filepath.Join(dir, base+f)
		if err := set.add(path, func(w io.Writer) error { return write(f, w) }); err != nil {
			set.abort()
			return nil, fmt.Errorf("%w (none of this %s's files were kept)", err, what)
		}
		paths = append(paths, path)
	}
	if err := set.commit(); err != nil {
		return nil, fmt.Errorf("%w (none of this %s's files were kept)", err, what)
	}
	return paths, nil
}

type pendingFile struct {
	tmp, path string
}

// add writes one file of the set under a temporary name.
func (s *fileSet) add(path string, write func(io.Writer) error) error {
	tmp, err := writeTemp(path, write)
	if err != nil {
		return err
	}
	s.pending = append(s.pending, pendingFile{tmp: tmp, path: path})
	return nil
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
