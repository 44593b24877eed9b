package ingest

import (
	"strconv"
	"strings"
	"time"

	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/internal/gpu"
)

const smiTimeExample = "a timestamp like 2026/07/14 08:12:53.353"

// defaultSMIColumns is the column order finops documents for
// --format=csv,noheader,nounits logs, which carry no header to say it.
func defaultSMIColumns() []string {
	return []string{"timestamp", "name", "pci.bus_id", "index", "uuid", "utilization.gpu",
		"utilization.memory", "memory.total", "memory.used", "power.draw"}
}

// smiParser reads nvidia-smi --query-gpu CSV logs. Their timestamps are host
// local time without an offset, so the host's zone comes from Options.
type smiParser struct {
	file   string
	hdr    []string
	cat    *gpu.Catalog
	loc    *time.Location
	host   string
	in     *interner
	models memo[smiModel] // GPU name → model
	power  *PowerCheck    // the plausible bound of each model's power readings

	lastTS   string    // the previous row's timestamp text and its time
	clock    logClock  // resolves local wall clocks; clock.last is the previous row's time
	lastText [4]string // the previous text and value of each measure
	lastVal  [4]float64

	ts, name, index, uuid, bus, util, memUsed, memTotal, hostname int
	// powers are the power columns the log has, best first (newSMIParser).
	powers []int

	// header is the file's header as read (nil for a headerless log): a
	// row equal to it is the header again, skipped and counted in repeats.
	header      []string
	repeats     int
	firstRepeat int
	// single: the header names no uuid, index or pci.bus_id; every row is
	// GPU 0 of the host given (oneGPU).
	single bool
}

func newSMIParser(idx *columns, opt Options) *smiParser {
	hdr, at := idx.hdr, idx.col
	host := strings.TrimSpace(opt.Host)
	if host == "" {
		// The caller warns about logs with no host; "unknown" keeps them
		// apart from logs that do name one.
		host = "unknown"
	}
	return &smiParser{
		file: opt.Name, hdr: hdr, cat: opt.Catalog, loc: opt.Location, host: host, clock: logClock{loc: opt.Location},
		in: newInterner(), models: memo[smiModel]{}, power: NewPowerCheck(),
		ts: at("timestamp"), name: at("name"), index: at("index"), uuid: at("uuid"), bus: at("pci.bus_id"),
		util: at("utilization.gpu"), memUsed: at("memory.used"), memTotal: at("memory.total"),
		hostname: at("hostname"), powers: powerColumns(idx),
	}
}

// powerColumns are the columns of a log's power fields, best first.
// Drivers 535 and later have power.draw.average (the board's mean over the
// last second) and power.draw.instant (one reading) besides power.draw,
// which is one of the two depending on the GPU. A log sampled every 30 s or
// so is best served by the mean: an instant reading of a bursty load swings
// by a hundred watts from one sample to the next (the H100 captures: 631.95
// W average beside 625.68 W instant). So average first, then instant, then
// power.draw; per row, as a GPU without the average (GA100, older boards)
// reports [N/A] there.
func powerColumns(idx *columns) []int {
	var out []int
	for _, f := range []string{"power.draw.average", "power.draw.instant", "power.draw"} {
		if c := idx.col(f); c >= 0 {
			out = append(out, c)
		}
	}
	return out
}

// powerColumn is the column a row's power is read from: the first of the
// power columns with a value, else the first (whose null says no power).
func (p *smiParser) powerColumn(rec []string) int {
	for _, c := range p.powers {
		if !isNullNumber(cell(rec, c)) {
			return c
		}
	}
	if len(p.powers) > 0 {
		return p.powers[0]
	}
	return -1
}

func (p *smiParser) parse(rec []string, line int) (parsed, *ParseError) {
	if p.repeatsHeader(rec) {
		if p.repeats == 0 {
			p.firstRepeat = line
		}
		p.repeats++
		return parsed{}, nil
	}
	t, perr := p.rowTime(rec, line)
	if perr != nil {
		return parsed{}, perr
	}
	// One allocation for the sample and its four measures.
	x := &smiSample{GPUSample: finops.GPUSample{Line: line, Time: t, Index: -1, Host: p.host}}
	s := &x.GPUSample
	if p.single {
		s.Index = 0
	}
	if perr := p.identify(rec, line, s); perr != nil {
		return parsed{}, perr
	}
	if v := cell(rec, p.name); !isNullNumber(v) {
		s.Model, s.Slice = p.model(v)
	}
	if dropped, perr := p.measures(rec, line, x); perr != nil || dropped {
		return parsed{dropped: dropped}, perr
	}
	if err := CheckMemory(s.MemUsed, s.MemTotal); err != nil {
		return parsed{}, &ParseError{File: p.file, Line: line, Field: columnName(p.hdr, p.memUsed), Msg: err.Error()}
	}
	if s.PowerWatt != nil {
		// Per row, not per text: the same text may be a plausible reading
		// of one GPU and not of a smaller one in the same log.
		if err := p.power.Check(s.Model, *s.PowerWatt); err != nil {
			return parsed{}, &ParseError{File: p.file, Line: line, Field: columnName(p.hdr, p.powerColumn(rec)), Msg: err.Error()}
		}
	}
	return parsed{sample: s}, nil
}

