// Package prom reads GPU utilization from a Prometheus server over its HTTP
// API (query_range) with the official client, one day at a time, and turns
// the series into the same GPU samples the nvidia-smi parser produces, plus
// task runs from labels. It knows nothing of the database: the caller stores
// each day in one transaction (see Day).
package prom

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/internal/gpu"
	"github.com/finops-oss/finops/internal/ingest"
	"github.com/finops-oss/finops/internal/ingest/dcgm"
	"github.com/finops-oss/finops/internal/sanitize"
	"github.com/prometheus/common/model"
)

// Format is the source format recorded for Prometheus days.
const Format = "prometheus"

// maxPoints is the server's limit of points per series in one query_range
// (api.go: "exceeded maximum resolution of 11,000 points per timeseries").
const maxPoints = 11000

// Queries are the PromQL expressions of a source. Each must return one series
// per GPU (or MIG instance) whose labels identify it (see dcgm.Identify), in
// the unit named: utilization in percent 0–100, memory in MiB, power in W.
// Only Util is required. Each instant vector selector in them is read over
// its own step before it is sent, so that no step follows a series' last
// sample (window.go); selectors with a window of their own are sent as
// written.
type Queries struct {
	Util     string `yaml:"util"`
	MemUsed  string `yaml:"memory_used"`
	MemTotal string `yaml:"memory_total"`
	Power    string `yaml:"power"`
}

// The exporters finops knows (their query sets: Dialects).
const (
	ExporterDCGM      = "dcgm"                // NVIDIA dcgm-exporter
	ExporterNvidiaSMI = "nvidia_gpu_exporter" // utkuozdemir/nvidia_gpu_exporter
)

// Source is one configured Prometheus server and how to read it.
type Source struct {
	Name    string // short name in URIs and the data-quality box; default the URL's host[:port][/path]
	URL     string
	Queries Queries
	Step    time.Duration // query resolution; default 60 s
	Timeout time.Duration // per request; default 2 m
	Retries int           // retries of a failed request (5xx, timeouts, network); 0 = none (the config's default is 3)
	Backoff time.Duration // wait before the first retry, doubled each time; default 2 s
	// MaxResponseBytes caps one answer; a query whose answer is larger is
	// split (shorter ranges, then per host). Default DefaultMaxResponseBytes.
	MaxResponseBytes int64
	// ConcurrentDays is how many days FetchDays asks for at once (and so
	// holds in memory); default DefaultConcurrentDays.
	ConcurrentDays int

	BearerTokenEnv       string // environment variable holding a bearer token
	BasicAuthUser        string
	BasicAuthPasswordEnv string // environment variable holding the basic-auth password

	TaskLabels dcgm.TaskLabels // labels naming tasks; empty = no task attribution
	Catalog    *gpu.Catalog
	Getenv     func(string) string // default os.Getenv
	Transport  http.RoundTripper   // default Go's default transport (defaultTransport)
}

// Client fetches days from one source.
type Client struct {
	src      Source
	q        Queries // what is sent: src.Queries with each selector read over its own step (window.go)
	endpoint string  // the query_range URL
	http     *http.Client
}

// setDefaults fills in the settings the source leaves out.
func (src *Source) setDefaults() {
	if src.Timeout <= 0 {
		src.Timeout = 2 * time.Minute
	}
	if src.Retries < 0 {
		src.Retries = 0
	}
	if src.Backoff <= 0 {
		src.Backoff = 2 * time.Second
	}
	if src.MaxResponseBytes <= 0 {
		src.MaxResponseBytes = DefaultMaxResponseBytes
	}
	if src.ConcurrentDays <= 0 {
		src.ConcurrentDays = DefaultConcurrentDays
	}
	if src.Getenv == nil {
		src.Getenv = os.Getenv
	}
	if src.Catalog == nil {
		src.Catalog = gpu.NewCatalog()
	}
}

