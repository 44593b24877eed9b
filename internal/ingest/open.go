package ingest

import (
	"archive/zip"
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"strings"
)

// Open opens a file for Parse, decompressing gzip (.csv.gz deliveries) and
// single-CSV zip archives (.csv.zip) by their magic bytes, whatever the name
// says; a Parquet file (PAR1) comes back as the file itself, for Parse to
// read by row group. Reading a truncated or corrupt archive fails with an error that says so.
// Anything but a regular file is refused before it is opened (CheckRegular).
func Open(name string) (io.ReadCloser, error) { return OpenCounted(name, nil) }

// OpenCounted is Open that passes the number of the file's own bytes each
// read took (compressed ones, for an archive) to read, so that a caller can
// show how far through the file the parse is, the file's size being the
// whole. Zip and Parquet files, read at offsets, report only the first read.
func OpenCounted(name string, read func(n int)) (io.ReadCloser, error) {
	f, err := openRegular(name)
	if err != nil {
		return nil, err
	}
	var src io.Reader = f
	if read != nil {
		src = &countingReader{r: f, read: read}
	}
	br := bufio.NewReaderSize(src, 64<<10)
	magic, _ := br.Peek(4)
	switch {
	case bytes.HasPrefix(magic, []byte{0x1f, 0x8b}):
		gz, err := gzip.NewReader(br)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("%s: %w", name, archiveErr("gzip", err))
		}
		return &readCloser{r: &archiveReader{r: gz, kind: "gzip"}, closers: []io.Closer{gz, f}}, nil
	case bytes.Equal(magic, []byte("PK\x03\x04")), bytes.Equal(magic, []byte("PK\x05\x06")):
		// A local file header, or the end of a central directory with no
		// file before it: an empty archive.
		return openZip(name, f)
	case bytes.Equal(magic, []byte(parquetMagic)):
		// Parquet is read by row group from its footer: Parse needs the file.
		st, err := f.Stat()
		if err != nil {
			f.Close()
			return nil, err
		}
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			f.Close()
			return nil, err
		}
		return &parquetFile{File: f, size: st.Size()}, nil
	}
	return &readCloser{r: br, closers: []io.Closer{f}}, nil
}

func openZip(name string, f *os.File) (io.ReadCloser, error) {
	fail := func(err error) (io.ReadCloser, error) {
		f.Close()
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	st, err := f.Stat()
	if err != nil {
		return fail(err)
	}
	zr, err := zip.NewReader(f, st.Size())
	if err != nil {
		return fail(archiveErr("zip", err))
	}
	var files, csvs []*zip.File
	for _, zf := range zr.File {
		if zf.FileInfo().IsDir() || strings.HasPrefix(path.Base(zf.Name), ".") {
			continue
		}
		files = append(files, zf)
		if strings.HasSuffix(strings.ToLower(zf.Name), ".csv") {
			csvs = append(csvs, zf)
		}
	}
	pick := files
	if len(csvs) > 0 {
		pick = csvs
	}
	if len(pick) == 0 {
		return fail(errors.New("empty zip archive: it holds no file; export or compress the file again"))
	}
	if len(pick) != 1 {
		return fail(fmt.Errorf("zip archive holds %d files; finops reads a zip with one CSV: extract the files and ingest them one by one", len(pick)))
	}
	rc, err := pick[0].Open()
	if err != nil {
		return fail(archiveErr("zip", err))
	}
	return &readCloser{r: &archiveReader{r: rc, kind: "zip"}, closers: []io.Closer{rc, f}}, nil
}

func archiveErr(kind string, err error) error {
	return fmt.Errorf("%s data is truncated or corrupt (%v); copy or download the file again", kind, err)
}

// archiveReader turns decompression failures into errors that say what is
// wrong with the file; a bare "unexpected EOF" does not.
type archiveReader struct {
	r    io.Reader
	kind string
}

func (a *archiveReader) Read(p []byte) (int, error) {
	n, err := a.r.Read(p)
	if err != nil && err != io.EOF {
		err = archiveErr(a.kind, err)
	}
	return n, err
}

// countingReader passes the size of each read to read.
type countingReader struct {
	r    io.Reader
	read func(n int)
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if n > 0 {
		c.read(n)
	}
	return n, err
}

type readCloser struct {
	r       io.Reader
	closers []io.Closer
}

func (c *readCloser) Read(p []byte) (int, error) { return c.r.Read(p) }

func (c *readCloser) Close() error {
	var errs []error
	for _, cl := range c.closers {
		errs = append(errs, cl.Close())
	}
	return errors.Join(errs...)
}
