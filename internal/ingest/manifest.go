package ingest

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"
)

// Cloud billing exports arrive as deliveries: data files plus a manifest
// that lists them. A billing period is delivered again and again (restated)
// until it is final, each time completely, so only the latest delivery of a
// period may be imported, and importing it must replace the earlier one.
//
//	AWS CUR (legacy)   <prefix>/<report>/<YYYYMMDD-YYYYMMDD>/<report>-Manifest.json  (assemblyId, account,
//	                   billingPeriod, reportKeys); the same manifest also sits in each <assemblyId>/ folder
//	AWS Data Exports   <prefix>/<export>/metadata/BILLING_PERIOD=YYYY-MM/<export>-Manifest.json
//	(CUR 2.0, FOCUS)   (executionId, exportArn, dataFiles as s3:// URIs)
//	Azure exports      <root>/<export>/<YYYYMMDD-YYYYMMDD>/[<timestamp>/]<runId>/manifest.json
//	                   (blobs[].blobName; newer ones add exportConfig and runInfo)
//
// Keys and URIs in a manifest are paths in the bucket or container; they are
// resolved against the manifest's folder and the folders above it, so a
// synced copy of the bucket, or of any part of it that holds the delivery,
// works.

// Manifest kinds.
const (
	ManifestCUR         = "aws-cur"
	ManifestDataExports = "aws-data-exports"
	ManifestAzure       = "azure"
)

// Manifest is one delivery of one billing period.
type Manifest struct {
	Path     string // the manifest file
	Kind     string // ManifestCUR, ManifestDataExports or ManifestAzure
	Period   string // restatement key: kind, billing scope and month, e.g. "aws-cur:123456789012:2025-01"
	Delivery string // the delivery's id: assembly, execution or run id
	// Files are the delivery's data files as local paths, in manifest order.
	Files []string
	// Time orders deliveries of one period: the run's time when the manifest
	// or its folder names one, else the manifest file's modification time.
	Time time.Time
	// CostType is Azure's ActualCost or AmortizedCost when the manifest says.
	CostType string
	// Root is the folder the delivery lives in; files under it that the
	// chosen delivery does not list belong to other deliveries.
	Root string

	periodLevel bool  // a CUR manifest in the period folder (always the latest)
	err         error // why the delivery cannot be imported (PlanDeliveries)
}

// IsManifestName reports whether a file name is a billing-export manifest:
// <report>-Manifest.json (AWS) or manifest.json / _manifest.json (Azure).
func IsManifestName(p string) bool {
	b := strings.ToLower(filepath.Base(p))
	return b == "manifest.json" || b == "_manifest.json" || strings.HasSuffix(b, "-manifest.json")
}

// maxManifestBytes bounds a manifest; real ones list a few hundred files.
const maxManifestBytes = 64 << 20

// manifestJSON holds the fields of every kind of manifest.
type manifestJSON struct {
	// AWS CUR
	AssemblyID    string          `json:"assemblyId"`
	Account       string          `json:"account"`
	ReportName    string          `json:"reportName"`
	BillingPeriod json.RawMessage `json:"billingPeriod"`
	ReportKeys    []string        `json:"reportKeys"`
	// AWS Data Exports
	ExecutionID string   `json:"executionId"`
	ExportARN   string   `json:"exportArn"`
	DataFiles   []string `json:"dataFiles"`
	// Azure
	ManifestVersion string `json:"manifestVersion"`
	Blobs           []struct {
		BlobName  string `json:"blobName"`
		ByteCount int64  `json:"byteCount"`
	} `json:"blobs"`
	ExportConfig struct {
		ExportName string `json:"exportName"`
		ResourceID string `json:"resourceId"`
		Type       string `json:"type"`
	} `json:"exportConfig"`
	RunInfo struct {
		RunID         string `json:"runId"`
		SubmittedTime string `json:"submittedTime"`
		StartDate     string `json:"startDate"`
	} `json:"runInfo"`
}

var (
	rangeDir     = regexp.MustCompile(`^(\d{4})(\d{2})\d{2}-\d{8}$`)
	periodDir    = regexp.MustCompile(`^BILLING_PERIOD=(\d{4}-\d{2})$`)
	timestampDir = regexp.MustCompile(`^(\d{12}|\d{14}|\d{8}T\d{6}Z?)$`)
)

