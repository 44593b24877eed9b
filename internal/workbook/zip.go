package workbook

import (
	"archive/zip"
	"bytes"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"math"
	"runtime"
	"strings"

	"github.com/klauspost/compress/flate"
	"github.com/xuri/excelize/v2"
)

// A workbook's parts are compressed when excelize writes it out, one after
// the other, after every sheet is built: at fleet scale that is seconds of
// deflate on one core while the others wait. ZipWriter deflates each part in
// chunks on every core instead, as pgzip does: each chunk is compressed with
// the 32 KiB before it as its dictionary and ends in a sync flush, so the
// chunks' outputs, in order, are one valid deflate stream of the part. The
// compressor is klauspost/compress's at level 6, the level archive/zip uses:
// on a workbook's sheet XML it is 4–6× faster than compress/flate's and the
// output a little smaller (docs/BENCHMARKS.md §Reports); the bytes differ
// from what excelize writes on its own, the cells do not.

// zipChunk is the uncompressed size of one chunk: large enough that the
// dictionary restart costs nothing measurable in ratio and that resetting
// a compressor (deflaters) is a small part of the work, small enough
// that the few in flight stay under 10 MiB with 2 cores.
const zipChunk = 2 << 20

// chunkCap is a chunk buffer's capacity: a chunk and room for the row that
// ends one of Rows' (which fills its buffer past zipChunk by a row).
const chunkCap = zipChunk + 256<<10

// zipLevel is the deflate level of every part (archive/zip's default).
const zipLevel = 6

// ZipWriter is an excelize.ZipWriter that deflates parts on every core. Use
// it through Write, or with (*excelize.File).SetZipWriter(workbook.NewZipWriter).
type ZipWriter struct {
	zw      *zip.Writer
	part    *zipPart
	workers int
	free    [][]byte // chunk buffers compressed and written out, for reuse
	defl    *deflaters
	// splices are the Rows still to be placed, by token; held is the
	// worksheet part being written while some are, kept whole (a streamed
	// sheet's part is its header and settings, a few KB) to find a
	// placeholder in.
	splices map[string]*Rows
	held    *bytes.Buffer
}

// Write writes f to w, its parts deflated on every core (ZipWriter) and the
// archive going straight to w. excelize's own Write assembles the whole
// archive in a bytes.Buffer and copies it to w after: with the buffer's
// doubling, up to three times the file in memory at the end (≈ 400 MB for
// the 148 MB workbook of a 10,000-GPU week, docs/BENCHMARKS.md §10,000
// GPUs). Here the ZipWriter ignores the buffer excelize hands it, which stays
// empty. (excelize also patches zip64 local headers in that buffer, for
// parts over 4 GiB of XML; archive/zip records zip64 in the central
// directory and data descriptors itself, which is what readers use.)
//
// rows are the data rows of streamed sheets (Rows), each put in place of
// its placeholder row as the sheet's part is written; it is an error if one
// with rows finds no placeholder.
func Write(f *excelize.File, w io.Writer, rows ...*Rows) error {
	zw := NewZipWriter(w).(*ZipWriter)
	for _, r := range rows {
		if r == nil || r.Len() == 0 {
			continue
		}
		if zw.splices == nil {
			zw.splices = map[string]*Rows{}
		}
		zw.splices[r.token] = r
	}
	f.SetZipWriter(func(io.Writer) excelize.ZipWriter { return zw })
	return f.Write(w)
}

// NewZipWriter returns a ZipWriter writing the archive to w.
func NewZipWriter(w io.Writer) excelize.ZipWriter {
	n := runtime.GOMAXPROCS(0)
	return &ZipWriter{zw: zip.NewWriter(w), workers: n, defl: newDeflaters(n)}
}

