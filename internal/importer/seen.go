package importer

import (
	"context"

	"github.com/finops-oss/finops/internal/source"
	"github.com/finops-oss/finops/internal/store"
)

// seenStore is the store's remote_objects table as package source sees it
// (source.SeenStore): what makes a pull of a remote source incremental.
type seenStore struct{ st *store.Store }

func (s seenStore) SeenUnder(ctx context.Context, prefix string) ([]source.SeenObject, error) {
	rows, err := s.st.SeenUnder(ctx, prefix)
	if err != nil {
		return nil, err
	}
	out := make([]source.SeenObject, len(rows))
	for i, r := range rows {
		out[i] = source.SeenObject{URL: r.URL, Size: r.Size, ETag: r.ETag, MD5: r.MD5, LastModified: r.LastModified,
			SHA256: r.SHA256, Outcome: source.Outcome(r.Outcome), Held: r.Held}
	}
	return out, nil
}

func (s seenStore) RecordSeen(ctx context.Context, objs []source.SeenObject, forget []string) error {
	rows := make([]store.SeenObject, len(objs))
	for i, o := range objs {
		rows[i] = store.SeenObject{URL: o.URL, Size: o.Size, ETag: o.ETag, MD5: o.MD5, LastModified: o.LastModified,
			SHA256: o.SHA256, Outcome: string(o.Outcome)}
	}
	return s.st.RecordSeen(ctx, rows, forget)
}

// planner is o's planner for spec s: incremental for a remote source when
// there is a store, unless --replace asks for the files again on purpose.
func planner(o Options, s source.Spec) source.Planner {
	pl := o.Sources
	if o.Store != nil && !s.Replace {
		pl.Seen = seenStore{o.Store}
	}
	return pl
}

// storedBytes reports whether an import left the file's bytes in the
// database (imported, or the same bytes as a file imported before), as
// opposed to changing nothing with bytes of its own (a superseded
// delivery, charges another file holds).
func storedBytes(res *store.ImportResult) bool {
	return !res.Duplicate || (!res.Superseded && len(res.Overlaps) == 0)
}