// ReadManifest reads a manifest and resolves its data files. A manifest that
// lists files which are not there returns the Manifest (with Period and
// Delivery) and an error naming the first missing file.
func ReadManifest(p string) (*Manifest, error) { return readManifest(p, "") }

// readManifest is ReadManifest with the data files confined to the folder
// within ("" = no limit): a manifest in a synced folder is bucket data, and
// must not make finops import local files from outside that folder.
func readManifest(p, within string) (*Manifest, error) {
	f, err := openRegular(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	b, err := io.ReadAll(io.LimitReader(f, maxManifestBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	if len(b) > maxManifestBytes {
		return nil, fmt.Errorf("%s: a manifest larger than %d MiB; is this a billing-export manifest?", p, maxManifestBytes>>20)
	}
	var mj manifestJSON
	if err := json.Unmarshal(b, &mj); err != nil {
		return nil, fmt.Errorf("%s: not a billing-export manifest: %v; pass the data files instead, or fix the file", p, err)
	}
	m := &Manifest{Path: p, Time: st.ModTime().UTC()}
	var keys []string
	var sizes []int64
	switch {
	case mj.ReportKeys != nil || mj.AssemblyID != "":
		err = m.fromCUR(&mj)
		keys = mj.ReportKeys
	case mj.DataFiles != nil || mj.ExecutionID != "":
		err = m.fromDataExports(&mj)
		keys = mj.DataFiles
	case mj.Blobs != nil || mj.ManifestVersion != "":
		err = m.fromAzure(&mj)
		for _, bl := range mj.Blobs {
			keys, sizes = append(keys, bl.BlobName), append(sizes, bl.ByteCount)
		}
	default:
		return nil, fmt.Errorf("%s: not a billing-export manifest: expected an AWS CUR manifest (reportKeys), "+
			"an AWS Data Exports manifest (dataFiles) or an Azure export manifest (blobs)", p)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	if len(keys) == 0 {
		return m, fmt.Errorf("%s: the manifest lists no data files (%s %s): nothing to import; wait for the export to finish", p, m.Kind, m.Period)
	}
	dir := filepath.Dir(p)
	for i, k := range keys {
		local, err := resolveKey(dir, k, within)
		var notRegular *NotRegularError
		if errors.As(err, &notRegular) {
			return m, fmt.Errorf("%s: lists %s: %w", p, k, err)
		}
		if err != nil {
			return m, fmt.Errorf("%s: lists %s, which is not here: %v; copy the whole delivery (e.g. aws s3 sync, azcopy) and ingest again", p, k, err)
		}
		if i < len(sizes) && sizes[i] > 0 {
			if fi, err := os.Stat(local); err == nil && fi.Size() != sizes[i] {
				return m, fmt.Errorf("%s: %s has %d bytes but the manifest says %d: the copy is incomplete; download it again", p, local, fi.Size(), sizes[i])
			}
		}
		m.Files = append(m.Files, local)
	}
	m.Root = commonDir(append([]string{dir}, m.Files...))
	// Older deliveries of the period sit next to this one: the period
	// folder (AWS CUR, Azure) is the delivery's home.
	for d := m.Root; ; d = filepath.Dir(d) {
		if rangeDir.MatchString(filepath.Base(d)) {
			m.Root = d
			break
		}
		if d == filepath.Dir(d) {
			break
		}
	}
	return m, nil
}

func (m *Manifest) fromCUR(mj *manifestJSON) error {
	m.Kind = ManifestCUR
	start, err := billingPeriodStart(mj.BillingPeriod)
	if err != nil {
		return err
	}
	scope := cmp.Or(mj.Account, mj.ReportName, "report")
	m.Period = fmt.Sprintf("%s:%s:%s", ManifestCUR, scope, start)
	m.Delivery = mj.AssemblyID
	if m.Delivery == "" {
		return errors.New("the manifest has no assemblyId: cannot tell its delivery; is it complete?")
	}
	m.periodLevel = rangeDir.MatchString(filepath.Base(filepath.Dir(m.Path)))
	for _, k := range mj.ReportKeys {
		if t, ok := timeFromDirs(path.Dir(k)); ok {
			m.Time = t
			break
		}
	}
	return nil
}

func (m *Manifest) fromDataExports(mj *manifestJSON) error {
	m.Kind = ManifestDataExports
	month := ""
	if len(mj.BillingPeriod) > 0 {
		s, err := billingPeriodStart(mj.BillingPeriod)
		if err != nil {
			return err
		}
		month = s
	}
	if month == "" {
		for _, k := range append([]string{filepath.ToSlash(m.Path)}, mj.DataFiles...) {
			for _, seg := range strings.Split(k, "/") {
				if sm := periodDir.FindStringSubmatch(seg); sm != nil {
					month = sm[1]
				}
			}
			if month != "" {
				break
			}
		}
	}
	if month == "" {
		return errors.New("cannot tell the billing period: no billingPeriod and no BILLING_PERIOD=YYYY-MM folder in the paths")
	}
	scope := mj.ExportARN
	if scope == "" {
		scope = strings.TrimSuffix(strings.TrimSuffix(filepath.Base(m.Path), "-Manifest.json"), "-manifest.json")
	}
	m.Period = fmt.Sprintf("%s:%s:%s", ManifestDataExports, scope, month)
	m.Delivery = mj.ExecutionID
	if m.Delivery == "" {
		return errors.New("the manifest has no executionId: cannot tell its delivery; is it complete?")
	}
	return nil
}

func (m *Manifest) fromAzure(mj *manifestJSON) error {
	m.Kind = ManifestAzure
	m.CostType = mj.ExportConfig.Type
	var rangeSeg, prefix, after string
	if len(mj.Blobs) > 0 {
		segs := strings.Split(strings.Trim(mj.Blobs[0].BlobName, "/"), "/")
		for i, s := range segs {
			if rangeDir.MatchString(s) {
				rangeSeg = s
				prefix = strings.Join(segs[:i], "/")
				if i+1 < len(segs)-1 {
					after = strings.Join(segs[i+1:len(segs)-1], "/")
				}
				break
			}
		}
	}
	month := ""
	if t, err := parseTime(mj.RunInfo.StartDate, time.UTC); err == nil {
		month = monthOf(t)
	} else if sm := rangeDir.FindStringSubmatch(rangeSeg); sm != nil {
		month = sm[1] + "-" + sm[2]
	}
	if month == "" {
		return errors.New("cannot tell the billing period: no runInfo.startDate and no YYYYMMDD-YYYYMMDD folder in the blob names")
	}
	scope := strings.ToLower(mj.ExportConfig.ResourceID)
	if scope == "" {
		scope = prefix
	}
	if scope == "" {
		scope = filepath.Base(filepath.Dir(filepath.Dir(m.Path)))
	}
	m.Period = fmt.Sprintf("%s:%s:%s", ManifestAzure, scope, month)
	m.Delivery = cmp.Or(mj.RunInfo.RunID, after)
	if m.Delivery == "" {
		m.Delivery = filepath.Base(filepath.Dir(m.Path))
	}
	if m.CostType != "" {
		m.Delivery = m.CostType + ":" + m.Delivery
	}
	if t, err := parseTime(mj.RunInfo.SubmittedTime, time.UTC); err == nil {
		m.Time = t
	} else if t, ok := timeFromDirs(after); ok {
		m.Time = t
	}
	return nil
}

// billingPeriodStart reads a manifest's billingPeriod ({"start":
// "20250101T000000.000Z", …} or a plain "2025-01") as YYYY-MM.
func billingPeriodStart(raw json.RawMessage) (string, error) {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		var bp struct {
			Start string `json:"start"`
		}
		if json.Unmarshal(raw, &bp) != nil {
			return "", fmt.Errorf("billingPeriod: expected {\"start\": \"20250101T000000.000Z\", …}, found %s", found(string(raw)))
		}
		s = bp.Start
	}
	s = strings.TrimSpace(s)
	if len(s) >= 8 && !strings.ContainsAny(s[:8], "-/") {
		// 20250101T000000.000Z
		s = s[:4] + "-" + s[4:6] + "-" + s[6:8]
	}
	if len(s) == 7 {
		s += "-01"
	}
	t, err := parseTime(s[:min(len(s), 10)], time.UTC)
	if err != nil {
		return "", fmt.Errorf("billingPeriod: expected a start like 20250101T000000.000Z, found %s", found(s))
	}
	return monthOf(t), nil
}

// timeFromDirs finds a delivery timestamp folder (202301041442,
// 20250112T050301Z) in a slash-separated path.
func timeFromDirs(p string) (time.Time, bool) {
	for _, seg := range strings.Split(p, "/") {
		if !timestampDir.MatchString(seg) {
			continue
		}
		for _, layout := range []string{"200601021504", "20060102150405", "20060102T150405Z", "20060102T150405"} {
			if t, err := time.Parse(layout, seg); err == nil {
				return t, true
			}
		}
	}
	return time.Time{}, false
}

// resolveKey finds the local copy of a bucket key or URI: the longest tail
// of its path that exists under the manifest's folder or a folder above it.
// A bare file name is looked for only next to the manifest.
func resolveKey(dir, key, within string) (string, error) {
	k := key
	if i := strings.Index(k, "://"); i >= 0 {
		k = k[i+3:]
		if j := strings.IndexByte(k, '/'); j >= 0 {
			k = k[j+1:] // drop the bucket
		}
	}
	k = path.Clean("/" + strings.ReplaceAll(k, `\`, "/"))[1:]
	if k == "" || k == "." {
		return "", errors.New("an empty file name")
	}
	parts := strings.Split(k, "/")
	var tried []string
	for i := range parts {
		tail := filepath.FromSlash(strings.Join(parts[i:], "/"))
		// The manifest sits at most as deep in the bucket as the key is long:
		// never climb further than that.
		d := dir
		for up := 0; up < len(parts); up++ {
			if within != "" && !isWithin(d, within) {
				break
			}
			cand := filepath.Join(d, tail)
			if fi, err := os.Stat(cand); err == nil {
				// A FIFO or device under the listed name is refused, not
				// passed over for a file higher up.
				if err := checkMode(cand, fi.Mode()); err != nil {
					return cand, err
				}
				// A manifest named by hand has no source folder
				// (within ""): the folder the key was found under
				// is the one its file may not lead out of, so that
				// no file outside it is read, nor quoted in an error.
				root := within
				if root == "" {
					root = d
				}
				return cand, linkWithin(cand, root)
			}
			if len(tried) < 2 {
				tried = append(tried, cand)
			}
			if i == len(parts)-1 || d == filepath.Dir(d) {
				break
			}
			d = filepath.Dir(d)
		}
	}
	return "", fmt.Errorf("looked for %s", strings.Join(tried, " and "))
}

// linkWithin refuses a listed file that is a symbolic link leading out of
// the folder the source names: a manifest is bucket data, and a link in a
// synced folder (to /etc/passwd, to ~/.aws/credentials) must not make
// finops read, and quote in its errors, a local file.
func linkWithin(p, within string) error {
	target, err := filepath.EvalSymlinks(p)
	if err != nil {
		return err
	}
	root, err := filepath.EvalSymlinks(within)
	if err != nil {
		return err
	}
	if !isWithin(filepath.Dir(target), root) {
		return fmt.Errorf("%s leads to %s, outside %s: a delivery's files must be inside the folder the source names; copy the file there", p, target, within)
	}
	return nil
}

// isWithin reports whether folder d is root or inside it.
func isWithin(d, root string) bool {
	rel, err := filepath.Rel(filepath.Clean(root), filepath.Clean(d))
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// commonDir is the deepest folder that holds all paths.
func commonDir(paths []string) string {
	if len(paths) == 0 {
		return ""
	}
	c := filepath.Clean(paths[0])
	for _, p := range paths[1:] {
		p = filepath.Clean(p)
		for c != filepath.Dir(c) && !(p == c || strings.HasPrefix(p, c+string(filepath.Separator))) {
			c = filepath.Dir(c)
		}
	}
	return c
}

// PlannedFile is one file to import, with the delivery it belongs to.
type PlannedFile struct {
	Path     string
	Period   string // "" for files outside any manifest's delivery
	Delivery string
	Manifest string
	CostType string
}

// DeliveryPlan is what to import from a list of files that may hold
// manifests: every file outside any delivery, and for each billing period
// the files of its latest delivery only.
type DeliveryPlan struct {
	Files   []PlannedFile
	Skipped []string // data files of older (or unlisted) deliveries, left out
	Notes   []string // one line per period: which delivery was chosen
	Errs    []error  // manifests that could not be used; their periods import nothing
}

// PlanDeliveries chooses what to import from files (a folder's listing): the
// manifests among them are read, the latest per billing period is chosen
// (the period-folder manifest of a CUR report, else the latest run time,
// else the newest manifest file), and only its files are imported, with
// the period and delivery set so the store can replace earlier deliveries.
// Files under a delivery's folder that the chosen manifest does not list
// are skipped; files outside every delivery are imported as they are.
func PlanDeliveries(files []string) *DeliveryPlan { return PlanDeliveriesWithin(files, "") }

// PlanDeliveriesWithin is PlanDeliveries with every manifest's data files
// confined to the folder within: pass the folder (or the glob's base folder)
// the user named, so a hostile manifest cannot pull in files from elsewhere.
func PlanDeliveriesWithin(files []string, within string) *DeliveryPlan {
	plan := &DeliveryPlan{}
	var manifests []*Manifest
	var roots []string
	for _, f := range files {
		if !IsManifestName(f) {
			continue
		}
		m, err := readManifest(f, within)
		if m == nil {
			plan.Errs = append(plan.Errs, err)
			roots = append(roots, filepath.Dir(f))
			continue
		}
		if m.Root == "" {
			m.Root = filepath.Dir(f)
		}
		roots = append(roots, m.Root)
		if err != nil {
			m.Files, m.err = nil, err
		}
		manifests = append(manifests, m)
	}
	best := map[string]*Manifest{}
	for _, m := range manifests {
		if b := best[m.Period]; b == nil || newerDelivery(m, b) {
			best[m.Period] = m
		}
	}
	periods := make([]string, 0, len(best))
	for p := range best {
		periods = append(periods, p)
	}
	sort.Strings(periods)
	chosen := map[string]bool{}
	var delivered []PlannedFile
	for _, p := range periods {
		m := best[p]
		if m.err != nil {
			plan.Errs = append(plan.Errs, fmt.Errorf("%w (the latest delivery of %s: nothing of that period imported)", m.err, p))
			continue
		}
		others := 0
		for _, o := range manifests {
			if o.Period == p && o.Delivery != m.Delivery {
				others++
			}
		}
		note := fmt.Sprintf("%s: %s delivery %s, %d file(s)", m.Path, p, m.Delivery, len(m.Files))
		if others > 0 {
			note += fmt.Sprintf("; %d older deliver%s of the period left out", others, map[bool]string{true: "y", false: "ies"}[others == 1])
		}
		plan.Notes = append(plan.Notes, note)
		for _, f := range m.Files {
			if chosen[filepath.Clean(f)] {
				continue
			}
			chosen[filepath.Clean(f)] = true
			delivered = append(delivered, PlannedFile{Path: f, Period: m.Period, Delivery: m.Delivery, Manifest: m.Path, CostType: m.CostType})
		}
	}
	for _, f := range files {
		c := filepath.Clean(f)
		switch {
		case IsManifestName(f), chosen[c]:
		case slices.ContainsFunc(roots, func(r string) bool { return c == r || strings.HasPrefix(c, r+string(filepath.Separator)) }):
			plan.Skipped = append(plan.Skipped, f)
		default:
			plan.Files = append(plan.Files, PlannedFile{Path: f})
		}
	}
	plan.Files = append(plan.Files, delivered...)
	return plan
}

// newerDelivery orders two manifests of one period: a CUR period-folder
// manifest wins (AWS rewrites it for every delivery), then the later time,
// then the later path.
func newerDelivery(a, b *Manifest) bool {
	if a.periodLevel != b.periodLevel {
		return a.periodLevel
	}
	if !a.Time.Equal(b.Time) {
		return a.Time.After(b.Time)
	}
	return a.Path > b.Path
}
