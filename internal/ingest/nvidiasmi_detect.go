package ingest

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// smiDetectRows is how many rows of a headerless nvidia-smi log are read to
// tell its fields from their values.
const smiDetectRows = 50

// smiFieldsFix is what a refusal to detect the fields tells the user to do.
const smiFieldsFix = "give --fields (fields: in utilization.nvidia_smi[] of the config) with the logger's --query-gpu list, " +
	"e.g. --fields timestamp,name,pci.bus_id,index,uuid,utilization.gpu,memory.total,memory.used,power.draw"

// smiShape is what the values of one column look like.
type smiShape int

const (
	shapeNull  smiShape = iota // no value: [N/A], [Not Supported], empty
	shapeTime                  // 2026/07/14 08:12:53.353
	shapeUUID                  // GPU-… or MIG-…
	shapeBusID                 // 00000000:07:00.0
	shapeName                  // NVIDIA H100 80GB HBM3, Tesla V100-SXM2-16GB
	shapePct                   // 87 %
	shapeMiB                   // 19818 MiB
	shapeWatt                  // 631.95 W
	shapeUnit                  // a number with another unit (1980 MHz)
	shapeInt                   // a bare whole number
	shapeDec                   // a bare number with a fraction (631.95)
	shapeText                  // anything else, or values of several shapes
)

var (
	smiTimeRE  = regexp.MustCompile(`^\d{4}/\d{2}/\d{2} \d{2}:\d{2}:\d{2}(\.\d+)?$`)
	smiBusIDRE = regexp.MustCompile(`^[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-9A-Fa-f]$`)
	smiIntRE   = regexp.MustCompile(`^\d+$`)
	smiDecRE   = regexp.MustCompile(`^\d+\.\d+$`)
)

func valueShape(v string) smiShape {
	switch {
	case isNullNumber(v):
		return shapeNull
	case smiTimeRE.MatchString(v):
		return shapeTime
	case strings.HasPrefix(v, "GPU-") || strings.HasPrefix(v, "MIG-"):
		return shapeUUID
	case smiBusIDRE.MatchString(v):
		return shapeBusID
	case smiIntRE.MatchString(v):
		return shapeInt
	case smiDecRE.MatchString(v):
		return shapeDec
	}
	if num, unit, ok := strings.Cut(v, " "); ok && (smiIntRE.MatchString(num) || smiDecRE.MatchString(num)) {
		switch unit {
		case "%":
			return shapePct
		case "MiB":
			return shapeMiB
		case "W":
			return shapeWatt
		}
		return shapeUnit
	}
	for _, p := range []string{"NVIDIA ", "Tesla ", "Quadro ", "GeForce ", "TITAN "} {
		if strings.HasPrefix(v, p) {
			return shapeName
		}
	}
	return shapeText
}

// smiColumnStats is what detection knows of one column.
type smiColumnStats struct {
	shape    smiShape
	min, max float64
	perGPU   bool // one value per GPU over the rows read
	distinct bool // different GPUs have different values
}

// detectSMIFields names the columns of a headerless nvidia-smi log from the
// values of its first rows: the finops order when they fit it, otherwise each
// field finops reads where exactly one column can hold it. Columns finops does
// not read get no name. It never picks between two columns that could both
// hold a field (memory.used and memory.total without units, utilization and
// index, two percentages): it returns why instead.
func detectSMIFields(rows [][]string) ([]string, string) {
	width := len(rows[0])
	var same [][]string
	for _, r := range rows {
		if len(r) == width {
			same = append(same, r)
		}
	}
	cols := make([]smiColumnStats, width)
	for i := range cols {
		cols[i].shape = columnShape(same, i)
	}
	if def := defaultSMIColumns(); width == len(def) && fitsDefault(cols) {
		return def, ""
	}
	n := &smiNamer{cols: cols, names: make([]string, width)}
	uuid, bus, why := n.identities()
	if why != "" {
		return nil, why
	}
	key := uuid
	if key < 0 {
		key = bus
	}
	for i := range cols {
		gpuStats(&cols[i], same, i, key)
	}
	if why := n.measures(same); why != "" {
		return nil, why
	}
	if why := n.leftovers(uuid, bus); why != "" {
		return nil, why
	}
	return n.names, ""
}

// smiNamer names a headerless log's columns as detectSMIFields finds them.
type smiNamer struct {
	cols  []smiColumnStats
	names []string
}

