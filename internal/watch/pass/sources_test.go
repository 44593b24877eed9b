package pass

import (
	"testing"

	"github.com/finops-oss/finops/internal/config"
	"github.com/finops-oss/finops/internal/ingest"
	"github.com/finops-oss/finops/internal/ingest/dcgm"
	"github.com/finops-oss/finops/internal/source"
)

// TestSources: nvidia-smi logs and NVML spools are tails, with their
// in-progress glob and host; scrapes are read whole; bills and tasks are
// not the watch's.
func TestSources(t *testing.T) {
	specs := []source.Spec{
		{Name: "bills/*.csv", Kind: ingest.KindBilling},
		{Name: "logs/a.csv", Kind: ingest.KindUtilization, Format: ingest.FormatNvidiaSMI, Host: "gpu-a"},
		{Name: "spool/*.csv", Kind: ingest.KindUtilization, Format: ingest.FormatNvidiaSMI, InProgress: "spool/*.csv.part"},
		{Name: "scrapes/*.prom", Kind: ingest.KindUtilization, Format: dcgm.Format},
		{Name: "tasks.csv", Kind: ingest.KindTasks, Format: ingest.FormatTasks},
	}
	tails, whole := Sources(&config.Config{}, specs)
	if len(tails) != 2 || tails[0].Pattern != "logs/a.csv" || tails[0].Parse.Host != "gpu-a" || tails[0].Parse.Name != "logs/a.csv" ||
		tails[1].Pattern != "spool/*.csv" || tails[1].InProgress != "spool/*.csv.part" {
		t.Errorf("tails %+v", tails)
	}
	if len(whole) != 1 || whole[0].Name != "scrapes/*.prom" {
		t.Errorf("whole %+v", whole)
	}
}
