package ingest

import "slices"

// detection is what DetectFormat found in a header. Opening a file may
// detect its header already (to pick a GB mapping's decoder); the parser is
// handed that result instead of detecting the same header again.
type detection struct {
	header  []string // cleaned, as DetectFormat read it
	format  string
	mapping *ColumnMapping
	err     error
}

// detect runs DetectFormat over hdr (cleaned) with the configured
// mappings followed by the built-in ones, as Parse picks them.
func detect(hdr []string, opt Options) *detection {
	f, m, err := detectIn(registryOf(opt), hdr, append(slices.Clone(opt.Mappings), BuiltinMappings()...))
	return &detection{header: hdr, format: f, mapping: m, err: err}
}

// of is d when d was made for hdr, else a detection of hdr.
func (d *detection) of(hdr []string, opt Options) *detection {
	if d != nil && slices.Equal(d.header, hdr) {
		return d
	}
	return detect(hdr, opt)
}

// mappingFor detects a header when it may be a rental CSV's (no other
// --format), for the mapping's encoding; nil when it is not one.
func mappingFor(hdr []string, opt Options) *detection {
	if len(hdr) == 0 || opt.Format != "" && opt.Format != FormatRental {
		return nil
	}
	return detect(hdr, opt)
}

// rental is the mapping d matched, nil when d is nil or not a rental CSV's.
func (d *detection) rental() *ColumnMapping {
	if d == nil || d.err != nil || d.format != FormatRental {
		return nil
	}
	return d.mapping
}