// only names the one column of one of the shapes field; -1 when none,
// and why when two columns could both hold it.
func (n *smiNamer) only(field string, shapes ...smiShape) (int, string) {
	at := -1
	for i, c := range n.cols {
		for _, s := range shapes {
			if c.shape == s {
				if at >= 0 {
					return -1, fmt.Sprintf("columns %d and %d both look like %s", at+1, i+1, field)
				}
				at = i
			}
		}
	}
	if at >= 0 {
		n.names[at] = field
	}
	return at, ""
}

// identities names the timestamp (required), uuid, pci.bus_id and name
// columns, returning the uuid's and bus id's (-1 when absent).
func (n *smiNamer) identities() (uuid, bus int, why string) {
	if at, why := n.only("timestamp", shapeTime); why != "" || at < 0 {
		return -1, -1, cmp.Or(why, "no column holds "+smiTimeExample)
	}
	if uuid, why = n.only("uuid", shapeUUID); why != "" {
		return -1, -1, why
	}
	if bus, why = n.only("pci.bus_id", shapeBusID); why != "" {
		return -1, -1, why
	}
	if _, why := n.only("name", shapeName); why != "" {
		return -1, -1, why
	}
	return uuid, bus, ""
}

// measures names the measure columns, by their units when the log has
// them, else by their values.
func (n *smiNamer) measures(same [][]string) string {
	units := false
	for _, c := range n.cols {
		units = units || c.shape == shapePct || c.shape == shapeMiB || c.shape == shapeWatt
	}
	if units {
		return detectWithUnits(n.cols, n.names, n.only)
	}
	return detectBare(n.cols, n.names, same, n.only)
}

// leftovers refuses a log with whole numbers no field took (which field
// they are would be a guess) or nothing that tells its GPUs apart.
func (n *smiNamer) leftovers(uuid, bus int) string {
	for i, c := range n.cols {
		if c.shape == shapeInt && n.names[i] == "" {
			return fmt.Sprintf("column %d holds whole numbers (%s) that could be more than one field", i+1, fmtRange(c))
		}
	}
	if uuid < 0 && bus < 0 && !slices.Contains(n.names, "index") {
		return "no column holds a GPU uuid (GPU-…), a GPU index or a pci.bus_id (00000000:00:09.0) that tells the GPUs apart"
	}
	return ""
}

// detectWithUnits names the measures of a log written with units: the %
// column is utilization.gpu, the W column power.draw, and of two MiB columns
// memory.total is the one that holds one value per GPU and is never below
// the other. Bare whole numbers can only be the GPU index there.
func detectWithUnits(cols []smiColumnStats, names []string, only func(string, ...smiShape) (int, string)) string {
	if _, why := only("utilization.gpu", shapePct); why != "" {
		return why + " (utilization.gpu and utilization.memory?)"
	}
	if _, why := only("power.draw", shapeWatt); why != "" {
		return why
	}
	var mib []int
	for i, c := range cols {
		if c.shape == shapeMiB {
			mib = append(mib, i)
		}
	}
	switch len(mib) {
	case 0:
	case 2:
		if why := memoryPair(cols, names, mib[0], mib[1]); why != "" {
			return why
		}
	default:
		return fmt.Sprintf("%d columns hold MiB; finops tells memory.total from memory.used only when there are two", len(mib))
	}
	return indexColumn(cols, names)
}

// detectBare names the measures of a nounits log. power.draw is the one
// number with a fraction (nvidia-smi prints watts with two decimals);
// memory.total is whole numbers of at least 1024 (MiB), one per GPU;
// memory.used never exceeds it and goes above 100 somewhere;
// utilization.gpu stays within 0–100 and changes on some GPU; the index is
// below 64, one per GPU and different between GPUs.
func detectBare(cols []smiColumnStats, names []string, rows [][]string, only func(string, ...smiShape) (int, string)) string {
	if _, why := only("power.draw", shapeDec); why != "" {
		return why
	}
	pick := func(field string, ok func(i int, c smiColumnStats) bool) (int, string) {
		at := -1
		for i, c := range cols {
			if c.shape != shapeInt || !ok(i, c) {
				continue
			}
			if names[i] != "" {
				return -1, fmt.Sprintf("column %d could be %s or %s", i+1, names[i], field)
			}
			if at >= 0 {
				return -1, fmt.Sprintf("columns %d and %d both look like %s", at+1, i+1, field)
			}
			at = i
		}
		return at, ""
	}
	total, why := pick("memory.total", func(_ int, c smiColumnStats) bool { return c.min >= 1024 && c.perGPU })
	if why != "" {
		return why
	}
	if total >= 0 {
		names[total] = "memory.total"
		used, why := pick("memory.used", func(i int, c smiColumnStats) bool {
			return i != total && c.max > 100 && neverAbove(rows, i, total)
		})
		if why != "" {
			return why
		}
		if used >= 0 {
			names[used] = "memory.used"
		}
	}
	util, why := pick("utilization.gpu", func(_ int, c smiColumnStats) bool { return c.max <= 100 && !c.perGPU })
	if why != "" {
		return why
	}
	if util >= 0 {
		names[util] = "utilization.gpu"
	}
	return indexColumn(cols, names)
}

