package dcgm

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/internal/gpu"
	"github.com/finops-oss/finops/internal/ingest"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// Format is the name dcgm-exporter scrape files have in finops.
const Format = "dcgm"

// Metric names dcgm-exporter exports (etc/default-counters.csv).
const (
	GREngineActive = "DCGM_FI_PROF_GR_ENGINE_ACTIVE" // ratio 0–1; the better utilization
	GPUUtil        = "DCGM_FI_DEV_GPU_UTIL"          // percent 0–100
	FBUsed         = "DCGM_FI_DEV_FB_USED"           // MiB
	FBFree         = "DCGM_FI_DEV_FB_FREE"
	FBReserved     = "DCGM_FI_DEV_FB_RESERVED"
	FBTotal        = "DCGM_FI_DEV_FB_TOTAL"
	PowerUsage     = "DCGM_FI_DEV_POWER_USAGE" // W
)

// Options tell the scrape parser what the file does not say.
type Options struct {
	Name string // file name for errors
	// Host of series without a Hostname label.
	Host string
	// ScrapeTime stamps samples that carry no timestamp (the usual case:
	// dcgm-exporter writes none). Zero = refuse such a file.
	ScrapeTime time.Time
	// Interval is how often the host logs scrapes (dcgm-exporter collects
	// every 30 s by default); it tells the minute grid how long a sample holds.
	Interval time.Duration
	Catalog  *gpu.Catalog
	// MaxBytes bounds the file (0: DefaultMaxBytes); the file is held in
	// memory while it is read.
	MaxBytes int64
	// UsedScrapeTime, when set, is called once when a sample took
	// ScrapeTime (it had no timestamp of its own), so that the caller can say
	// where that time came from.
	UsedScrapeTime func()
}

// DefaultMaxBytes bounds one scrape or backfill file. dcgm-exporter's answer
// for a host is kilobytes (every field of a 16-GPU node is about 200 KB); a
// backfill file of one day of 8 GPUs at 30 s, five series each, is about
// 23 MB (115,200 lines of some 200 bytes). The file is held in memory while
// it is read (an OpenMetrics file says so, and so its timestamps' unit, only
// at its end), so a larger one is refused: split it by day.
const DefaultMaxBytes = 64 << 20

// cappedReader reads at most max bytes and says when there was more.
type cappedReader struct {
	r        io.Reader
	max, n   int64
	overflow bool
}

func (c *cappedReader) Read(p []byte) (int, error) {
	if c.n >= c.max {
		var one [1]byte
		if n, _ := c.r.Read(one[:]); n > 0 {
			c.overflow = true
		}
		return 0, io.EOF
	}
	if int64(len(p)) > c.max-c.n {
		p = p[:c.max-c.n]
	}
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// Missing reports whether a DCGM value stands for "no data": NaN, infinities
// and the blank sentinels (≈ 9.2e18) older exporters leaked.
func Missing(v float64) bool {
	return math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) >= 9e18
}

// Metric names of utkuozdemir/nvidia_gpu_exporter, which serves nvidia-smi's
// --query-gpu fields as Prometheus metrics (docs/METRICS.md in its
// repository): ratios 0–1, bytes, watts, and the GPU's name, index and PCI
// bus in the labels of nvidia_smi_gpu_info. Its series carry a uuid label
// without the GPU- prefix (Identify adds it).
const (
	SMIUtil      = "nvidia_smi_utilization_gpu_ratio"    // ratio 0–1
	SMIMemUsed   = "nvidia_smi_memory_used_bytes"        // bytes
	SMIMemTotal  = "nvidia_smi_memory_total_bytes"       // bytes
	SMIPowerAvg  = "nvidia_smi_power_draw_average_watts" // W, drivers 535+
	SMIPowerInst = "nvidia_smi_power_draw_instant_watts" // W, drivers 535+
	SMIPower     = "nvidia_smi_power_draw_watts"         // W
	SMIInfo      = "nvidia_smi_gpu_info"                 // 1, labelled uuid, name, index, pci_bus_id, …
)

