package plan

import (
	"bytes"
	"path/filepath"
	"strings"

	"github.com/finops-oss/finops/internal/sanitize"
)

// WriteFiles renders r in each file format of formats (xlsx, json; the
// table is printed, not a file) and hands each to write under its name,
// finops-plan-<period, else the scenario file's name>.<format>. It returns
// the names written; the caller puts the bytes on disk.
func WriteFiles(r *Result, scenarioFile string, formats []string, write func(name string, data []byte) error) ([]string, error) {
	label := r.Period
	if label == "" {
		label = strings.TrimSuffix(filepath.Base(scenarioFile), filepath.Ext(scenarioFile))
	}
	base := "finops-plan-" + sanitize.FileLabel(label, "plan")
	var wrote []string
	for _, f := range formats {
		var buf bytes.Buffer
		var err error
		switch f {
		case "xlsx":
			err = WriteXLSX(&buf, r)
		case "json":
			err = WriteJSON(&buf, r)
		default:
			continue
		}
		if err != nil {
			return wrote, err
		}
		if err := write(base+"."+f, buf.Bytes()); err != nil {
			return wrote, err
		}
		wrote = append(wrote, base+"."+f)
	}
	return wrote, nil
}
