package ingest

import "strings"

// maxInterned bounds an interner: low-cardinality columns (provider, region,
// category) fit easily, and a column that turns out to be unique stops
// growing the table instead of growing memory.
const maxInterned = 4096

// interner shares one copy of repeated values. Fields of a csv record share
// one backing string, so keeping any of them unshared would pin the whole
// line for as long as a sink keeps the record.
type interner struct {
	same  map[string]string
	lower map[string]string // raw value → interned lower-case form
}

func newInterner() *interner {
	return &interner{same: map[string]string{}, lower: map[string]string{}}
}

func (in *interner) get(s string) string {
	if s == "" {
		return ""
	}
	if v, ok := in.same[s]; ok {
		return v
	}
	v := strings.Clone(s)
	if len(in.same) < maxInterned {
		in.same[v] = v
	}
	return v
}

// getLower interns the lower-case form of s; enums drift in case between
// providers ("Usage-Based" and "Usage-based" in one file).
func (in *interner) getLower(s string) string {
	if s == "" {
		return ""
	}
	if v, ok := in.lower[s]; ok {
		return v
	}
	v := in.get(strings.ToLower(s))
	if len(in.lower) < maxInterned {
		in.lower[strings.Clone(s)] = v
	}
	return v
}