// auth builds the transport that adds the source's credentials, read from
// the environment now so that a missing one fails at start, not per request.
func (src *Source) auth() (*authTransport, error) {
	rt := src.Transport
	if rt == nil {
		rt = defaultTransport()
	}
	a := &authTransport{next: rt}
	if src.BearerTokenEnv != "" {
		a.bearer = strings.TrimSpace(src.Getenv(src.BearerTokenEnv))
		if a.bearer == "" {
			return nil, fmt.Errorf("prometheus %s: bearer_token_env %s is empty or unset", src.Name, src.BearerTokenEnv)
		}
	}
	if src.BasicAuthUser != "" {
		a.user = src.BasicAuthUser
		if src.BasicAuthPasswordEnv != "" {
			a.password = strings.TrimSpace(src.Getenv(src.BasicAuthPasswordEnv))
			if a.password == "" {
				return nil, fmt.Errorf("prometheus %s: basic_auth_password_env %s is empty or unset", src.Name, src.BasicAuthPasswordEnv)
			}
		}
	}
	return a, nil
}

// New checks the source and builds its client.
func New(src Source) (*Client, error) {
	if src.URL == "" {
		return nil, errors.New("prometheus: url is required")
	}
	u, err := url.Parse(src.URL)
	if err != nil || u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return nil, fmt.Errorf("prometheus: url %q: want http(s)://host[:port][/path]", sanitize.URL(src.URL))
	}
	if strings.TrimSpace(src.Queries.Util) == "" {
		return nil, errors.New("prometheus: a utilization query is required")
	}
	if src.Name == "" {
		// The name keys the stored days: host, port and any path prefix.
		src.Name = u.Host + strings.TrimRight(u.Path, "/")
	}
	if src.Step <= 0 {
		src.Step = time.Minute
	}
	if src.Step < time.Second || src.Step%time.Second != 0 {
		return nil, fmt.Errorf("prometheus %s: step %v: want whole seconds", src.Name, src.Step)
	}
	sent := src.Queries
	for _, q := range []*string{&sent.Util, &sent.MemUsed, &sent.MemTotal, &sent.Power} {
		if strings.TrimSpace(*q) == "" {
			continue
		}
		w, err := windowed(*q, src.Step)
		if err != nil {
			return nil, fmt.Errorf("prometheus %s: query %q: %w", src.Name, *q, err)
		}
		*q = w
	}
	src.setDefaults()
	a, err := src.auth()
	if err != nil {
		return nil, err
	}
	// The answer is streamed (answer.go), so the request is ours; the
	// transport, its TLS and the credentials are the client library's.
	return &Client{src: src, q: sent, endpoint: u.JoinPath("api", "v1", "query_range").String(),
		http: &http.Client{Transport: a, Timeout: src.Timeout}}, nil
}

// Source returns the source with its defaults filled in.
func (c *Client) Source() Source { return c.src }

// authTransport adds the configured credentials to every request.
type authTransport struct {
	next                   http.RoundTripper
	bearer, user, password string
}

func (t *authTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if t.bearer != "" || t.user != "" {
		r = r.Clone(r.Context())
		if t.bearer != "" {
			r.Header.Set("Authorization", "Bearer "+t.bearer)
		} else {
			r.SetBasicAuth(t.user, t.password)
		}
	}
	return t.next.RoundTrip(r)
}

// DayURI names one UTC day of the source in the store.
func (c *Client) DayURI(day time.Time) string {
	return "prometheus://" + c.src.Name + "/" + day.UTC().Format("2006-01-02")
}

