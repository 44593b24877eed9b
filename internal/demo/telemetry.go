package demo

import (
	"bufio"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// NvidiaSMIHeader is the header nvidia-smi --query-gpu=... --format=csv prints
// for the ten fields finops reads.
const NvidiaSMIHeader = "timestamp, name, pci.bus_id, index, uuid, utilization.gpu [%], utilization.memory [%], memory.total [MiB], memory.used [MiB], power.draw [W]"

// GPU is one GPU of a demo host as nvidia-smi names it.
type GPU struct {
	Name     string // nvidia-smi name, e.g. "NVIDIA A100-SXM4-80GB"
	BusID    string
	Index    int
	UUID     string
	MemTotal int     // MiB
	IdleW    float64 // power at 0 %
	MaxW     float64 // power near 100 %
}

// GPUs of the demo hosts (fixed identities, so configs and tests can name them).
var (
	A100GPUs = []GPU{
		{"NVIDIA A100-SXM4-80GB", "00000000:07:00.0", 0, "GPU-a1000000-0000-0000-0000-000000000000", 81920, 58, 400},
		{"NVIDIA A100-SXM4-80GB", "00000000:0F:00.0", 1, "GPU-a1000000-0000-0000-0000-000000000001", 81920, 61, 400},
	}
	RTX4090GPUs = []GPU{{"NVIDIA GeForce RTX 4090", "00000000:01:00.0", 0, "GPU-40900000-0000-0000-0000-000000000000", 24564, 21, 450}}
	L40SGPUs    = []GPU{{"NVIDIA L40S", "00000000:41:00.0", 0, "GPU-ada40500-0000-0000-0000-000000000000", 46068, 34, 350}}
	A10GGPUs    = []GPU{{"NVIDIA A10G", "00000000:00:1E.0", 0, "GPU-a10a1000-0000-0000-0000-000000000000", 23028, 25, 300}}
)

// load is what a GPU is doing during a minute.
type load struct {
	lo, hi  float64 // utilization band, %
	mem     int     // memory used, MiB (± a little noise when > 100)
	memUtil float64 // utilization.memory ≈ memUtil × utilization.gpu
}

var idle = load{lo: 0, hi: 3, mem: 4}

type host struct {
	name  string
	loc   *time.Location
	gpus  []GPU
	phase time.Duration // second within the minute nvidia-smi fires at
	// at says what the host's GPUs do at local time t; false = switched off (no samples).
	at func(t time.Time) (load, bool)
}

func (g *gen) hosts() []host {
	day := func(t time.Time) time.Duration { // time since local midnight
		return time.Duration(t.Hour())*time.Hour + time.Duration(t.Minute())*time.Minute
	}
	return []host{
		{name: HostA100, loc: g.loc, gpus: A100GPUs, phase: 12 * time.Second,
			at: func(t time.Time) (load, bool) {
				for i, run := range g.runs {
					if !run.contains(t) {
						continue
					}
					mem := 61000 + 1700*i
					in := t.Sub(run.start)
					switch {
					case in < 15*time.Minute: // loading the model and tokenizing
						return load{lo: 15, hi: 40, mem: mem / 2, memUtil: 0.2}, true
					case in%(2*time.Hour) < 4*time.Minute: // evaluation + checkpoint
						return load{lo: 40, hi: 65, mem: mem, memUtil: 0.3}, true
					default:
						return load{lo: 85, hi: 97, mem: mem, memUtil: 0.45}, true
					}
				}
				return idle, true // always on, always billed
			}},
		{name: Host4090, loc: g.loc, gpus: RTX4090GPUs, phase: 41 * time.Second,
			at: func(t time.Time) (load, bool) {
				switch h := day(t); {
				case h < 9*time.Hour || h >= 19*time.Hour:
					return load{}, false
				case h < 10*time.Hour: // instance up, job not started
					return load{lo: 0, hi: 3, mem: 1}, true
				case h < 18*time.Hour:
					return load{lo: 70, hi: 95, mem: 19800, memUtil: 0.5}, true
				default: // job done, a notebook still holds the card
					return load{lo: 0, hi: 3, mem: 1220}, true
				}
			}},
		{name: HostL40S, loc: g.loc, gpus: L40SGPUs, phase: 27 * time.Second,
			at: func(t time.Time) (load, bool) {
				if h := day(t); h < 8*time.Hour || h >= 20*time.Hour {
					return load{}, false
				}
				return load{lo: 85, hi: 98, mem: 38900, memUtil: 0.6}, true
			}},
		{name: HostA10G, loc: time.UTC, gpus: A10GGPUs, phase: 5 * time.Second,
			at: func(t time.Time) (load, bool) {
				if h := t.Hour(); h >= 8 && h < 22 {
					return load{lo: 35, hi: 75, mem: 20710, memUtil: 0.55}, true
				}
				return load{lo: 2, hi: 6, mem: 20710, memUtil: 0.3}, true // model stays loaded at night
			}},
	}
}

// writeTelemetry writes telemetry/<host>/nvidia-smi-YYYYMMDD.csv, one file
// per host per local day, a sample every minute while the host is on.
func (g *gen) writeTelemetry() error {
	for hi, h := range g.hosts() {
		folder := g.path("telemetry", h.name)
		old, _ := filepath.Glob(filepath.Join(folder, "nvidia-smi-*.csv"))
		for _, p := range old {
			if err := os.Remove(p); err != nil {
				return err
			}
		}
		if err := g.writeHost(h, newRand(g.seed, streamTelemetry+uint64(hi))); err != nil {
			return err
		}
	}
	return nil
}

func (g *gen) writeHost(h host, r *rand.Rand) error {
	var (
		f      *os.File
		bw     *bufio.Writer
		curDay string
		buf    []byte
		util   = make([]float64, len(h.gpus))
		band   = make([][2]float64, len(h.gpus)) // the band util[i] walks in
	)
	for i := range band {
		band[i] = [2]float64{-1, -1}
	}
	for t := g.hist.Start; t.Before(g.hist.End); t = t.Add(time.Minute) {
		lt := t.In(h.loc)
		ld, on := h.at(lt)
		if !on {
			continue
		}
		if d := lt.Format("20060102"); d != curDay {
			if f != nil {
				if err := closeAll(f, bw, nil); err != nil {
					return err
				}
			}
			var err error
			if f, err = g.create("telemetry", h.name, "nvidia-smi-"+d+".csv"); err != nil {
				return err
			}
			bw = bufio.NewWriterSize(f, 64<<10)
			bw.WriteString(NvidiaSMIHeader + "\n")
			curDay = d
		}
		jitter := time.Duration(r.IntN(600)-300) * time.Millisecond
		ts := lt.Add(h.phase + jitter)
		for i, gpu := range h.gpus {
			// A random walk inside the band: smooth like real utilization.
			if b := [2]float64{ld.lo, ld.hi}; band[i] != b {
				util[i] = ld.lo + r.Float64()*(ld.hi-ld.lo)
				band[i] = b
			} else {
				util[i] = foldInto(util[i]+r.NormFloat64()*2.5, ld.lo, ld.hi)
			}
			u := math.Round(util[i])
			memUtil := math.Round(u * ld.memUtil * (0.9 + 0.2*r.Float64()))
			mem := ld.mem
			if mem > 100 {
				mem += r.IntN(161) - 80
			}
			power := gpu.IdleW + (gpu.MaxW-gpu.IdleW)*0.92*math.Pow(u/100, 1.15) + r.NormFloat64()*2
			power = math.Max(power, gpu.IdleW*0.8)

			// Each GPU's row is stamped a few ms after the previous one's.
			buf = ts.Add(time.Duration(i*2)*time.Millisecond).AppendFormat(buf[:0], "2006/01/02 15:04:05.000")
			buf = append(buf, ", "...)
			buf = append(buf, gpu.Name...)
			buf = append(buf, ", "...)
			buf = append(buf, gpu.BusID...)
			buf = append(buf, ", "...)
			buf = strconv.AppendInt(buf, int64(gpu.Index), 10)
			buf = append(buf, ", "...)
			buf = append(buf, gpu.UUID...)
			buf = append(buf, ", "...)
			buf = strconv.AppendInt(buf, int64(u), 10)
			buf = append(buf, " %, "...)
			buf = strconv.AppendInt(buf, int64(memUtil), 10)
			buf = append(buf, " %, "...)
			buf = strconv.AppendInt(buf, int64(gpu.MemTotal), 10)
			buf = append(buf, " MiB, "...)
			buf = strconv.AppendInt(buf, int64(mem), 10)
			buf = append(buf, " MiB, "...)
			buf = strconv.AppendFloat(buf, power, 'f', 2, 64)
			buf = append(buf, " W\n"...)
			bw.Write(buf)
		}
	}
	if f != nil {
		return closeAll(f, bw, nil)
	}
	return nil
}

// foldInto folds v back into [lo, hi].
func foldInto(v, lo, hi float64) float64 {
	if v < lo {
		v = lo + (lo - v)
	}
	if v > hi {
		v = hi - (v - hi)
	}
	return math.Min(math.Max(v, lo), hi)
}