// indexColumn names the one bare whole-number column that can be the GPU
// index, refusing two, or one that could also be a measure.
func indexColumn(cols []smiColumnStats, names []string) string {
	at := -1
	for i, c := range cols {
		if c.shape != shapeInt || c.max >= 64 || !c.perGPU || !c.distinct {
			continue
		}
		if names[i] != "" {
			return fmt.Sprintf("column %d could be %s or index", i+1, names[i])
		}
		if at >= 0 {
			return fmt.Sprintf("columns %d and %d both look like index (%s and %s)", at+1, i+1, fmtRange(cols[at]), fmtRange(c))
		}
		at = i
	}
	if at >= 0 {
		names[at] = "index"
	}
	return ""
}

// memoryPair names two MiB columns: memory.total holds one value per GPU and
// is never below the other.
func memoryPair(cols []smiColumnStats, names []string, a, b int) string {
	total := func(x, y int) bool { return cols[x].perGPU && cols[x].min >= cols[y].max }
	switch {
	case total(a, b) && !total(b, a):
		names[a], names[b] = "memory.total", "memory.used"
	case total(b, a) && !total(a, b):
		names[b], names[a] = "memory.total", "memory.used"
	default:
		return fmt.Sprintf("columns %d and %d hold MiB and neither is plainly memory.total (one value per GPU, never below the other)", a+1, b+1)
	}
	return ""
}

// columnShape is the one shape of a column's values, shapeNull when it has
// none, shapeText when they differ.
func columnShape(rows [][]string, i int) smiShape {
	shape := shapeNull
	for _, r := range rows {
		s := valueShape(strings.TrimSpace(r[i]))
		switch {
		case s == shapeNull:
		case shape == shapeNull:
			shape = s
		case s != shape:
			return shapeText
		}
	}
	return shape
}

// gpuStats fills the range of a numeric column and whether it holds one
// value per GPU (told apart by column key; all rows are one GPU without it)
// and different values for different GPUs.
func gpuStats(c *smiColumnStats, rows [][]string, i, key int) {
	byGPU, owner := map[string]string{}, map[string]string{}
	c.perGPU, c.distinct = true, true
	first := true
	for _, r := range rows {
		v := strings.TrimSpace(r[i])
		f, err := parseMeasure(v)
		if isNullNumber(v) || err != nil {
			continue
		}
		if first || f < c.min {
			c.min = f
		}
		if first || f > c.max {
			c.max = f
		}
		first = false
		g := ""
		if key >= 0 {
			g = strings.TrimSpace(r[key])
		}
		if prev, ok := byGPU[g]; ok && prev != v {
			c.perGPU = false
		}
		byGPU[g] = v
		if o, ok := owner[v]; ok && o != g {
			c.distinct = false
		}
		owner[v] = g
	}
}

// neverAbove reports whether column i is at most column j in every row
// where both hold a number.
func neverAbove(rows [][]string, i, j int) bool {
	for _, r := range rows {
		a, errA := parseMeasure(strings.TrimSpace(r[i]))
		b, errB := parseMeasure(strings.TrimSpace(r[j]))
		if errA == nil && errB == nil && a > b {
			return false
		}
	}
	return true
}

// fitsDefault reports whether every column's values fit the field of the
// finops order in its place.
func fitsDefault(cols []smiColumnStats) bool {
	fits := [][]smiShape{{shapeTime}, {shapeName, shapeText}, {shapeBusID}, {shapeInt}, {shapeUUID},
		{shapePct, shapeInt}, {shapePct, shapeInt}, {shapeMiB, shapeInt}, {shapeMiB, shapeInt}, {shapeWatt, shapeDec, shapeInt}}
	for i, c := range cols {
		if c.shape != shapeNull && !slices.Contains(fits[i], c.shape) {
			return false
		}
	}
	return true
}

func fmtRange(c smiColumnStats) string {
	if c.min == c.max {
		return strconv.FormatFloat(c.min, 'f', -1, 64)
	}
	return strconv.FormatFloat(c.min, 'f', -1, 64) + "–" + strconv.FormatFloat(c.max, 'f', -1, 64)
}