// Day is one UTC day fetched from a source, ready to be stored in one
// transaction with Replay. Complete is false when the day is not over yet
// or the server answered with warnings (partial data): such a day is
// fetched again next time.
type Day struct {
	Start    time.Time
	URI      string // DayURI, with "#partial" when not Complete
	SHA256   string // of the source, queries and data: the same answer twice is stored once
	Complete bool
	Warnings []string
	Samples  int
	Runs     int
	// Dropped counts points whose utilization is no sample (outside 0–100 %
	// after the query's scaling, or NaN): finops.ValidUtil.
	Dropped int

	gpus []*gpuDay // sorted by GPU key
	runs []finops.TaskRun
	step time.Duration
	// interval is the median spacing of a GPU's points, at least step: a
	// step finer than the scrape interval has points only where samples are
	// (window.go), and each covers up to the next.
	interval time.Duration
}

// Replay sends the day's records to sink; it is a store.ParseFunc.
func (d *Day) Replay(ctx context.Context, sink ingest.Sink) (*ingest.Summary, error) {
	sum := &ingest.Summary{Format: Format, Kind: ingest.KindUtilization, SampleInterval: d.interval, SamplesDropped: d.Dropped}
	power := ingest.NewPowerCheck()
	for _, gd := range d.gpus {
		if err := ctx.Err(); err != nil {
			return sum, err
		}
		for i, p := range gd.points.all() {
			if p.has == 0 {
				continue
			}
			x := &sample{GPUSample: finops.GPUSample{Line: sum.Rows + 1, Host: gd.gpu.Host, Index: gd.gpu.Index,
				UUID: gd.gpu.UUID, Model: gd.model, Slice: gd.slice, Time: d.Start.Add(time.Duration(i) * d.step)}, vals: p.vals}
			for k, dst := range [...]**float64{&x.Util, &x.MemUsed, &x.MemTotal, &x.PowerWatt} {
				if p.has&(1<<k) != 0 {
					*dst = &x.vals[k]
				}
			}
			// A power reading above the model's plausible bound
			// (ingest.PowerCheck) makes the point no sample, dropped and
			// counted as an out-of-range utilization is: an answer has no
			// rows to refuse.
			if x.PowerWatt != nil && power.Check(x.Model, *x.PowerWatt) != nil {
				sum.SamplesDropped++
				continue
			}
			if perr := ingest.CheckSample(d.URI, &x.GPUSample, ingest.ExporterLabel); perr != nil {
				return sum, perr
			}
			if err := sink.Sample(&x.GPUSample); err != nil {
				return sum, fmt.Errorf("%s: %w", d.URI, err)
			}
			sum.Rows++
			sum.Extend(x.Time, x.Time)
		}
	}
	for i := range d.runs {
		if perr := ingest.CheckTask(d.URI, &d.runs[i]); perr != nil {
			return sum, perr
		}
		if err := sink.TaskRun(&d.runs[i]); err != nil {
			return sum, fmt.Errorf("%s: %w", d.URI, err)
		}
		sum.Rows++
	}
	return sum, nil
}

// FetchError is a day the server did not answer: it is missing, never zero.
type FetchError struct {
	Source string
	Day    time.Time
	Query  string // as configured
	Sent   string // as sent: each selector read over its own step (window.go)
	Err    error
}

func (e *FetchError) Error() string {
	return fmt.Sprintf("prometheus %s: %s: query %q: %v%s", e.Source, e.Day.Format("2006-01-02"), e.Query, e.Err,
		sentAs(e.Query, e.Sent, e.Err))
}

// sentAs names the query as sent when the server could not run it: a parse
// error's position is in that text, not in the configured one.
func sentAs(conf, sent string, err error) string {
	var apiErr *apiError
	if sent != "" && sent != conf && errors.As(err, &apiErr) && apiErr.Type == errBadData {
		return fmt.Sprintf(" (sent as %q)", sent)
	}
	return ""
}

func (e *FetchError) Unwrap() error { return e.Err }

type metricKind int

const (
	kUtil metricKind = iota
	kMemUsed
	kMemTotal
	kPower
)

// point is one GPU at one step: the four measures, has bit k set when
// measure k has a value.
type point struct {
	vals [4]float64
	has  uint8
}

