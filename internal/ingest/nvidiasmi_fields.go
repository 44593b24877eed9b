package ingest

import (
	"fmt"
	"strings"
	"sync"
)

// canonicalSMIField is the canonical name of an nvidia-smi --query-gpu field
// or alias ("gpu_uuid" → "uuid"), or "" when nvidia-smi has no such field.
// Every column of a header or headerless row is looked up, so the list is
// a table: a scan of its 240 lines per column took 20 µs, 10 s for a
// hostile row of half a million fields.
func canonicalSMIField(name string) string {
	return smiFieldTable()[strings.ToLower(strings.TrimSpace(name))]
}

// smiFieldTable maps each field and alias of smiQueryFields, lower case, to
// the field's canonical name.
var smiFieldTable = sync.OnceValue(func() map[string]string {
	t := map[string]string{}
	for line := range strings.Lines(smiQueryFields) {
		names := strings.Fields(line)
		for _, n := range names {
			t[strings.ToLower(n)] = names[0]
		}
	}
	return t
})

// ParseSMIFields reads the field list of headerless nvidia-smi logs in
// nvidia-smi's own --query-gpu spelling ("timestamp,name,uuid,utilization.gpu"):
// aliases become canonical names, fields finops does not read are kept (their
// columns are skipped). A name nvidia-smi does not know, a field given twice,
// or a list without timestamp or a GPU uuid, index or pci.bus_id is an error
// naming it. (With neither uuid nor index a GPU is its host and PCI bus id.)
func ParseSMIFields(list string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, f := range strings.Split(list, ",") {
		f = strings.TrimSpace(f)
		c := canonicalSMIField(f)
		switch {
		case f == "":
			return nil, fmt.Errorf("an empty field in %q: give the --query-gpu list the logger runs, like %s", list, strings.Join(defaultSMIColumns(), ","))
		case c == "":
			return nil, fmt.Errorf("%q is not an nvidia-smi --query-gpu field (nvidia-smi --help-query-gpu lists them): give the --query-gpu list the logger runs", f)
		case seen[c]:
			return nil, fmt.Errorf("field %q is given twice", f)
		}
		seen[c] = true
		out = append(out, c)
	}
	if !seen["timestamp"] {
		return nil, fmt.Errorf("%q has no timestamp: finops needs each row's time; log timestamp", list)
	}
	if !seen["uuid"] && !seen["index"] && !seen["pci.bus_id"] {
		return nil, fmt.Errorf("%q has neither uuid, index nor pci.bus_id: finops needs one to tell the GPUs apart; log uuid", list)
	}
	return out, nil
}