// Create starts the part name, finishing the one before.
func (z *ZipWriter) Create(name string) (io.Writer, error) {
	if err := z.finish(); err != nil {
		return nil, err
	}
	// As zip.Writer.Create: deflated, sizes and CRC in a data descriptor
	// after the data (known only then), zip 2.0.
	fh := &zip.FileHeader{Name: name, Method: zip.Deflate, Flags: 0x8, CreatorVersion: 20, ReaderVersion: 20}
	w, err := z.zw.CreateRaw(fh)
	if err != nil {
		return nil, fmt.Errorf("workbook: zip %s: %w", name, err)
	}
	z.part = &zipPart{fh: fh, w: w, workers: z.workers, free: &z.free, defl: z.defl}
	if len(z.splices) > 0 && strings.HasPrefix(name, "xl/worksheets/") {
		z.held = new(bytes.Buffer)
		return z.held, nil
	}
	return z.part, nil
}

// AddFS is not used by excelize's writer; it is part of its interface.
func (z *ZipWriter) AddFS(fsys fs.FS) error {
	if err := z.finish(); err != nil {
		return err
	}
	return z.zw.AddFS(fsys)
}

// Close finishes the last part and writes the central directory.
func (z *ZipWriter) Close() error {
	if err := z.finish(); err != nil {
		return err
	}
	if len(z.splices) > 0 {
		return fmt.Errorf("workbook: the rows of %d streamed sheet(s) found no placeholder row", len(z.splices))
	}
	return z.zw.Close()
}

func (z *ZipWriter) finish() error {
	if z.part == nil {
		return nil
	}
	p := z.part
	z.part = nil
	if held := z.held; held != nil {
		z.held = nil
		if err := z.splice(held.Bytes(), p); err != nil {
			return fmt.Errorf("workbook: zip %s: %w", p.fh.Name, err)
		}
	}
	if err := p.close(); err != nil {
		return fmt.Errorf("workbook: zip %s: %w", p.fh.Name, err)
	}
	return nil
}

// splice writes a held worksheet part to p, with the rows of the
// placeholder it holds, if any, in place of that row.
func (z *ZipWriter) splice(data []byte, p *zipPart) error {
	for token, rows := range z.splices {
		at := bytes.Index(data, []byte(token))
		if at < 0 {
			continue
		}
		start := bytes.LastIndex(data[:at], []byte("<row "))
		end := bytes.Index(data[at:], []byte("</row>"))
		if start < 0 || end < 0 || !bytes.HasPrefix(data[start:], []byte(`<row r="2"`)) {
			return fmt.Errorf("workbook: the placeholder of a streamed sheet's rows is not its row 2")
		}
		delete(z.splices, token)
		if _, err := p.Write(data[:start]); err != nil {
			return err
		}
		if err := rows.writeDeflated(p); err != nil {
			return err
		}
		_, err := p.Write(data[at+end+len("</row>"):])
		return err
	}
	_, err := p.Write(data)
	return err
}

// zipPart is one part being written: its bytes are cut into chunks, each
// deflated on its own goroutine; the compressed chunks are written out in
// order, at most workers+1 in flight.
type zipPart struct {
	fh       *zip.FileHeader
	w        io.Writer // the raw part in the archive
	crc      uint32    // IEEE, of the part's bytes so far
	workers  int
	buf      []byte // the chunk being filled
	dict     []byte // the last 32 KiB before buf
	pending  []chan zipResult
	free     *[][]byte // the writer's reusable chunk buffers
	defl     *deflaters
	raw, out uint64
	err      error
}

type zipResult struct {
	data, chunk []byte
	err         error
}

func (p *zipPart) Write(b []byte) (int, error) {
	if p.err != nil {
		return 0, p.err
	}
	n := len(b)
	p.crc = crc32.Update(p.crc, crc32.IEEETable, b)
	p.raw += uint64(n)
	for len(b) > 0 {
		if p.buf == nil {
			p.buf = takeChunk(p.free)
		}
		k := min(len(b), zipChunk-len(p.buf))
		p.buf = append(p.buf, b[:k]...)
		b = b[k:]
		if len(p.buf) == zipChunk {
			if err := p.dispatch(false); err != nil {
				return 0, err
			}
		}
	}
	return n, nil
}