// gpuDay is one GPU's day, a point per step from the day's start, in blocks
// made when a step of theirs gets a value (points), and a map only for the
// few steps two series of a GPU share.
type gpuDay struct {
	gpu    dcgm.GPU
	model  string
	slice  *finops.GPUSlice // a vGPU profile or MIG instance; nil: a whole card
	points points
	// shared counts the further series with a value at a step, by
	// step×4 + measure: rare (a pod handing over within a minute), so a map
	// made only when needed rather than a count in every point.
	shared map[int]int
}

// sample is a GPU sample with room for its measures (one allocation).
type sample struct {
	finops.GPUSample
	vals [4]float64
}

// FetchDay queries one UTC day [day, day+24h), cut at now: utilization,
// memory and power at the source's step, joined per GPU and instant. An
// error means the day is missing; warnings make it partial.
func (c *Client) FetchDay(ctx context.Context, day, now time.Time) (*Day, error) {
	day = day.UTC().Truncate(24 * time.Hour)
	end := day.Add(24 * time.Hour)
	complete := !end.After(now)
	if !complete {
		end = now.UTC().Truncate(c.src.Step)
	}
	return c.fetchSpan(ctx, day, end, complete, c.DayURI(day))
}

// FetchRange queries [from, to) at the source's step, from cut down to a
// whole step: what `finops watch` reads each pass, only the minutes since its
// last. The result is stored like a partial day (URI .../watch/<from>); the
// daily fetch of the report later delivers the same samples again, and the
// store counts a sample delivered twice once.
func (c *Client) FetchRange(ctx context.Context, from, to time.Time) (*Day, error) {
	from = from.UTC().Truncate(c.src.Step)
	to = to.UTC().Truncate(c.src.Step)
	return c.fetchSpan(ctx, from, to, false, "prometheus://"+c.src.Name+"/watch/"+from.Format("2006-01-02T15:04:05Z"))
}

// medianSpacing is the lower median of spacings (spacing in steps → how
// many), 1 when there is none: a step finer than the scrape interval has a
// point only every few steps, and each point stands for the steps up to the
// next (the sample interval of the minute grid, docs/METRICS.md).
func medianSpacing(spacings map[int]int) int {
	keys := make([]int, 0, len(spacings))
	total := 0
	for k, n := range spacings {
		keys = append(keys, k)
		total += n
	}
	sort.Ints(keys)
	acc := 0
	for _, k := range keys {
		if acc += spacings[k]; 2*acc >= total {
			return k
		}
	}
	return 1
}

// queryRange runs one query over [start, end) in chunks the server accepts,
// each split further while its answer is over the cap, and passes every
// series of the answers to each.
func (c *Client) queryRange(ctx context.Context, expr string, start, end time.Time, each func(*model.SampleStream)) ([]string, error) {
	step := c.src.Step
	chunk := time.Duration(maxPoints-1) * step
	var warns []string
	for from := start; from.Before(end); from = from.Add(chunk) {
		// query_range's end is inclusive: stop one step before the next chunk.
		to := from.Add(chunk)
		if to.After(end) {
			to = end
		}
		to = to.Add(-step)
		if to.Before(from) {
			to = from
		}
		w, err := c.fetch(ctx, rangeQuery{expr: expr, start: from, end: to}, true, each)
		warns = append(warns, w...)
		if err != nil {
			return warns, err
		}
	}
	return warns, nil
}

// retryable reports whether a failed request may succeed when tried again:
// server errors, timeouts, dropped connections; not a bad query.
func retryable(err error) bool {
	var apiErr *apiError
	if errors.As(err, &apiErr) {
		switch apiErr.Type {
		case errServer, errTimeout, errCanceled:
			return true
		case errClient:
			return strings.Contains(apiErr.Msg, "429")
		}
		return false
	}
	// A certificate the client refuses stays refused: fail at once and say
	// so rather than retry until the deadline.
	var verify *tls.CertificateVerificationError
	var unknownCA x509.UnknownAuthorityError
	var host x509.HostnameError
	var invalid x509.CertificateInvalidError
	if errors.As(err, &verify) || errors.As(err, &unknownCA) || errors.As(err, &host) || errors.As(err, &invalid) {
		return false
	}
	var ne net.Error
	if errors.As(err, &ne) {
		return true
	}
	return errors.Is(err, context.DeadlineExceeded) || strings.Contains(err.Error(), "connection refused") ||
		strings.Contains(err.Error(), "EOF")
}

