package ingest

import (
	"errors"
	"fmt"
	_ "unsafe" // go:linkname

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
	"github.com/parquet-go/parquet-go/format"
	"github.com/pierrec/lz4/v4"
)

// parquet-go v0.32's LZ4_RAW decoder loses pages: it decodes into a new
// buffer of 3× the compressed size whenever the one it is given is smaller
// than that, and its caller keeps the buffer it gave when the page's size
// comes out as stated, so a page that compresses less than 3× reads as the
// pooled buffer's old bytes (a DuckDB export came out "corrupt"; a page of
// doubles could read as other numbers). On data that is not LZ4 it doubles
// its buffer without end. lz4RawCodec decodes into the buffer it is given,
// grows it at most to maxParquetPage, and is put in parquet-go's codec table
// in place of its own.
type lz4RawCodec struct{ compress.Codec }

func (lz4RawCodec) Decode(dst, src []byte) ([]byte, error) {
	if cap(dst) < len(src) {
		dst = make([]byte, 0, 3*len(src))
	}
	for {
		n, err := lz4.UncompressBlock(src, dst[:cap(dst)])
		if err == nil {
			return dst[:n], nil
		}
		// Too short a buffer, or not LZ4 data: the decoder cannot tell
		// which, so it grows, up to the largest page finops reads.
		if cap(dst) >= maxParquetPage {
			return nil, fmt.Errorf("LZ4_RAW page does not decode into %d MiB: %w", maxParquetPage>>20, err)
		}
		dst = make([]byte, 0, min(2*cap(dst)+1024, maxParquetPage))
	}
}

//go:linkname parquetCodecs github.com/parquet-go/parquet-go.compressionCodecs
var parquetCodecs [8]compress.Codec

// errCodecTable says parquet-go's table is not what this file patches.
var errCodecTable = errors.New("parquet-go's codec table changed: LZ4_RAW pages are read by its own decoder")

// lz4Patched is nil when lz4RawCodec is in place.
var lz4Patched = patchLZ4Raw()

func patchLZ4Raw() error {
	// The table must be the one declared above: the codecs at its known
	// places are the ones parquet-go looks up.
	for _, c := range []format.CompressionCodec{format.Uncompressed, format.Snappy, format.Gzip, format.Zstd, format.Lz4Raw} {
		if parquetCodecs[c] == nil || parquetCodecs[c] != parquet.LookupCompressionCodec(c) || parquetCodecs[c].CompressionCodec() != c {
			return errCodecTable
		}
	}
	parquetCodecs[format.Lz4Raw] = lz4RawCodec{parquetCodecs[format.Lz4Raw]}
	return nil
}