// takeChunk is an empty chunk buffer: one from free (written out, see
// drain) or a new one.
func takeChunk(free *[][]byte) []byte {
	n := len(*free)
	if n == 0 {
		return make([]byte, 0, chunkCap)
	}
	buf := (*free)[n-1][:0]
	*free = (*free)[:n-1]
	return buf
}

// dispatch deflates the filled chunk on a goroutine; last ends the stream.
func (p *zipPart) dispatch(last bool) error {
	chunk, dict := p.buf, p.dict
	res := make(chan zipResult, 1)
	go func() {
		data, err := p.defl.deflate(chunk, dict, last)
		res <- zipResult{data, chunk, err}
	}()
	p.pending = append(p.pending, res)
	// The next chunk's dictionary is this one's tail: copied, since the
	// goroutine still reads chunk.
	tail := chunk[max(0, len(chunk)-32<<10):]
	p.dict = append(make([]byte, 0, len(tail)), tail...)
	p.buf = nil
	for len(p.pending) > p.workers {
		if err := p.drain(); err != nil {
			return err
		}
	}
	return nil
}

// drain writes the oldest chunk's compressed bytes once it is done.
func (p *zipPart) drain() error {
	r := <-p.pending[0]
	p.pending = p.pending[1:]
	if cap(r.chunk) == chunkCap {
		*p.free = append(*p.free, r.chunk)
	}
	if r.err == nil {
		_, r.err = p.w.Write(r.data)
	}
	if r.err != nil && p.err == nil {
		p.err = r.err
	}
	p.out += uint64(len(r.data))
	p.defl.recycle(r.data)
	return p.err
}

// deflaters are the flate writers and output buffers of one ZipWriter or
// Rows, reused from chunk to chunk (ResetDict) instead of made for each:
// a level-6 writer is about 1 MB of tables, allocated and cleared, and with
// the output buffers they were 290 MB of the week's 1.2 GB of garbage.
type deflaters struct {
	writers chan *flate.Writer
	outs    chan []byte
}

func newDeflaters(workers int) *deflaters {
	return &deflaters{writers: make(chan *flate.Writer, workers+2), outs: make(chan []byte, workers+2)}
}

// deflate compresses chunk with dict as the bytes before it, ending in a
// final block (last) or a sync flush.
func (d *deflaters) deflate(chunk, dict []byte, last bool) ([]byte, error) {
	var buf []byte
	select {
	case buf = <-d.outs:
	default:
		buf = make([]byte, 0, len(chunk)/4+64)
	}
	out := bytes.NewBuffer(buf)
	var fw *flate.Writer
	select {
	case fw = <-d.writers:
		fw.ResetDict(out, dict)
	default:
		var err error
		if fw, err = flate.NewWriterDict(out, zipLevel, dict); err != nil {
			return nil, err
		}
	}
	_, err := fw.Write(chunk)
	if err == nil {
		if last {
			err = fw.Close()
		} else {
			err = fw.Flush() // byte-aligned end, no final block
		}
	}
	if err == nil {
		fw.Reset(io.Discard) // drop out, which the caller owns now
		select {
		case d.writers <- fw:
		default:
		}
	}
	return out.Bytes(), err
}

// recycle takes back an output buffer once its bytes are written.
func (d *deflaters) recycle(out []byte) {
	select {
	case d.outs <- out[:0]:
	default:
	}
}

// chunk hands buf, filled by the caller, to be deflated as the part's next
// bytes (the part takes it; it comes back through the free list), after
// what Write has buffered.
func (p *zipPart) chunk(buf []byte) error {
	if p.err != nil {
		return p.err
	}
	if len(p.buf) > 0 {
		if err := p.dispatch(false); err != nil {
			return err
		}
	}
	p.crc = crc32.Update(p.crc, crc32.IEEETable, buf)
	p.raw += uint64(len(buf))
	p.buf = buf
	return p.dispatch(false)
}