// labelRun is one series' contiguous steps with a task label.
type labelRun struct {
	task, team, kind, host, key string
	start, last                 int64 // unix ms of the first and last step
}

// mergeRuns turns label runs into task runs: the GPUs one task held from the
// same step on one host become one run, until the last of them (resource =
// the host; analysis finds the billed resource through the GPUs).
func mergeRuns(in []labelRun, step time.Duration) []finops.TaskRun {
	type key struct {
		task, host string
		start      int64
	}
	byKey := map[key]*finops.TaskRun{}
	var keys []key
	for _, r := range in {
		k := key{r.task, r.host, r.start}
		end := time.UnixMilli(r.last).Add(step).UTC()
		t := byKey[k]
		if t == nil {
			t = &finops.TaskRun{Task: r.task, Team: r.team, Kind: r.kind, Resource: r.host,
				Start: time.UnixMilli(r.start).UTC(), End: end}
			byKey[k] = t
			keys = append(keys, k)
		}
		if end.After(t.End) {
			t.End = end
		}
		t.GPUs = append(t.GPUs, r.key)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if a.start != b.start {
			return a.start < b.start
		}
		if a.task != b.task {
			return a.task < b.task
		}
		return a.host < b.host
	})
	out := make([]finops.TaskRun, 0, len(keys))
	for i, k := range keys {
		t := byKey[k]
		sort.Strings(t.GPUs)
		t.GPUs = slices.Compact(t.GPUs)
		t.Line = i + 1
		out = append(out, *t)
	}
	return out
}

// maxGPUsPerDay bounds the GPUs one source's day may name: each costs a
// block of points at least (and a day of them when reported all day), so
// an answer of countless GPUs seen once would grow memory with the answer
// whatever its byte cap. Five times the largest fleet measured (10,000
// GPUs, docs/SCALE.md); a larger fleet is fetched as several sources (a
// label matcher each), as its days would not fit one machine's memory
// either (57.6 KB a GPU-day).
const maxGPUsPerDay = 50000

// pointBlock is how many steps of a GPU's day are allocated at once. A day
// held densely cost every GPU an answer names 1,440 points (57.6 KB) even
// for one point: an answer of 281,000 GPUs seen once each (20 MB) took
// 17.7 GB. In blocks of 32 steps (1.3 KB) a GPU seen once costs one block
// and its index; a GPU reported all day costs what the dense day did, and
// 45 pointers more.
const pointBlock = 32

// points is a GPU's day of steps, its blocks made on first use.
type points struct {
	blocks []*[pointBlock]point
	n      int
}

func newPoints(n int) points {
	return points{blocks: make([]*[pointBlock]point, (n+pointBlock-1)/pointBlock), n: n}
}

// at is step i's point, its block made if need be.
func (ps *points) at(i int) *point {
	b := ps.blocks[i/pointBlock]
	if b == nil {
		b = new([pointBlock]point)
		ps.blocks[i/pointBlock] = b
	}
	return &b[i%pointBlock]
}

// all yields every step that has a block, in order: steps of blocks never
// made hold nothing (a zero point's has is 0).
func (ps *points) all() func(yield func(int, *point) bool) {
	return func(yield func(int, *point) bool) {
		for bi, b := range ps.blocks {
			if b == nil {
				continue
			}
			for j := range b {
				if i := bi*pointBlock + j; i >= ps.n || !yield(i, &b[j]) {
					return
				}
			}
		}
	}
}