// ExporterFormat is the format of nvidia_gpu_exporter scrapes in finops
// (the name its Prometheus source has in the config, too).
const ExporterFormat = "nvidia_gpu_exporter"

const mib = 1 << 20

// chunkBytes is how much exposition text one run of the text parser holds:
// a backfill file of a day is tens of MiB, and the parser builds a
// structure per sample, so it reads the file a few MiB at a time.
const chunkBytes = 4 << 20

type reading struct {
	gpu                                   GPU
	at                                    time.Time
	prof, util, used, free, reserved, tot *float64
	smiUtil                               *float64
	// power of each metric, best first: DCGM's POWER_USAGE, then
	// nvidia-smi's power.draw.average, .instant, power.draw (send says why).
	power [4]*float64
}

// readingKey is one GPU at one time: a scrape holds one reading per GPU, a
// backfill file one per GPU and timestamp.
type readingKey struct {
	gpu string
	ms  int64
}

// Parse reads one scrape file (Prometheus text exposition as dcgm-exporter or
// nvidia_gpu_exporter serve it on /metrics, or OpenMetrics as promtool
// backfills from) and sends one sample per GPU or MIG instance and timestamp
// to sink. Utilization is DCGM_FI_PROF_GR_ENGINE_ACTIVE × 100 where the GPU
// has it, else DCGM_FI_DEV_GPU_UTIL, else nvidia_smi_utilization_gpu_ratio ×
// 100 (docs/METRICS.md says why); memory is FB_USED (MiB) with the total from
// FB_TOTAL or FREE + USED + RESERVED, or nvidia_smi_memory_used/total_bytes
// in MiB; power is POWER_USAGE or nvidia-smi's power draw. Series without a
// GPU identity (the label-less tail of some captures, the exporter's own
// metrics) are skipped. Sample timestamps are read as timestamps.go says;
// samples without one get opt.ScrapeTime.
func Parse(ctx context.Context, r io.Reader, opt Options, sink ingest.Sink) (*ingest.Summary, error) {
	name := opt.Name
	if name == "" {
		name = "<scrape>"
	}
	capped := &cappedReader{r: ingest.ContextReader(ctx, r), max: cmp.Or(opt.MaxBytes, DefaultMaxBytes)}
	data, err := io.ReadAll(capped)
	if cerr := ctx.Err(); cerr != nil {
		return nil, cerr
	}
	if capped.overflow {
		return nil, &ingest.ParseError{File: name, Msg: fmt.Sprintf("larger than %d MiB: not one scrape (one is kilobytes) "+
			"nor a backfill file finops reads whole; save one scrape per file, or split the backfill file by day", capped.max>>20)}
	}
	if err != nil {
		return nil, &ingest.ParseError{File: name, Msg: "read: " + err.Error()}
	}
	// A UTF-8 BOM (a scrape saved by an editor on Windows) is no part of
	// the exposition.
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	info, err := decideUnit(name, data)
	if err != nil {
		return nil, err
	}
	c := &collector{name: name, opt: opt, byKey: map[readingKey]*reading{}}
	// The text parser reads a chunk of whole lines at a time; line numbers
	// in its errors are the chunk's, so they are moved to the file's.
	var chunk []byte
	chunkLine := 1
	flush := func(next int) error {
		if len(chunk) > 0 {
			if err := c.parseChunk(chunk, chunkLine); err != nil {
				return err
			}
		}
		chunk, chunkLine = chunk[:0], next
		return ctx.Err()
	}
	err = eachLine(data, func(l expoLine) error {
		if len(chunk) >= chunkBytes {
			if err := flush(l.no); err != nil {
				return err
			}
		}
		chunk = appendLine(chunk, l, info.unit)
		return nil
	})
	if err == nil {
		err = flush(0)
	}
	if err != nil {
		return nil, err
	}
	return c.send(ctx, sink)
}