// flush deflates what Write has buffered, ending it with a sync flush, and
// writes out every chunk in flight: the part's output so far is then a
// byte-aligned run of deflate blocks without a final one.
func (p *zipPart) flush() error {
	if p.err == nil && len(p.buf) > 0 {
		p.err = p.dispatch(false)
	}
	for len(p.pending) > 0 {
		p.drain()
	}
	return p.err
}

// deflated appends a segment deflated elsewhere (by a zipPart's flush: a
// byte-aligned run of blocks without a final one, that refers to nothing
// before it): its compressed bytes from r, raw bytes long with CRC crc.
func (p *zipPart) deflated(r io.Reader, crc uint32, raw, out uint64) error {
	if err := p.flush(); err != nil {
		return err
	}
	n, err := io.Copy(p.w, r)
	if err == nil && uint64(n) != out {
		err = fmt.Errorf("deflated segment of %d bytes, want %d", n, out)
	}
	if err != nil {
		p.err = err
		return err
	}
	p.crc = crc32Combine(p.crc, crc, raw)
	p.raw += raw
	p.out += out
	p.dict = nil // the segment's bytes are not at hand: the next chunk refers to none
	return nil
}

// crc32Combine is the IEEE CRC of a || b from a's CRC, b's CRC and b's
// length (zlib's crc32_combine): the CRC of a shifted by len(b) zero bytes
// (applying the CRC's linear operator for one zero bit, squared up to the
// bits of len(b)), then xor-ed with b's.
func crc32Combine(crcA, crcB uint32, lenB uint64) uint32 {
	if lenB == 0 {
		return crcA
	}
	var even, odd [32]uint32
	odd[0] = crc32.IEEE // the operator for one zero bit
	row := uint32(1)
	for n := 1; n < 32; n++ {
		odd[n] = row
		row <<= 1
	}
	gf2Square(&even, &odd) // two zero bits
	gf2Square(&odd, &even) // four
	for {
		gf2Square(&even, &odd) // one zero byte, then 2, 4 … bytes
		if lenB&1 != 0 {
			crcA = gf2Times(&even, crcA)
		}
		if lenB >>= 1; lenB == 0 {
			break
		}
		gf2Square(&odd, &even)
		if lenB&1 != 0 {
			crcA = gf2Times(&odd, crcA)
		}
		if lenB >>= 1; lenB == 0 {
			break
		}
	}
	return crcA ^ crcB
}

func gf2Times(mat *[32]uint32, vec uint32) uint32 {
	var sum uint32
	for i := 0; vec != 0; i, vec = i+1, vec>>1 {
		if vec&1 != 0 {
			sum ^= mat[i]
		}
	}
	return sum
}

func gf2Square(square, mat *[32]uint32) {
	for n := range mat {
		square[n] = gf2Times(mat, mat[n])
	}
}

// close compresses what is left, writes every chunk out and fills in the
// header's sizes and CRC for the data descriptor and central directory.
func (p *zipPart) close() error {
	if p.err == nil {
		p.err = p.dispatch(true) // an empty last chunk still ends the stream
	}
	for len(p.pending) > 0 {
		p.drain()
	}
	if p.err != nil {
		return p.err
	}
	p.fh.CRC32 = p.crc
	p.fh.CompressedSize64, p.fh.UncompressedSize64 = p.out, p.raw
	// Deprecated for readers, not for writers: archive/zip's central
	// directory takes the 32-bit fields of an entry that is not zip64, and
	// CreateRaw copied them before the sizes were known.
	//lint:ignore SA1019 the writer reads these fields for non-zip64 entries
	p.fh.CompressedSize = uint32(min(p.out, math.MaxUint32))
	//lint:ignore SA1019 as above
	p.fh.UncompressedSize = uint32(min(p.raw, math.MaxUint32))
	if p.out >= math.MaxUint32 || p.raw >= math.MaxUint32 {
		p.fh.ReaderVersion = 45 // zip64 sizes
	}
	return nil
}
