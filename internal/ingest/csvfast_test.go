package ingest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"reflect"
	"strings"
	"testing"
)

// readAll reads every record of a reader the way Parse does (stopping at
// the first fatal error) and writes down what each call returned.
func readAll(next func(header []string) ([]string, int, *ParseError, error), header []string) []string {
	var out []string
	for i := 0; i < 1e6; i++ {
		rec, line, rowErr, err := next(header)
		switch {
		case err != nil:
			return append(out, fmt.Sprintf("fatal line %d: %v (%T)", line, err, err))
		case rowErr != nil:
			out = append(out, fmt.Sprintf("row error line %d: %v", line, rowErr))
		default:
			out = append(out, fmt.Sprintf("line %d: %q", line, rec))
		}
	}
	return append(out, "endless")
}

// csvPieces are what generated CSV text is made of: the common case, and
// everything encoding/csv treats specially.
var csvPieces = []string{
	"a", "b1", "12.5 W", ",", ",", ",", ", ", ",  ", "\n", "\n", "\r\n", "\r", "\t", " ", "\v", "\f",
	"\"", "\"\"", "\"x\"", "\"a,b\"", "\"a\nb\"", "x\"y", "\u0085", "\u00a0", "\u3000", "\u2028",
	"\xef\xbb\xbf", "\xff", "\xc2", "é", "[N/A]", "2026/11/02 00:00:00.000", "\n\n", "\r\r\n", "#",
}

// csvQuotedFields are whole fields that csvReader splits itself when a
// line holds only such fields: quoted ones closed on the line ("" inside
// for a quote, commas, \r, bad bytes), after leading space or not.
var csvQuotedFields = []string{
	"a", "12.5 W", "", " ", "NULL", "é", "\xff",
	`"x"`, `""`, `"a,b"`, `"a""b"`, `""""`, `"{""k"": ""v"", ""n"": 1}"`, `" x "`, "\"a\rb\"", `"é"`, "\"\xff\"",
	` "x"`, "\t\"x\"", "\r\"x\"", "\u00a0\"x\"", "\u3000\"\"", "\u0085\"a\"\"\"",
}

// csvNearMisses are fields that look quoted but must go to encoding/csv:
// a quote inside an unquoted field, text or a \r after the closing quote,
// a quoted field that runs past the line.
var csvNearMisses = []string{
	`"a"b`, `"a""`, `"a`, `x"y`, `a"`, `"a" `, "\"a\"\r", "\"a\"\u00a0", `"`, `"""`, `"a"""b"`,
	"\"a\nb\"", "\"a\r\nb, \"\"c\"\"\"", "\"a,\n\n\"",
}

// csvLineEnds end the lines of genQuotedCSV: \r\r\n leaves a \r after a
// closing quote, and "" ends the file without a line end.
var csvLineEnds = []string{"\n", "\n", "\n", "\r\n", "\r", "\r\r\n", "\n\n", ""}

// genCSV is a random CSV text: mostly plain rows, with quotes, blank
// lines, odd line ends, Unicode spaces and bad bytes mixed in; or, half
// the time, lines of whole fields, quoted or not (genQuotedCSV).
func genCSV(rng *rand.Rand) string {
	var b strings.Builder
	if rng.Intn(8) == 0 {
		b.WriteString("\xef\xbb\xbf")
	}
	if rng.Intn(2) == 0 {
		genQuotedCSV(rng, &b)
		return b.String()
	}
	n := rng.Intn(60)
	for i := 0; i < n; i++ {
		b.WriteString(csvPieces[rng.Intn(len(csvPieces))])
	}
	return b.String()
}

// genQuotedCSV writes lines of fields as a FOCUS export has them, every
// text field quoted, with now and then a near miss among them.
func genQuotedCSV(rng *rand.Rand, b *strings.Builder) {
	for lines := rng.Intn(8); lines > 0; lines-- {
		for f := rng.Intn(5); f >= 0; f-- {
			field := csvQuotedFields[rng.Intn(len(csvQuotedFields))]
			if rng.Intn(12) == 0 {
				field = csvNearMisses[rng.Intn(len(csvNearMisses))]
			}
			b.WriteString(field)
			if f > 0 {
				b.WriteString([]string{",", ",", ", ", ",\t"}[rng.Intn(4)])
			}
		}
		b.WriteString(csvLineEnds[rng.Intn(len(csvLineEnds))])
	}
}

