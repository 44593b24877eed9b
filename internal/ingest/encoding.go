package ingest

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/transform"
)

// Text encodings a column mapping may declare (ColumnMapping.Encoding).
// GBK files are read with the GB18030 decoder, which is a superset of GBK and
// GB2312, so both names read the same bytes.
const (
	EncodingUTF8    = "utf-8"
	EncodingGBK     = "gbk"
	EncodingGB18030 = "gb18030"
)

// sniffBytes is how much of a file is looked at to choose how to read it:
// JSON or CSV, and the text encoding of a CSV.
const sniffBytes = 64 << 10

// NormalizeEncoding returns the canonical name of an encoding a config
// names ("" and "utf8" are UTF-8; "cp936" and "gb2312" read as GBK), or an
// error that lists the valid names.
func NormalizeEncoding(s string) (string, error) {
	switch strings.ToLower(strings.ReplaceAll(strings.TrimSpace(s), "_", "-")) {
	case "", "utf-8", "utf8":
		return EncodingUTF8, nil
	case "gbk", "cp936", "gb2312", "windows-936", "euc-cn":
		return EncodingGBK, nil
	case "gb18030", "gb-18030":
		return EncodingGB18030, nil
	}
	return "", fmt.Errorf("encoding %q: use utf-8, gbk or gb18030", s)
}

// isGB reports an encoding read with the GB18030 decoder.
func isGB(enc string) bool {
	n, err := NormalizeEncoding(enc)
	return err == nil && (n == EncodingGBK || n == EncodingGB18030)
}

// input is a file's bytes made ready for a parser: what it is (JSON or
// CSV) and, for a CSV through a GBK mapping, a UTF-8 view of it.
type input struct {
	r        io.Reader
	json     bool
	parquet  bool   // starts like a Parquet file, but is not one Parse can seek in
	encoding string // EncodingUTF8, or the GB encoding the text was decoded from
	utf16    string // "UTF-16LE" or "UTF-16BE" when the file is UTF-16 text, which Parse refuses
	// detected is the header's format when it was detected to choose the
	// encoding, for the parser to reuse; nil otherwise.
	detected *detection
}

// prepareInput looks at the start of a file. A file whose first non-space
// byte is [, or a JSON object holding a "results" or "invoices" array, is
// JSON (RunPod, Vast.ai). A CSV is UTF-8 unless the column mapping its
// header matches declares a GB encoding and the file is not evidently UTF-8
// (a UTF-8 BOM, or a first line of non-ASCII text that is valid UTF-8): GBK
// text is practically never valid UTF-8, so a file re-saved as UTF-8 still
// reads right under a mapping that says gbk. A CSV whose lines end in a lone
// CR is read through crReader.
func prepareInput(r io.Reader, opt Options) input {
	br := bufio.NewReaderSize(r, sniffBytes)
	prefix, _ := br.Peek(sniffBytes) // a read error comes back again on the first Read
	if enc := utf16Of(prefix); enc != "" {
		return input{r: br, utf16: enc}
	}
	if hasParquetMagic(prefix) {
		return input{r: br, parquet: true}
	}
	if first := firstNonSpace(prefix); first == '[' || first == '{' && isVastPage(prefix) || isJSONFormat(opt) {
		if bytes.HasPrefix(prefix, []byte("\xef\xbb\xbf")) {
			_, _ = br.Discard(3)
		}
		return input{r: br, json: true, encoding: EncodingUTF8}
	}
	var text io.Reader = br
	if c := firstNonSpace(prefix); c != '{' && c != '[' && crLineEnds(prefix) { // JSON is left to isGCPJSONInput
		text = &crReader{r: br}
	}
	if bytes.HasPrefix(prefix, []byte("\xef\xbb\xbf")) || evidentlyUTF8(prefix) {
		return input{r: text, encoding: EncodingUTF8}
	}
	// ASCII so far, or not UTF-8: the header names the mapping, whose
	// encoding says how to read the rest.
	line := firstLine(prefix)
	var hdr []string
	if utf8.Valid(line) {
		hdr = csvHeader(line)
	} else if dec, err := simplifiedchinese.GB18030.NewDecoder().Bytes(line); err == nil {
		hdr = csvHeader(dec)
	}
	det := mappingFor(hdr, opt)
	if m := det.rental(); m != nil && isGB(m.Encoding) {
		enc, _ := NormalizeEncoding(m.Encoding)
		return input{r: transform.NewReader(text, simplifiedchinese.GB18030.NewDecoder()), encoding: enc, detected: det}
	}
	return input{r: text, encoding: EncodingUTF8, detected: det}
}