// collector gathers the readings of a scrape's families.
type collector struct {
	name  string
	opt   Options
	byKey map[readingKey]*reading
	// Which exporter's families the file holds.
	dcgm, smi bool
	// usedScrapeTime: a sample had no timestamp of its own.
	usedScrapeTime bool
}

func (c *collector) parseChunk(chunk []byte, firstLine int) error {
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(bytes.NewReader(chunk))
	if err != nil {
		line, msg := 0, err.Error()
		var pe expfmt.ParseError
		if errors.As(err, &pe) {
			line, msg = firstLine+pe.Line-1, pe.Msg
		}
		return &ingest.ParseError{File: c.name, Line: line, Msg: "not a Prometheus text exposition or OpenMetrics file " +
			"(a dcgm-exporter or nvidia_gpu_exporter scrape): " + msg}
	}
	for n := range fams {
		switch {
		case strings.HasPrefix(n, "DCGM_"):
			c.dcgm = true
		case strings.HasPrefix(n, "nvidia_smi_"):
			c.smi = true
		}
	}
	taken := make(map[string]bool, len(known))
	for _, t := range known {
		if err := c.take(fams[t.metric], t.metric, t.dst, t.scale); err != nil {
			return err
		}
		taken[t.metric] = true
	}
	// Any other family still tells which GPUs the scrape saw, and
	// nvidia_smi_gpu_info their names; the families read above are not
	// walked again.
	names := make([]string, 0, len(fams))
	for n := range fams {
		if !taken[n] {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		if err := c.take(fams[n], n, func(r *reading) **float64 { return new(*float64) }, 1); err != nil {
			return err
		}
	}
	return nil
}

// known are the families read for their values, each into its slot of a
// reading, scaled to percent, MiB or W.
var known = []struct {
	metric string
	dst    func(*reading) **float64
	scale  float64
}{
	{GREngineActive, func(r *reading) **float64 { return &r.prof }, 100},
	{GPUUtil, func(r *reading) **float64 { return &r.util }, 1},
	{SMIUtil, func(r *reading) **float64 { return &r.smiUtil }, 100},
	{FBUsed, func(r *reading) **float64 { return &r.used }, 1},
	{FBFree, func(r *reading) **float64 { return &r.free }, 1},
	{FBReserved, func(r *reading) **float64 { return &r.reserved }, 1},
	{FBTotal, func(r *reading) **float64 { return &r.tot }, 1},
	{SMIMemUsed, func(r *reading) **float64 { return &r.used }, 1.0 / mib},
	{SMIMemTotal, func(r *reading) **float64 { return &r.tot }, 1.0 / mib},
	{PowerUsage, func(r *reading) **float64 { return &r.power[0] }, 1},
	{SMIPowerAvg, func(r *reading) **float64 { return &r.power[1] }, 1},
	{SMIPowerInst, func(r *reading) **float64 { return &r.power[2] }, 1},
	{SMIPower, func(r *reading) **float64 { return &r.power[3] }, 1},
}

// utilMetric reports whether a family is a utilization, whose missing value
// is kept for the sample's verdict.
func utilMetric(m string) bool { return m == GREngineActive || m == GPUUtil || m == SMIUtil }

func (c *collector) take(f *dto.MetricFamily, metric string, dst func(*reading) **float64, scale float64) error {
	if f == nil {
		return nil
	}
	for _, m := range f.GetMetric() {
		labels := make(map[string]string, len(m.GetLabel()))
		for _, lp := range m.GetLabel() {
			labels[lp.GetName()] = lp.GetValue()
		}
		g, ok := Identify(labels)
		if !ok {
			continue
		}
		if g.Host == "" {
			g.Host = c.opt.Host
		}
		v, ok := value(m)
		// A missing utilization (NaN, a blank sentinel) is kept for
		// the sample's verdict in send; other missing values are no data.
		if !ok || Missing(v) && !utilMetric(metric) {
			continue
		}
		at := c.opt.ScrapeTime
		if m.TimestampMs != nil {
			at = time.UnixMilli(m.GetTimestampMs())
		} else {
			c.usedScrapeTime = true
		}
		if at.IsZero() {
			return &ingest.ParseError{File: c.name, Field: metric,
				Msg: "the scrape has no timestamps and no scrape time was given: give finops ingest --at TIME (RFC 3339), " +
					"or put the time in the file name (gpu-a-20261102T080000Z.prom)"}
		}
		k := readingKey{g.Key(), at.UnixMilli()}
		rd := c.byKey[k]
		if rd == nil {
			rd = &reading{gpu: g, at: at.UTC()}
			c.byKey[k] = rd
		} else {
			// nvidia_smi_gpu_info names the GPU its value series leave
			// unnamed (they carry only uuid).
			rd.gpu.Name = cmp.Or(rd.gpu.Name, g.Name)
			if rd.gpu.Index < 0 {
				rd.gpu.Index = g.Index
			}
		}
		v *= scale
		*dst(rd) = &v
	}
	return nil
}

// sortedKeys are the readings' keys by time, then GPU: the order send
// delivers them in, whatever the file's order.
func (c *collector) sortedKeys() []readingKey {
	keys := make([]readingKey, 0, len(c.byKey))
	for k := range c.byKey {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		return a.ms < b.ms || a.ms == b.ms && a.gpu < b.gpu
	})
	return keys
}

