package source

import (
	"context"
	"encoding/hex"
	"time"

	"github.com/finops-oss/finops/internal/objstore"
)

// An incremental pull (issue #35) decides from a remote source's listing
// which objects to download, against what the database recorded of them:
//
//	an object is downloaded unless the database records a successful import
//	of exactly that key, size, ETag/MD5 and modification time (or the
//	delivery planning left it out, with every manifest of the prefix unchanged)
//
// (docs/INGEST.md §Incremental pulls). A record is written only after an
// import that succeeded; a failed one, or bytes the database no longer
// holds, leave the object to be downloaded again.

// SeenStore is the database's record of what incremental pulls saw (the
// store's remote_objects table, wired by package importer).
type SeenStore interface {
	// SeenUnder returns the records whose URL starts with prefix.
	SeenUnder(ctx context.Context, prefix string) ([]SeenObject, error)
	// RecordSeen records objs and forgets the URLs of forget, at once.
	RecordSeen(ctx context.Context, objs []SeenObject, forget []string) error
}

// Outcome is what became of a seen object.
type Outcome string

// Outcomes.
const (
	Stored    Outcome = "stored"    // imported; its bytes are in the database (SeenObject.Held says whether still)
	Unchanged Outcome = "unchanged" // imported, changing nothing (the same bytes or charges as another file, a superseded delivery)
	Failed    Outcome = "failed"    // downloaded, and its import failed or was never tried: downloaded again
	LeftOut   Outcome = "left-out"  // a manifest, or a file the delivery planning left out: never imported
)

// SeenObject is one object's record.
type SeenObject struct {
	URL          string
	Size         int64
	ETag         string
	MD5          string // hex
	LastModified time.Time
	SHA256       string // the downloaded bytes'; "" for an object never downloaded
	Outcome      Outcome
	Held         bool // read only: the database holds the bytes of SHA256 now
}

// seenOf is the record of listed object o, called url.
func seenOf(url string, o objstore.Listed, sha string, out Outcome) SeenObject {
	return SeenObject{URL: url, Size: o.Size, ETag: o.ETag, MD5: hex.EncodeToString(o.MD5), LastModified: o.LastModified.UTC(),
		SHA256: sha, Outcome: out}
}

// sameObject reports whether the listing's o is the object rec recorded:
// the same size, ETag, MD5 and modification time. An object whose listing
// has neither an ETag nor an MD5 is never the same: nothing tells its
// versions apart.
func sameObject(rec SeenObject, o objstore.Listed) bool {
	if o.ETag == "" && len(o.MD5) == 0 {
		return false
	}
	return rec.Size == o.Size && rec.ETag == o.ETag && rec.MD5 == hex.EncodeToString(o.MD5) &&
		rec.LastModified.Equal(o.LastModified)
}

// imported reports whether a record is of a successful import that still
// counts: one that changed nothing, or one whose bytes the database holds.
func (rec SeenObject) imported() bool {
	return rec.Outcome == Unchanged || (rec.Outcome == Stored && rec.Held)
}

// state is what the listing and the records say of one object.
type state int

const (
	isNew      state = iota // no record
	isChanged               // a record of another version
	isRetry                 // this version, but no import of it that counts (failed, or its bytes gone)
	isImported              // this version, imported
	isLeftOut               // this version, left out by the delivery planning
)

// classify is o's state against its record, if any.
func classify(rec SeenObject, ok bool, o objstore.Listed) state {
	switch {
	case !ok:
		return isNew
	case !sameObject(rec, o):
		return isChanged
	case rec.imported():
		return isImported
	case rec.Outcome == LeftOut:
		return isLeftOut
	}
	return isRetry
}

// pullMode is how much of a listing an incremental pull must fetch.
type pullMode int

const (
	// pullNothing: every object is imported or left out, every manifest
	// unchanged and none gone: nothing to download.
	pullNothing pullMode = iota
	// pullLoose: no manifest listed or gone, so each object is a file of
	// its own: download those not imported.
	pullLoose
	// pullDeliveries: a manifest is listed (or was and is gone) and
	// something changed: download every manifest and plan the deliveries
	// as a full download would, then download the files of each planned
	// file or delivery not imported whole.
	pullDeliveries
)

// chooseMode decides the pull from the objects' states, whether any listed
// object is a manifest, and which recorded objects are gone from the
// listing (gone) and whether one of them was a manifest.
func chooseMode(states []state, manifests bool, gone int, manifestGone bool) pullMode {
	if !manifests && !manifestGone {
		return pullLoose
	}
	if gone > 0 {
		// A delivery's file or manifest gone changes what the planning
		// chooses, or makes it refuse the delivery: plan again.
		return pullDeliveries
	}
	for _, s := range states {
		if s != isImported && s != isLeftOut {
			return pullDeliveries
		}
	}
	return pullNothing
}

// Imported records that the import of the planned file at path succeeded:
// stored says its bytes are in the database now (imported, or the same
// bytes as a file imported before), else it changed nothing (superseded,
// or charges another file holds). A file not downloaded by an incremental
// pull is no one's concern here.
func (p *Plan) Imported(path string, stored bool) {
	rec, ok := p.pending[path]
	if !ok {
		return
	}
	delete(p.pending, path)
	rec.Outcome = Unchanged
	if stored {
		rec.Outcome = Stored
	}
	p.done = append(p.done, rec)
}

// Record writes what the pull saw: the imports that succeeded, those that
// failed (or were never tried), what the planning left out, and forgets
// the objects gone. Only a success keeps an object from being downloaded
// again; a failure is recorded so that the next pull can say so.
func (p *Plan) Record(ctx context.Context) error {
	if p == nil || p.seen == nil {
		return nil
	}
	recs := append(p.leftOut, p.done...)
	for _, rec := range p.pending {
		rec.Outcome = Failed
		recs = append(recs, rec)
	}
	clear(p.pending)
	if err := p.seen.RecordSeen(ctx, recs, p.forget); err != nil {
		return err
	}
	p.leftOut, p.done, p.forget = nil, nil, nil
	return nil
}
