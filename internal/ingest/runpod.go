package ingest

import (
	"encoding/json"
	"time"

	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/internal/gpu"
	"github.com/shopspring/decimal"
)

// RunPod's billing API (GET https://rest.runpod.io/v1/billing/pods,
// /endpoints, /networkvolumes) answers a JSON array of time buckets:
//
//	[{"amount": 100.5, "diskSpaceBilledGb": 50, "endpointId": "…",
//	  "gpuTypeId": "NVIDIA H100 80GB HBM3", "podId": "…",
//	  "time": "2023-01-01T00:00:00Z", "timeBilledMs": 3600000}]
//
// amount is USD, time the bucket's start, timeBilledMs the billed time in
// it. A record becomes one billing line from time to time + timeBilledMs
// (an instant when nothing was billed by time, e.g. storage of a stopped
// pod), for the pod, else the endpoint, else the network volume, else the
// GPU type (grouping=gpuTypeId). The API gives no GPU count: a record is
// one GPU of gpuTypeId.
const (
	runpodProvider = "RunPod"
	// maxBilledMs bounds timeBilledMs: a year of one bucket is already absurd.
	maxBilledMs = 366 * 24 * 3600 * 1000
)

type runpodRecord struct {
	Amount          json.RawMessage `json:"amount"`
	DiskGB          json.RawMessage `json:"diskSpaceBilledGb"`
	EndpointID      string          `json:"endpointId"`
	GPUTypeID       string          `json:"gpuTypeId"`
	PodID           string          `json:"podId"`
	NetworkVolumeID string          `json:"networkVolumeId"`
	Time            string          `json:"time"`
	TimeBilledMs    json.RawMessage `json:"timeBilledMs"`
	GPUCount        json.RawMessage `json:"gpuCount"`
}

type runpodParser struct {
	file string
	cat  *gpu.Catalog
	in   *interner
}

func newRunPodParser(opt Options) *runpodParser {
	return &runpodParser{file: opt.Name, cat: opt.Catalog, in: newInterner()}
}

func (p *runpodParser) record(raw []byte, path string, line int) ([]*finops.BillingLine, *ParseError) {
	var r runpodRecord
	if perr := unmarshalRecord(p.file, line, path, raw, &r); perr != nil {
		return nil, perr
	}
	bad := func(field, expected string, v []byte) *ParseError {
		return jsonErr(p.file, line, path, field, expected, v)
	}
	amount, present, err := jsonDecimal(r.Amount)
	if err != nil || !present {
		return nil, bad("amount", "an amount in USD like 100.5", r.Amount)
	}
	start, err := parseTime(r.Time, time.UTC)
	if err != nil {
		return nil, bad("time", "the bucket start as RFC 3339, like 2023-01-01T00:00:00Z", []byte(r.Time))
	}
	ms, present, err := jsonDecimal(r.TimeBilledMs)
	switch {
	case !present:
		ms = decimal.Zero
	case err != nil || !ms.IsInteger() || ms.IsNegative() || ms.GreaterThan(decimal.NewFromInt(maxBilledMs)):
		return nil, bad("timeBilledMs", "billed milliseconds like 3600000", r.TimeBilledMs)
	}
	id, kind := r.resource()
	if id == "" {
		return nil, bad("podId", "a podId, endpointId, networkVolumeId or gpuTypeId", nil)
	}
	l := &finops.BillingLine{
		Line:           line,
		Provider:       runpodProvider,
		ChargeStart:    start,
		ChargeEnd:      start.Add(time.Duration(ms.IntPart()) * time.Millisecond),
		ChargeCategory: finops.ChargeUsage,
		ResourceID:     id,
		ResourceType:   kind,
		BilledCost:     &amount,
		EffectiveCost:  &amount,
		Currency:       "USD",
	}
	setMode(l, finops.ModeHourly)
	if ms.IsPositive() {
		h := ms.Div(decimal.NewFromInt(3600000))
		l.UsageQuantity, l.UsageUnit = &h, "Hours"
	}
	if disk := jsonText(r.DiskGB); disk != "" && disk != "0" {
		l.Tags = map[string]string{"disk_gb": p.in.get(disk)}
	}
	if r.GPUTypeID != "" {
		if perr := p.setGPU(l, &r, bad); perr != nil {
			return nil, perr
		}
	}
	return []*finops.BillingLine{l}, nil
}

// resource is what the record bills, the first of pod, endpoint, network
// volume and GPU type it names; "" when it names none.
func (r *runpodRecord) resource() (id, kind string) {
	switch {
	case r.PodID != "":
		return r.PodID, "pod"
	case r.EndpointID != "":
		return r.EndpointID, "endpoint"
	case r.NetworkVolumeID != "":
		return r.NetworkVolumeID, "network volume"
	}
	return r.GPUTypeID, "gpu type"
}

// setGPU sets the GPU of a record with a gpuTypeId: the catalog's model,
// or RunPod's own name (tagged unknown) when it only looks like a GPU, and
// its gpuCount when given.
func (p *runpodParser) setGPU(l *finops.BillingLine, r *runpodRecord, bad func(field, expected string, v []byte) *ParseError) *ParseError {
	if m, n, ok := p.cat.GPUName(r.GPUTypeID); ok {
		l.GPUModel, l.GPUCount = p.in.get(m), n
	} else if gpu.LooksLike(r.GPUTypeID) {
		// Still a GPU line, under RunPod's name, and reported.
		l.GPUModel, l.GPUCount = p.in.get(r.GPUTypeID), 1
		if l.Tags == nil {
			l.Tags = map[string]string{}
		}
		l.Tags[UnknownGPUTag] = p.in.get(r.GPUTypeID)
	}
	if l.GPUModel != "" {
		if n, present, err := jsonDecimal(r.GPUCount); present {
			if err != nil || !n.IsInteger() || n.LessThan(decimal.NewFromInt(1)) || n.GreaterThan(decimal.NewFromInt(gpu.MaxPerMachine)) {
				return bad("gpuCount", "a GPU count like 2", r.GPUCount)
			}
			l.GPUCount = int(n.IntPart())
		}
	}
	return nil
}