// rowTime reads the row's time. One invocation logs every GPU with the
// same timestamp: it is parsed once.
func (p *smiParser) rowTime(rec []string, line int) (time.Time, *ParseError) {
	v := cell(rec, p.ts)
	if p.single && v != "" && v == p.lastTS {
		// nvidia-smi stamps every GPU of one call with the same time.
		return time.Time{}, &ParseError{File: p.file, Line: line, Field: columnName(p.hdr, p.ts),
			Msg: "the same time as the row before: the log holds more than one GPU and no column tells them apart; " + smiNoIDFix}
	}
	t := p.clock.last
	if v != p.lastTS || v == "" {
		pt, local, err := parseTimeIn(v, p.loc)
		if err != nil {
			return time.Time{}, fieldErr(p.file, line, columnName(p.hdr, p.ts), timeExpect(err, smiTimeExample, p.loc), v)
		}
		// The log runs forward: the hour a local clock falls back is read
		// as the first pass until the log has gone back (wallclock.go).
		t = p.clock.resolve(pt, local)
		p.lastTS = strings.Clone(v)
	}
	return t, nil
}

// identify reads which GPU the row is: its host, index, uuid, or failing
// both, its PCI bus id.
func (p *smiParser) identify(rec []string, line int, s *finops.GPUSample) *ParseError {
	if h := cell(rec, p.hostname); !isNullNumber(h) {
		s.Host = p.in.get(h)
	}
	if v := cell(rec, p.index); !isNullNumber(v) {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return fieldErr(p.file, line, columnName(p.hdr, p.index), "a GPU index like 0", v)
		}
		s.Index = n
	}
	if v := cell(rec, p.uuid); !isNullNumber(v) {
		s.UUID = p.in.get(v)
	}
	if s.UUID == "" && s.Index < 0 {
		// Neither uuid nor index: the GPU is its host's PCI bus id.
		if v := cell(rec, p.bus); !isNullNumber(v) {
			s.BusID = p.in.get(v)
		} else {
			// The first identity column the log has: never -1, which
			// would name "column 0".
			col := p.uuid
			for _, c := range []int{p.index, p.bus} {
				if col < 0 {
					col = c
				}
			}
			return fieldErr(p.file, line, columnName(p.hdr, col),
				"a GPU uuid, index or pci.bus_id to tell the GPUs apart; log uuid", cell(rec, col))
		}
	}
	return nil
}

// measures reads the utilization, memory and power into x; dropped when
// the utilization is no sample.
func (p *smiParser) measures(rec []string, line int, x *smiSample) (dropped bool, _ *ParseError) {
	s := &x.GPUSample
	for i, m := range [...]struct {
		dst  **float64
		col  int
		what string
		util bool // a percentage: out of 0–100 is no sample, not a bad field
	}{
		{&s.Util, p.util, "a utilization like 87 %", true},
		{&s.MemUsed, p.memUsed, "memory in MiB like 19818 MiB", false},
		{&s.MemTotal, p.memTotal, "memory in MiB like 81559 MiB", false},
		{&s.PowerWatt, p.powerColumn(rec), "power in watts like 631.95 W", false},
	} {
		v := cell(rec, m.col)
		if isNullNumber(v) {
			continue
		}
		// Memory total, and often memory used, repeat row after row.
		f := p.lastVal[i]
		if v != p.lastText[i] {
			var err error
			if m.util {
				// A number out of 0–100 % (NaN too) is no sample, as from
				// every other source; text that is no number is a bad field.
				if f, err = parseUtil(v); err == nil && !finops.ValidUtil(f) {
					return true, nil
				}
			} else {
				f, err = parseMeasure(v)
			}
			if err != nil || f < 0 {
				return false, fieldErr(p.file, line, columnName(p.hdr, m.col), m.what+" (or [N/A])", v)
			}
			p.lastText[i], p.lastVal[i] = strings.Clone(v), f
		}
		x.vals[i] = f
		*m.dst = &x.vals[i]
	}
	return false, nil
}

// model canonicalises the driver's GPU name when finops knows the chip and
// keeps the name otherwise, so unknown GPUs stay distinguishable; a vGPU
// profile ("GRID A100-10C", the name a vGPU guest's nvidia-smi prints) is
// its parent model and its slice (GPUModel). A log repeats a handful of
// names millions of times, so answers are cached.
func (p *smiParser) model(name string) (string, *finops.GPUSlice) {
	m, _ := p.models.of(name, always(func(name string) smiModel {
		m, sl := GPUModel(p.cat, name)
		if m == name {
			// The name itself (unknown, or a slice of no known parent):
			// name is a cell of the reader's row, which it would pin.
			m = strings.Clone(name)
		}
		return smiModel{m, sl}
	}))
	return m.model, m.slice
}

// pipelined: a log's rows are read and checked ahead on a goroutine of
// their own (runPiped); a log of a million rows spends a third of its time
// there. The parser has no width check of its own, so nothing of it runs
// on that goroutine.
func (*smiParser) pipelined() {}

// smiModel is what a GPU name is recorded as.
type smiModel struct {
	model string
	slice *finops.GPUSlice
}

// smiSample is a sample with room for its measures.
type smiSample struct {
	finops.GPUSample
	vals [4]float64
}
