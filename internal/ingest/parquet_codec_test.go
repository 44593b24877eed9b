package ingest

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"testing"
)

// hadoopLZ4Parquet is apache/parquet-testing's data/hadoop_lz4_compressed.parquet
// (Apache License 2.0): columns c0, c1, v11 compressed with the deprecated
// LZ4 codec (Hadoop's framing), which parquet-go does not read.
const hadoopLZ4Parquet = "UEFSMRUEFSAVNEwVBBUEAAAAAAAQAAAAEvABwHr8XgAAAADBevxeAAAAABUAFQYVGCwVCBUEFQgVCBwYCMF6/F4AAAAAGAjAevxeAAAAABYAKAjBevxeAAAAABgIwHr8XgAAAAAAAAAAAAADAAAABDABAwwVBBUcFS5MFQQVBAAAAAAADgAAAA/gAwAAAGFiYwMAAABkZWYVABUGFRgsFQgVBBUIFQgcNgAoA2RlZhgDYWJjAAAAAAAAAwAAAAQwAQMKFQQVMBU8TBUGFQQAAAAAABgAAAAWEQABAEBFQM3MAQCgHkAAAAAAABBFQBUAFRQVJiwVCBUEFQYVCBwYCAAAAAAAEEVAGAjNzMzMzMweQBYAKAgAAAAAABBFQBgIzczMzMzMHkAAAAAAAAAKAAAAC6ACAAAAAw8CA2QAFQIZTEgAFQYAFQQlABgCYzAAFQwlABgCYzEAFQolAhgDdjExABYIGRwZPCYIHBUEGSUIBBkYAmMwFQoWCBa6ARbgASYIPBgIwXr8XgAAAAAYCMB6/F4AAAAAFgAoCMF6/F4AAAAAGAjAevxeAAAAAAAZLBUEFQQVAgAVABUEFQIAAAAm6AEcFQwZJQgEGRgCYzEVChYIFnoWngEm6AE8NgAoA2RlZhgDYWJjABksFQQVBBUCABUAFQQVAgAAACaGAxwVChk1CAQGGRgDdjExFQoWCBbYARb2ASaGAzwYCAAAAAAAEEVAGAjNzMzMzMweQBYAKAgAAAAAABBFQBgIzczMzMzMHkAAGSwVBBUEFQIAFQAVBBUCAAAAFowEFggAKEpwYXJxdWV0LW1yIHZlcnNpb24gMS4xMC4xIChidWlsZCBhODlkZjhmOTkzMmI2ZWY2NjMzZDA2MDY5ZTUwYzliNzk3MGJlYmQxKRk8HAAAHAAAHAAAAHgBAABQQVIx"

// TestParquetUnsupportedCodec: a Parquet file compressed with a codec finops
// cannot read is refused naming the codec, the column and what to do, not
// as "truncated or corrupt; download it again" (which no download fixes).
func TestParquetUnsupportedCodec(t *testing.T) {
	b, err := base64.StdEncoding.DecodeString(hadoopLZ4Parquet)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "hadoop_lz4.parquet")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	_, err = Parse(t.Context(), f, Options{Name: path}, &countSink{})
	wantErrParts(t, err, "hadoop_lz4.parquet", `field "c0"`, "compressed with LZ4 (the deprecated Hadoop framing of LZ4), which finops cannot read",
		"export the file again with ZSTD, SNAPPY or LZ4_RAW")
}
