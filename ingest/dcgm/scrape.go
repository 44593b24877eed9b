package dcgm

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/gpu"
	"github.com/finops-oss/finops/ingest"
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
	// MaxBytes bounds the file (0: DefaultMaxBytes); the text parser holds a
	// whole scrape in memory.
	MaxBytes int64
}

// DefaultMaxBytes bounds one scrape file. dcgm-exporter's answer for a host
// is kilobytes (every field of a 16-GPU node is about 200 KB); a file far
// larger is not one scrape, and parsing it whole would take its size several
// times over in memory.
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

type reading struct {
	gpu                                   GPU
	at                                    time.Time
	prof, util, used, free, reserved, tot *float64
	power                                 *float64
}

// Parse reads one scrape file (Prometheus text exposition, as dcgm-exporter
// serves it on :9400/metrics) and sends one sample per GPU or MIG instance to
// sink. Utilization is DCGM_FI_PROF_GR_ENGINE_ACTIVE × 100 where the GPU has
// it, else DCGM_FI_DEV_GPU_UTIL; memory is FB_USED (MiB) with the total from
// FB_TOTAL or FREE + USED + RESERVED; power is POWER_USAGE. Series without a
// GPU identity (the label-less tail of some captures) are skipped.
func Parse(ctx context.Context, r io.Reader, opt Options, sink ingest.Sink) (*ingest.Summary, error) {
	name := opt.Name
	if name == "" {
		name = "<scrape>"
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	capped := &cappedReader{r: ingest.ContextReader(ctx, r), max: cmp.Or(opt.MaxBytes, DefaultMaxBytes)}
	// A scrape saved without its final newline (common when logged with
	// $(curl …)) is otherwise "unexpected end of input stream".
	fams, err := p.TextToMetricFamilies(io.MultiReader(capped, strings.NewReader("\n")))
	if cerr := ctx.Err(); cerr != nil {
		return nil, cerr
	}
	if capped.overflow {
		return nil, &ingest.ParseError{File: name, Msg: fmt.Sprintf("larger than %d MiB: not one dcgm-exporter scrape "+
			"(one is kilobytes); save one scrape per file", capped.max>>20)}
	}
	if err != nil {
		return nil, &ingest.ParseError{File: name, Msg: "not a Prometheus text exposition (dcgm-exporter scrape): " + err.Error()}
	}
	byKey := map[string]*reading{}
	take := func(metric string, dst func(*reading) **float64, scale float64) error {
		f := fams[metric]
		if f == nil {
			return nil
		}
		for _, m := range f.GetMetric() {
			labels := map[string]string{}
			for _, lp := range m.GetLabel() {
				labels[lp.GetName()] = lp.GetValue()
			}
			g, ok := Identify(labels)
			if !ok {
				continue
			}
			if g.Host == "" {
				g.Host = opt.Host
			}
			v, ok := value(m)
			// A missing utilization (NaN, a blank sentinel) is kept for
			// the sample's verdict below; other missing values are no data.
			if !ok || Missing(v) && metric != GREngineActive && metric != GPUUtil {
				continue
			}
			at := opt.ScrapeTime
			if m.TimestampMs != nil {
				at = time.UnixMilli(m.GetTimestampMs())
			}
			if at.IsZero() {
				return &ingest.ParseError{File: name, Field: metric,
					Msg: "the scrape has no timestamps and no scrape time was given; finops ingest uses the file's modification time"}
			}
			k := g.Key()
			rd := byKey[k]
			if rd == nil {
				rd = &reading{gpu: g, at: at.UTC()}
				byKey[k] = rd
			}
			v *= scale
			*dst(rd) = &v
		}
		return nil
	}
	known := []struct {
		metric string
		dst    func(*reading) **float64
		scale  float64
	}{
		{GREngineActive, func(r *reading) **float64 { return &r.prof }, 100},
		{GPUUtil, func(r *reading) **float64 { return &r.util }, 1},
		{FBUsed, func(r *reading) **float64 { return &r.used }, 1},
		{FBFree, func(r *reading) **float64 { return &r.free }, 1},
		{FBReserved, func(r *reading) **float64 { return &r.reserved }, 1},
		{FBTotal, func(r *reading) **float64 { return &r.tot }, 1},
		{PowerUsage, func(r *reading) **float64 { return &r.power }, 1},
	}
	taken := make(map[string]bool, len(known))
	for _, t := range known {
		if err := take(t.metric, t.dst, t.scale); err != nil {
			return nil, err
		}
		taken[t.metric] = true
	}
	// Any other DCGM family still tells which GPUs the scrape saw; the
	// families read above are not walked again.
	names := make([]string, 0, len(fams))
	for n := range fams {
		if !taken[n] {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		if err := take(n, func(r *reading) **float64 { return new(*float64) }, 1); err != nil {
			return nil, err
		}
	}
	if len(byKey) == 0 {
		return &ingest.Summary{Format: Format, Kind: ingest.KindUtilization}, &ingest.ParseError{File: name,
			Msg: "no GPU series (none has a UUID, or a gpu index and Hostname): is this a dcgm-exporter scrape?"}
	}
	keys := make([]string, 0, len(byKey))
	for k := range byKey {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	sum := &ingest.Summary{Format: Format, Kind: ingest.KindUtilization, SampleInterval: opt.Interval}
	for i, k := range keys {
		if err := ctx.Err(); err != nil {
			return sum, err
		}
		rd := byKey[k]
		s := &finops.GPUSample{Line: i + 1, Host: rd.gpu.Host, Index: rd.gpu.Index, UUID: rd.gpu.UUID,
			Model: opt.Catalog.Model(rd.gpu.Name), Time: rd.at, MemUsed: rd.used, PowerWatt: rd.power}
		// The first valid of GR_ENGINE_ACTIVE and GPU_UTIL (a GPU without
		// profiling may leak a blank PROF value). A missing value (NaN, a
		// blank sentinel: the exporter had none) is no utilization, as in a
		// Prometheus answer; a number out of range with no valid one beside
		// it makes the reading no sample, dropped and counted, as from every
		// source (finops.ValidUtil).
		invalid := false
		for _, u := range []*float64{rd.prof, rd.util} {
			if u == nil || Missing(*u) {
				continue
			}
			if finops.ValidUtil(*u) {
				s.Util = u
				break
			}
			invalid = true
		}
		if s.Util == nil && invalid {
			sum.SamplesDropped++
			continue
		}
		if err := ingest.CheckMemory(rd.used, rd.tot); err != nil {
			return sum, &ingest.ParseError{File: name, Field: FBUsed + "{" + k + "}", Msg: err.Error() + " (" + FBTotal + ")"}
		}
		switch {
		case rd.tot != nil:
			s.MemTotal = rd.tot
		case rd.free != nil && rd.used != nil:
			t := *rd.free + *rd.used
			if rd.reserved != nil {
				t += *rd.reserved
			}
			s.MemTotal = &t
		}
		if err := sink.Sample(s); err != nil {
			return sum, fmt.Errorf("%s: %w", name, err)
		}
		sum.Rows++
		sum.Extend(s.Time, s.Time)
	}
	return sum, nil
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