// bestPower is the reading's power and the field it came from: DCGM's
// POWER_USAGE; of nvidia-smi's, power.draw.average (drivers 535+: the
// board's mean over the last second) before power.draw.instant (one
// reading, noisier under a bursty load) before power.draw (whichever of
// the two the driver maps it to).
func (rd *reading) bestPower() (*float64, string) {
	for i, p := range rd.power {
		if p != nil {
			return p, [...]string{PowerUsage, SMIPowerAvg, SMIPowerInst, SMIPower}[i]
		}
	}
	return nil, ""
}

// bestUtil is the first valid of GR_ENGINE_ACTIVE, GPU_UTIL and
// nvidia-smi's utilization.gpu (a GPU without profiling may leak a blank
// PROF value; docs/METRICS.md says why this order). A missing value (NaN,
// a blank sentinel: the exporter had none) is no utilization, as in a
// Prometheus answer; invalid says a number was out of range, which with
// no valid one beside it makes the reading no sample, dropped and
// counted, as from every source (finops.ValidUtil).
func (rd *reading) bestUtil() (util *float64, invalid bool) {
	for _, u := range []*float64{rd.prof, rd.util, rd.smiUtil} {
		if u == nil || Missing(*u) {
			continue
		}
		if finops.ValidUtil(*u) {
			return u, invalid
		}
		invalid = true
	}
	return nil, invalid
}

// memTotal is the GPU's memory: the total given, or free + used (+
// reserved) when the exporter gives the parts.
func (rd *reading) memTotal() *float64 {
	switch {
	case rd.tot != nil:
		return rd.tot
	case rd.free != nil && rd.used != nil:
		t := *rd.free + *rd.used
		if rd.reserved != nil {
			t += *rd.reserved
		}
		return &t
	}
	return nil
}