// TestCSVReaderMatchesEncodingCSV: csvReader.next returns, for any bytes,
// the same records, line numbers, row errors and fatal errors as the
// reader that sent every record through encoding/csv (refCSVReader), also
// when the input is read in small pieces or ends in a read error.
func TestCSVReaderMatchesEncodingCSV(t *testing.T) {
	rng := rand.New(rand.NewSource(35))
	header := []string{"timestamp", "name", "index"}
	failure := errors.New("disk gone")
	for i := 0; i < 20000; i++ {
		text := genCSV(rng)
		mk := func() io.Reader { return strings.NewReader(text) }
		switch i % 4 {
		case 1: // one byte at a time
			mk = func() io.Reader { return &chunkReader{s: text, size: 1} }
		case 2: // a read error partway
			cut := rng.Intn(len(text) + 1)
			mk = func() io.Reader { return io.MultiReader(strings.NewReader(text[:cut]), &errReader{failure}) }
		case 3: // the context cancelled partway
			cut := rng.Intn(len(text) + 1)
			mk = func() io.Reader {
				return io.MultiReader(strings.NewReader(text[:cut]), &errReader{context.Canceled})
			}
		}
		want := readAll(newRefCSVReader(mk(), "f.csv").next, header)
		got := readAll(newCSVReader(mk(), "f.csv").next, header)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("case %d, input %q:\n got %q\nwant %q", i, text, got, want)
		}
	}
}

// TestCSVReaderMatchesEncodingCSVSMILogs: the same on nvidia-smi logs, the
// input the fast path is for, with a row now and then broken in one of
// the ways a log gets broken (cut off, a stray quote, a quoted name over
// two lines, CRLF).
func TestCSVReaderMatchesEncodingCSVSMILogs(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	header := defaultSMIColumns()
	for i := 0; i < 300; i++ {
		var b strings.Builder
		b.WriteString("timestamp, name, pci.bus_id, index, uuid, utilization.gpu [%], utilization.memory [%], memory.total [MiB], memory.used [MiB], power.draw [W]\n")
		for r := 0; r < 200; r++ {
			row := fmt.Sprintf("2026/11/02 00:%02d:%02d.000, NVIDIA H100 80GB HBM3, 00000000:%02X:00.0, %d, GPU-%08d, %d %%, 11 %%, 81559 MiB, 19818 MiB, 631.95 W\n",
				r/60%60, r%60, r%8, r%8, r%8, rng.Intn(101))
			switch rng.Intn(40) {
			case 0:
				row = row[:rng.Intn(len(row))]
			case 1:
				j := rng.Intn(len(row))
				row = row[:j] + "\"" + row[j:]
			case 2:
				row = strings.Replace(row, "NVIDIA H100 80GB HBM3", "\"NVIDIA H100\n80GB, HBM3\"", 1)
			case 3:
				row = strings.TrimSuffix(row, "\n") + "\r\n"
			case 4:
				row = "\n"
			}
			b.WriteString(row)
		}
		text := b.String()
		want := readAll(newRefCSVReader(strings.NewReader(text), "smi.log").next, header)
		got := readAll(newCSVReader(strings.NewReader(text), "smi.log").next, header)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("log %d:\n got %q\nwant %q", i, got, want)
		}
	}
}

// chunkReader hands out s size bytes at a time.
type chunkReader struct {
	s    string
	size int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(c.s) == 0 {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), c.size)], c.s)
	c.s = c.s[n:]
	return n, nil
}

// errReader fails every read.
type errReader struct{ err error }

func (e *errReader) Read([]byte) (int, error) { return 0, e.err }

// FuzzCSVReader: csvReader and encoding/csv (refCSVReader) agree on any
// input, read whole or a byte at a time.
func FuzzCSVReader(f *testing.F) {
	for _, s := range []string{"a, b\nc,\"d\ne\"\n", "\"\n", "x\"y\r\n\r\n,", "\xef\xbb\xbfa,\u00a0b\r",
		"NULL,\"a\"\"b\", \"c,d\"\r\n\"\"\n", "\"a\"b,\"c\"\"\n\"x\"\r\r\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		want := readAll(newRefCSVReader(strings.NewReader(text), "f.csv").next, nil)
		for _, r := range []io.Reader{strings.NewReader(text), &chunkReader{s: text, size: 1}} {
			if got := readAll(newCSVReader(r, "f.csv").next, nil); !reflect.DeepEqual(got, want) {
				t.Fatalf("input %q:\n got %q\nwant %q", text, got, want)
			}
		}
	})
}