// utf16Of names the UTF-16 encoding of a file's start: a byte-order mark,
// or NUL bytes on one side of each ASCII character (UTF-8 and GBK text has
// no NUL at all; a binary file has them on both sides alike). "" otherwise.
func utf16Of(prefix []byte) string {
	switch {
	case bytes.HasPrefix(prefix, []byte{0xff, 0xfe}):
		return "UTF-16LE"
	case bytes.HasPrefix(prefix, []byte{0xfe, 0xff}):
		return "UTF-16BE"
	}
	var even, odd int
	for i, c := range prefix[:min(len(prefix), 512)] {
		if c == 0 {
			if i%2 == 0 {
				even++
			} else {
				odd++
			}
		}
	}
	switch {
	case odd >= 8 && odd >= 8*even:
		return "UTF-16LE"
	case even >= 8 && even >= 8*odd:
		return "UTF-16BE"
	}
	return ""
}

// gbHint explains a header that is not UTF-8 but reads as GBK: which
// mapping it then matches, and that the mapping should say so.
func gbHint(raw []string, opt Options) string {
	line := []byte(strings.Join(raw, ","))
	dec, err := simplifiedchinese.GB18030.NewDecoder().Bytes(line)
	if err != nil || !utf8.Valid(dec) {
		return ""
	}
	if m := mappingFor(csvHeader(dec), opt).rental(); m != nil {
		return fmt.Sprintf("; read as GBK it is the header of mapping %q: add encoding: gbk to that mapping in the config", m.Name)
	}
	return "; it may be GBK or GB18030: name the file's columns in a mapping with encoding: gbk"
}

// checkDecoded refuses a field that held bytes the GB18030 decoder could
// not read (it writes U+FFFD for them): the file is not in the mapping's
// encoding, and guessing would corrupt names and amounts.
func checkDecoded(file string, line int, header, rec []string, enc string) *ParseError {
	for i, f := range rec {
		if strings.ContainsRune(f, utf8.RuneError) {
			return &ParseError{File: file, Line: line, Field: columnName(header, i),
				Msg: fmt.Sprintf("bytes that are not valid %s (shown as \ufffd in %s); is the file in the mapping's encoding? convert it to UTF-8 or fix the mapping's encoding",
					strings.ToUpper(enc), found(f))}
		}
	}
	return nil
}

func firstNonSpace(b []byte) byte {
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
	for _, c := range b {
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		}
		return c
	}
	return 0
}

// evidentlyUTF8 reports whether the first line with non-ASCII bytes is
// valid UTF-8 (a rune cut by the end of the prefix is forgiven). GBK text
// of a few characters is practically never valid UTF-8, and a file whose
// header is UTF-8 is a UTF-8 file, even when a later row is not (that row is
// then refused by line and field).
func evidentlyUTF8(b []byte) bool {
	for len(b) > 0 {
		line := b
		i := bytes.IndexByte(b, '\n')
		if i >= 0 {
			line, b = b[:i], b[i+1:]
		} else {
			b = nil
		}
		if !hasNonASCII(line) {
			continue
		}
		if i < 0 { // the prefix may end inside a rune
			for cut := 1; cut < utf8.UTFMax && cut < len(line); cut++ {
				if utf8.Valid(line[:len(line)-cut]) {
					return true
				}
			}
		}
		return utf8.Valid(line)
	}
	return false
}

func hasNonASCII(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return true
		}
	}
	return false
}

// firstLine is b up to its first line end: LF, CRLF or a lone CR.
func firstLine(b []byte) []byte {
	if i := bytes.IndexAny(b, "\r\n"); i >= 0 {
		b = b[:i]
	}
	return b
}

// csvHeader splits one header line; a malformed one gives nil.
func csvHeader(line []byte) []string {
	cr := csv.NewReader(bytes.NewReader(line))
	cr.LazyQuotes = true
	cr.TrimLeadingSpace = true
	rec, err := cr.Read()
	if err != nil {
		return nil
	}
	return cleanHeader(rec)
}