// send delivers the readings, by time and GPU.
func (c *collector) send(ctx context.Context, sink ingest.Sink) (*ingest.Summary, error) {
	format := Format
	if c.smi && !c.dcgm {
		format = ExporterFormat
	}
	sum := &ingest.Summary{Format: format, Kind: ingest.KindUtilization, SampleInterval: c.opt.Interval}
	if len(c.byKey) == 0 {
		return sum, &ingest.ParseError{File: c.name,
			Msg: "no GPU series (none has a UUID or uuid, or a gpu index and Hostname): is this a dcgm-exporter or nvidia_gpu_exporter scrape?"}
	}
	keys := c.sortedKeys()
	if d := medianSpacing(keys); d > 0 {
		// A backfill file says how often it was sampled.
		sum.SampleInterval = d
	}
	if c.usedScrapeTime && c.opt.UsedScrapeTime != nil {
		c.opt.UsedScrapeTime()
	}
	line := 0
	power := ingest.NewPowerCheck()
	for _, k := range keys {
		if err := ctx.Err(); err != nil {
			return sum, err
		}
		rd := c.byKey[k]
		line++
		// A vGPU profile or MIG instance is its parent model and its
		// slice, never the whole card (ingest.GPUModel).
		model, slice := ingest.GPUModel(c.opt.Catalog, rd.gpu.Name)
		s := &finops.GPUSample{Line: line, Host: rd.gpu.Host, Index: rd.gpu.Index, UUID: rd.gpu.UUID,
			Model: model, Slice: slice, Time: rd.at, MemUsed: rd.used}
		var powerField string
		s.PowerWatt, powerField = rd.bestPower()
		// A reading above the model's plausible bound (ingest.PowerCheck)
		// is a bad row: refused, counted and named, the rest of the scrape
		// read.
		if s.PowerWatt != nil {
			if err := power.Check(s.Model, *s.PowerWatt); err != nil {
				sum.Rejected = append(sum.Rejected, &ingest.ParseError{File: c.name,
					Field: powerField + "{" + k.gpu + "}", Msg: "at " + rd.at.Format(time.RFC3339) + ": " + err.Error()})
				line--
				continue
			}
		}
		var invalid bool
		s.Util, invalid = rd.bestUtil()
		if s.Util == nil && invalid {
			sum.SamplesDropped++
			continue
		}
		if err := ingest.CheckMemory(rd.used, rd.tot); err != nil {
			field := FBUsed
			if format == ExporterFormat {
				field = SMIMemUsed
			}
			return sum, &ingest.ParseError{File: c.name, Field: field + "{" + k.gpu + "}", Msg: err.Error() + " (the total)"}
		}
		s.MemTotal = rd.memTotal()
		if format == ExporterFormat && s.Util == nil && s.MemUsed == nil && s.PowerWatt == nil {
			// A GPU the exporter names (nvidia_smi_gpu_info) but measures
			// nothing of is no telemetry: an empty GPU would count as
			// monitored with no data.
			sum.Skipped++
			line--
			continue
		}
		// A label is text from the exporter's host: the same rule for
		// control and invisible characters as a log's columns.
		if perr := ingest.CheckSample(c.name, s, ingest.ExporterLabel); perr != nil {
			return sum, perr
		}
		if err := sink.Sample(s); err != nil {
			return sum, fmt.Errorf("%s: %w", c.name, err)
		}
		sum.Rows++
		sum.Extend(s.Time, s.Time)
	}
	if sum.Rows == 0 && sum.Skipped > 0 {
		return sum, &ingest.ParseError{File: c.name, Field: SMIUtil, Msg: fmt.Sprintf("an nvidia_gpu_exporter scrape with no "+
			"utilization, memory or power for any of its %d GPU readings (no %s, %s or %s): nothing to import; "+
			"run the exporter with its default --query-field-names (AUTO)", sum.Skipped, SMIUtil, SMIMemUsed, SMIPower)}
	}
	return sum, nil
}

// medianSpacing is the median time between consecutive readings of one GPU,
// 0 when no GPU has two (a scrape).
func medianSpacing(keys []readingKey) time.Duration {
	last := map[string]int64{}
	var gaps []int64
	for _, k := range keys {
		if prev, ok := last[k.gpu]; ok && k.ms > prev {
			gaps = append(gaps, k.ms-prev)
		}
		last[k.gpu] = k.ms
	}
	if len(gaps) == 0 {
		return 0
	}
	slices.Sort(gaps)
	return time.Duration(gaps[len(gaps)/2]) * time.Millisecond
}

// value is a gauge's, counter's or untyped metric's value.
func value(m *dto.Metric) (float64, bool) {
	switch {
	case m.Gauge != nil:
		return m.GetGauge().GetValue(), true
	case m.Counter != nil:
		return m.GetCounter().GetValue(), true
	case m.Untyped != nil:
		return m.GetUntyped().GetValue(), true
	}
	return 0, false
}
