package ingest

import (
	"encoding/binary"
	"fmt"

	"github.com/parquet-go/parquet-go"
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
			start := m.DataPageOffset
			if m.DictionaryPageOffset > 0 && m.DictionaryPageOffset < start {
				start = m.DictionaryPageOffset
			}
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
