package ingest

import (
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// The decoder trusts the sizes a file states and allocates them before it
// reads: a footer whose length field says 4 GiB costs 4 GiB of memory at
// once, and a column chunk may claim more bytes than the file has. Those
// sizes are checked here against the file first, so a corrupt or hostile
// file is refused instead of taking the machine's memory.

// maxParquetFooter bounds the footer (the file's metadata). Real exports'
// footers are kilobytes to a few megabytes, even for thousands of row groups.
const maxParquetFooter = 64 << 20

// maxParquetChunk bounds one column chunk, compressed or not: row groups of
// real exports are at most a few hundred megabytes.
const maxParquetChunk = 1 << 30

// checkParquetFooter reads the trailer (footer length and magic) and refuses
// a footer longer than the file or than maxParquetFooter.
func checkParquetFooter(ra randomAccess, name string) *ParseError {
	size := ra.Size()
	var tail [8]byte
	if size < int64(2*len(parquetMagic)+4) {
		return &ParseError{File: name, Msg: "a Parquet file too short to hold its footer: it is truncated or corrupt; copy or download it again"}
	}
	if _, err := ra.ReadAt(tail[:], size-8); err != nil {
		return &ParseError{File: name, Msg: fmt.Sprintf("reading the Parquet footer: %v", err)}
	}
	if string(tail[4:]) != parquetMagic {
		return &ParseError{File: name, Msg: "the Parquet file does not end in PAR1: it is truncated or corrupt (or still being written); copy or download it again"}
	}
	n := int64(binary.LittleEndian.Uint32(tail[:4]))
	if n > size-int64(len(parquetMagic))-8 || n > maxParquetFooter {
		return &ParseError{File: name, Msg: fmt.Sprintf("the Parquet footer claims %d bytes in a file of %d: it is truncated or corrupt; copy or download it again", n, size)}
	}
	return nil
}

// checkParquetChunks refuses column chunks that lie outside the file or
// claim more than maxParquetChunk bytes.
func checkParquetChunks(f *parquet.File, size int64) error {
	for i, rg := range f.Metadata().RowGroups {
		if rg.NumRows < 0 {
			return fmt.Errorf("row group %d claims %d rows", i+1, rg.NumRows)
		}
		for _, c := range rg.Columns {
			m := c.MetaData
			start := chunkStart(&m)
			if start < 0 || m.TotalCompressedSize < 0 || start+m.TotalCompressedSize > size ||
				m.TotalCompressedSize > maxParquetChunk || m.TotalUncompressedSize < 0 || m.TotalUncompressedSize > maxParquetChunk ||
				m.NumValues < 0 {
				return fmt.Errorf("row group %d: column %q claims bytes %d–%d (%d uncompressed) of a file of %d",
					i+1, c.MetaData.PathInSchema, start, start+m.TotalCompressedSize, m.TotalUncompressedSize, size)
			}
		}
	}
	return nil
}

// chunkStart is where a column chunk's first page is: its dictionary page,
// when it has one, comes before its data pages.
func chunkStart(m *format.ColumnMetaData) int64 {
	if m.DictionaryPageOffset > 0 && m.DictionaryPageOffset < m.DataPageOffset {
		return m.DictionaryPageOffset
	}
	return m.DataPageOffset
}

// The limits of a CSV record hold for a Parquet row too, and are checked
// before the decoder materialises what the file states: compression,
// dictionaries and run-length encoding let a 35 KB file hold a 900 MB value,
// 10,000 columns or a map of 100,000 entries (4.4 GB, 1.15 GB and 459 MB of
// memory when they were read).
const (
	// maxParquetPage bounds one page, uncompressed: a value is at most
	// maxRecordBytes (as a CSV record), and writers cut pages at about
	// 1 MiB, a page of one value is that value.
	maxParquetPage = 2 * maxRecordBytes
	// maxParquetColumns bounds the leaf columns of a schema: the decoder
	// keeps buffers per column (about 33 KB each). Real exports have tens
	// to a few hundred (a legacy CUR with many tag columns).
	maxParquetColumns = 2048
	// maxParquetMapEntries bounds the entries of one map cell (CUR 2.0's
	// resource_tags and product, FOCUS Tags): clouds allow 50 to a few
	// hundred tags on a resource.
	maxParquetMapEntries = 4096
	// maxPageHeader bounds one page header (statistics included).
	maxPageHeader = 1 << 20
)

// checkParquetPages reads the header of every page of every column chunk,
// without the pages, and refuses a page that is larger than maxParquetPage
// uncompressed, or that does not fit its chunk, naming the column and the
// rows the page holds: so no page is decompressed into more memory than a
// CSV record may take.
func checkParquetPages(ra randomAccess, f *parquet.File, name string) *ParseError {
	schema := f.Schema()
	first := int64(1) // the row group's first row
	var buf []byte
	for g, rg := range f.Metadata().RowGroups {
		for _, c := range rg.Columns {
			m := c.MetaData
			field := strings.Join(m.PathInSchema, ".")
			if len(m.PathInSchema) > 0 {
				field = m.PathInSchema[0]
			}
			flat := false
			if leaf, ok := schema.Lookup(m.PathInSchema...); ok {
				flat = leaf.MaxRepetitionLevel == 0
			}
			pos := chunkStart(&m)
			end := pos + m.TotalCompressedSize
			row := first
			for pos < end {
				var h format.PageHeader
				n, err := readPageHeader(ra, pos, end, &buf, &h)
				if err != nil || h.CompressedPageSize < 0 || pos+int64(n)+int64(h.CompressedPageSize) > end {
					return &ParseError{File: name, Line: int(row), Row: true, Field: field,
						Msg: fmt.Sprintf("a page header of row group %d does not read (%v): the Parquet file is truncated or corrupt; copy or download it again", g+1, err)}
				}
				rows := int64(0)
				switch {
				case h.DataPageHeaderV2.Valid:
					rows = int64(h.DataPageHeaderV2.V.NumRows)
				case h.DataPageHeader.Valid && flat:
					rows = int64(h.DataPageHeader.V.NumValues)
				}
				if int64(h.UncompressedPageSize) > maxParquetPage {
					where := fmt.Sprintf("the rows of row group %d (rows %d–%d)", g+1, first, first+rg.NumRows-1)
					switch {
					case h.DictionaryPageHeader.Valid:
						where = fmt.Sprintf("the dictionary of row group %d (rows %d–%d)", g+1, first, first+rg.NumRows-1)
					case rows == 1:
						where = fmt.Sprintf("row %d", row)
					case rows > 1:
						where = fmt.Sprintf("rows %d–%d", row, row+rows-1)
					}
					return &ParseError{File: name, Line: int(row), Row: true, Field: field,
						Msg: fmt.Sprintf("a Parquet page of %d bytes (uncompressed) holds %s of this column; a page is at most %d MiB and a value at most %d MiB, as a CSV record: the file is not a billing export (or is corrupt); check where it came from and export it again",
							h.UncompressedPageSize, where, maxParquetPage>>20, maxRecordBytes>>20)}
				}
				row += rows
				pos += int64(n) + int64(h.CompressedPageSize)
			}
		}
		first += rg.NumRows
	}
	return nil
}

// readPageHeader decodes the page header at pos (before end) into h and
// returns its length, reading at most maxPageHeader bytes.
func readPageHeader(ra randomAccess, pos, end int64, buf *[]byte, h *format.PageHeader) (int, error) {
	for size := int64(4 << 10); ; size *= 8 {
		size = min(size, end-pos, maxPageHeader)
		if int64(cap(*buf)) < size {
			*buf = make([]byte, size)
		}
		b := (*buf)[:size]
		if k, err := ra.ReadAt(b, pos); int64(k) < size {
			return 0, fmt.Errorf("reading at %d: %v", pos, err)
		}
		*h = format.PageHeader{}
		r := new(thrift.CompactProtocol).NewReaderFromBytes(b)
		err := thrift.NewDecoder(r).Decode(h)
		if err == nil {
			return r.BytesRead(), nil
		}
		if size == maxPageHeader {
			return 0, fmt.Errorf("longer than %d MiB, statistics included: %v", maxPageHeader>>20, err)
		}
		if size == end-pos {
			return 0, err
		}
	}
}

// checkParquetCodecs refuses a column chunk compressed with a codec that
// parquet-go cannot read, naming it, before any page is read.
func checkParquetCodecs(f *parquet.File, name string) *ParseError {
	for _, rg := range f.Metadata().RowGroups {
		for _, c := range rg.Columns {
			codec := c.MetaData.Codec
			switch codec {
			case format.Uncompressed, format.Snappy, format.Gzip, format.Brotli, format.Zstd:
				continue
			case format.Lz4Raw:
				if lz4Patched == nil {
					continue
				}
			}
			what := codec.String()
			if codec == format.Lz4 {
				what = "LZ4 (the deprecated Hadoop framing of LZ4)"
			}
			return &ParseError{File: name, Field: strings.Join(c.MetaData.PathInSchema, "."),
				Msg: fmt.Sprintf("the column is compressed with %s, which finops cannot read: export the file again with ZSTD, SNAPPY or LZ4_RAW compression (DuckDB: COMPRESSION zstd)", what)}
		}
	}
	return nil
}
