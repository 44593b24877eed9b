// Package dcgm reads NVIDIA dcgm-exporter scrapes (the Prometheus text
// exposition a host may log to disk) into GPU samples, and knows the label
// and metric names of the GPU exporters finops reads through Prometheus:
// dcgm-exporter and utkuozdemir's nvidia_gpu_exporter.
package dcgm

import (
	"net"
	"strconv"
	"strings"

	"github.com/finops-oss/finops"
)

// GPU is the identity a series' labels give a GPU (or a MIG instance).
type GPU struct {
	Host  string // Hostname/hostname label, else the instance without its port
	Index int    // gpu / index label, -1 when absent
	UUID  string // GPU-… ("MIG instance" suffix /mig-N for DCGM MIG series)
	Name  string // modelName / name as the driver reports it
}

// Key is the GPU key of metrics.md: UUID when known, else host/index.
func (g GPU) Key() string { return finops.GPUKey(g.UUID, g.Host, g.Index) }

// first returns the first non-empty value among the label names.
func first(labels map[string]string, names ...string) string {
	for _, n := range names {
		if v := strings.TrimSpace(labels[n]); v != "" {
			return v
		}
	}
	return ""
}

// Identify reads a GPU identity from exporter labels. It accepts both
// spellings dcgm-exporter has used (UUID/uuid, Hostname/hostname; the old
// namespace's pod_name…), nvidia_gpu_exporter's uuid without its "GPU-"
// prefix, and falls back to Prometheus' instance label for the host. ok is
// false for series that name no GPU (DCGM's label-less tail, NVSwitch series).
func Identify(labels map[string]string) (GPU, bool) {
	g := GPU{Index: -1}
	g.UUID = first(labels, "UUID", "uuid", "gpu_uuid")
	if g.UUID != "" && !strings.HasPrefix(g.UUID, "GPU-") && !strings.HasPrefix(g.UUID, "MIG-") && looksLikeUUID(g.UUID) {
		// nvidia_gpu_exporter strips the prefix; nvidia-smi and DCGM keep it.
		g.UUID = "GPU-" + g.UUID
	}
	if v := first(labels, "gpu", "index", "minor_number"); v != "" {
		if n, err := strconv.Atoi(v); err == nil && n >= 0 {
			g.Index = n
		}
	}
	g.Host = first(labels, "Hostname", "hostname", "node", "kubernetes_node")
	if g.Host == "" {
		if inst := first(labels, "instance"); inst != "" {
			if h, _, err := net.SplitHostPort(inst); err == nil {
				inst = h
			}
			g.Host = inst
		}
	}
	g.Name = first(labels, "modelName", "name", "model_name", "DCGM_FI_DEV_NAME")
	if gi := first(labels, "GPU_I_ID"); gi != "" && g.UUID != "" {
		// MIG instances share their GPU's UUID in DCGM; each is its own GPU here.
		g.UUID += "/mig-" + gi
		// The profile after the card's name reads as a MIG slice of it
		// (gpu.ParseSlice); alone, as a slice of a card not named.
		if p := first(labels, "GPU_I_PROFILE"); p != "" {
			g.Name = strings.TrimSpace(g.Name + " " + p)
		}
	}
	if g.UUID == "" && (g.Index < 0 || g.Host == "") {
		return GPU{}, false
	}
	return g, true
}

func looksLikeUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i, c := range s {
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
				return false
			}
		}
	}
	return true
}

// TaskLabels says which labels name the task, team and kind of the work on
// a GPU (config utilization.prometheus[].labels). The first non-empty label
// of each list wins, so both pod and exported_pod can be listed.
type TaskLabels struct {
	Task []string // e.g. pod, exported_pod
	Team []string // e.g. namespace, exported_namespace
	Kind []string // e.g. container, job
}

// DefaultTaskLabels are dcgm-exporter's Kubernetes labels in both spellings
// (exported_* when Prometheus renamed them on a clash, pod_name… with the
// exporter's old namespace).
func DefaultTaskLabels() TaskLabels {
	return TaskLabels{
		Task: []string{"pod", "exported_pod", "pod_name"},
		Team: []string{"namespace", "exported_namespace", "pod_namespace"},
		Kind: []string{"container", "exported_container", "container_name"},
	}
}

// Empty reports whether no task label is configured.
func (t TaskLabels) Empty() bool { return len(t.Task) == 0 }

// Of returns the task, team and kind the labels name; task is "" when none.
func (t TaskLabels) Of(labels map[string]string) (task, team, kind string) {
	task = first(labels, t.Task...)
	if task == "" {
		return "", "", ""
	}
	return task, first(labels, t.Team...), first(labels, t.Kind...)
}
