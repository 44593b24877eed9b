package ingest

import (
	"encoding/json"
	"fmt"
	"math/big"
	"strconv"
	"time"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
)

// parquetColumn turns one top-level field of a Parquet schema into the text
// the same column has in the exporter's CSV: numbers in plain decimal
// notation (DECIMAL exactly, from its unscaled integer), timestamps in RFC
// 3339 UTC, maps (CUR 2.0's product and resource_tags) and lists as JSON
// text, null as an empty cell.
type parquetColumn struct {
	name string
	// leaf: the column of a scalar field; for a map its key and value
	// columns, for a list its element column.
	leaf, key, value int
	kind             parquetKind
	text             func(parquet.Value) string // of leaf, or of value/element
	keyText          func(parquet.Value) string
}

type parquetKind int

const (
	parquetScalar parquetKind = iota
	parquetMap
	parquetList
	parquetSkipped // a nested group finops does not read: an empty cell
)

// parquetColumns lays out the top-level fields of a schema; leaf columns are
// numbered depth first, as Parquet stores them.
func parquetColumns(s *parquet.Schema, name string) (cols []parquetColumn, leaves int, warnings []string, perr *ParseError) {
	for _, f := range s.Fields() {
		c := parquetColumn{name: f.Name(), leaf: leaves}
		var leafNodes []parquet.Node
		collectLeaves(f, &leafNodes)
		switch {
		case f.Leaf():
			c.text = parquetText(f.Type())
		case len(leafNodes) == 2 && repeatedInside(f):
			c.kind, c.key, c.value = parquetMap, leaves, leaves+1
			c.keyText, c.text = parquetText(leafNodes[0].Type()), parquetText(leafNodes[1].Type())
		case len(leafNodes) == 1 && repeatedInside(f):
			c.kind, c.value = parquetList, leaves
			c.text = parquetText(leafNodes[0].Type())
		default:
			c.kind = parquetSkipped
			warnings = append(warnings, fmt.Sprintf("column %q is a nested Parquet group (not a map or a list); it was left empty", f.Name()))
		}
		for _, n := range leafNodes {
			if d, ok := decimalType(n.Type()); ok && (d.Scale < 0 || d.Scale > maxDecimalScale) {
				return nil, 0, nil, &ParseError{File: name, Field: f.Name(),
					Msg: fmt.Sprintf("DECIMAL(%d,%d): a scale outside 0..%d is not a money column; check how the file was written", d.Precision, d.Scale, maxDecimalScale)}
			}
		}
		leaves += len(leafNodes)
		if leaves > maxParquetColumns {
			return nil, 0, nil, &ParseError{File: name, Field: f.Name(),
				Msg: fmt.Sprintf("the Parquet schema has more than %d columns (%d top-level fields): no billing export has that many; the file is not an export, or its tags are columns by mistake: check where it came from", maxParquetColumns, len(s.Fields()))}
		}
		cols = append(cols, c)
	}
	return cols, leaves, warnings, nil
}

// maxDecimalScale bounds the digits after the point of a DECIMAL column
// (exporters write at most 38), so a hostile footer cannot make one cell
// megabytes long.
const maxDecimalScale = 100

func decimalType(t parquet.Type) (*format.DecimalType, bool) {
	if l := t.LogicalType(); l != nil {
		d, ok := l.Value.(*format.DecimalType)
		return d, ok
	}
	return nil, false
}

func collectLeaves(n parquet.Node, out *[]parquet.Node) {
	if n.Leaf() {
		*out = append(*out, n)
		return
	}
	for _, f := range n.Fields() {
		collectLeaves(f, out)
	}
}

// repeatedInside reports a group holding a repeated node: the shape of a
// MAP (group → repeated key_value → key, value) and of a LIST.
func repeatedInside(n parquet.Node) bool {
	if n.Repeated() {
		return true
	}
	for _, f := range n.Fields() {
		if repeatedInside(f) {
			return true
		}
	}
	return false
}

// size is how many bytes the column's text in the current row will take
// at least, and how many entries a map or list holds: counted from the
// decoded values' lengths, before any text is built.
func (c *parquetColumn) size(values [][]parquet.Value) (bytes, entries int) {
	switch c.kind {
	case parquetScalar:
		if v := values[c.leaf]; len(v) > 0 {
			return valueBytes(v[0]), 1
		}
	case parquetMap:
		for i, k := range values[c.key] {
			bytes += valueBytes(k) + 6 // "k":"v",
			if i < len(values[c.value]) {
				bytes += valueBytes(values[c.value][i])
			}
		}
		return bytes, len(values[c.key])
	case parquetList:
		for _, v := range values[c.value] {
			bytes += valueBytes(v) + 3
		}
		return bytes, len(values[c.value])
	}
	return 0, 0
}

// valueBytes is the length of a byte array value; other kinds are short.
func valueBytes(v parquet.Value) int {
	switch v.Kind() {
	case parquet.ByteArray, parquet.FixedLenByteArray:
		return len(v.ByteArray())
	}
	return 24
}

// cell is the column's text in the current row; values holds the row's
// values per leaf column.
func (c *parquetColumn) cell(values [][]parquet.Value) string {
	switch c.kind {
	case parquetScalar:
		if v := values[c.leaf]; len(v) > 0 && !v[0].IsNull() {
			return c.text(v[0])
		}
	case parquetMap:
		keys, vals := values[c.key], values[c.value]
		var m map[string]*string
		for i, k := range keys {
			if k.IsNull() { // a null or empty map
				continue
			}
			if m == nil {
				m = make(map[string]*string, len(keys))
			}
			var v *string
			if i < len(vals) && !vals[i].IsNull() {
				t := c.text(vals[i])
				v = &t
			}
			m[c.keyText(k)] = v
		}
		if m != nil {
			b, _ := json.Marshal(m) // string keys and values: cannot fail
			return string(b)
		}
	case parquetList:
		// Null elements are left out, as a null or empty list is one null value.
		var l []string
		for _, v := range values[c.value] {
			if !v.IsNull() {
				l = append(l, c.text(v))
			}
		}
		if l != nil {
			b, _ := json.Marshal(l)
			return string(b)
		}
	}
	return ""
}

// parquetText returns how a leaf type's values are written as text.
func parquetText(t parquet.Type) func(parquet.Value) string {
	var lt format.LogicalTypeValue
	if l := t.LogicalType(); l != nil {
		lt = l.Value
	}
	kind := t.Kind()
	switch l := lt.(type) {
	case *format.DecimalType:
		scale := int(l.Scale)
		switch kind {
		case parquet.Int32:
			return func(v parquet.Value) string { return scaled(big.NewInt(int64(v.Int32())), scale) }
		case parquet.Int64:
			return func(v parquet.Value) string { return scaled(big.NewInt(v.Int64()), scale) }
		case parquet.ByteArray, parquet.FixedLenByteArray:
			return func(v parquet.Value) string { return scaled(twosComplement(v.ByteArray()), scale) }
		}
	case *format.TimestampType:
		unit := time.Millisecond
		if l.Unit.Value != nil {
			unit = l.Unit.Value.Duration()
		}
		layout := time.RFC3339Nano
		if !l.IsAdjustedToUTC { // a wall clock: written as the exporter's CSV writes it, with no zone
			layout = "2006-01-02 15:04:05.999999999"
		}
		if kind == parquet.Int64 {
			return func(v parquet.Value) string { return unixIn(v.Int64(), unit).Format(layout) }
		}
	case *format.DateType:
		if kind == parquet.Int32 {
			return func(v parquet.Value) string { return time.Unix(int64(v.Int32())*86400, 0).UTC().Format(time.DateOnly) }
		}
	case *format.IntType:
		if !l.IsSigned {
			switch kind {
			case parquet.Int32:
				return func(v parquet.Value) string { return strconv.FormatUint(uint64(uint32(v.Int32())), 10) }
			case parquet.Int64:
				return func(v parquet.Value) string { return strconv.FormatUint(uint64(v.Int64()), 10) }
			}
		}
	}
	switch kind {
	case parquet.Boolean:
		return func(v parquet.Value) string { return strconv.FormatBool(v.Boolean()) }
	case parquet.Int32:
		return func(v parquet.Value) string { return strconv.FormatInt(int64(v.Int32()), 10) }
	case parquet.Int64:
		return func(v parquet.Value) string { return strconv.FormatInt(v.Int64(), 10) }
	case parquet.Int96:
		// Legacy timestamps (Hive, Spark, Athena): nanoseconds of the day and a Julian day.
		return func(v parquet.Value) string {
			i := v.Int96()
			nanos := int64(uint64(i[1])<<32 | uint64(i[0]))
			days := int64(i[2]) - 2440588 // the Julian day of 1970-01-01
			return time.Unix(days*86400, nanos).UTC().Format(time.RFC3339Nano)
		}
	case parquet.Float:
		// The shortest decimal that reads back as the same float: what a
		// CSV writer prints, and what the exporter meant.
		return func(v parquet.Value) string { return strconv.FormatFloat(float64(v.Float()), 'f', -1, 32) }
	case parquet.Double:
		return func(v parquet.Value) string { return strconv.FormatFloat(v.Double(), 'f', -1, 64) }
	}
	return func(v parquet.Value) string { return string(v.ByteArray()) }
}

// unixIn is n units since the Unix epoch, in UTC.
func unixIn(n int64, unit time.Duration) time.Time {
	per := int64(time.Second / unit)
	sec, frac := n/per, n%per
	if frac < 0 {
		sec, frac = sec-1, frac+per
	}
	return time.Unix(sec, frac*int64(unit)).UTC()
}

// twosComplement reads a big-endian two's-complement integer, the unscaled
// value of a DECIMAL stored in bytes.
func twosComplement(b []byte) *big.Int {
	n := new(big.Int).SetBytes(b)
	if len(b) > 0 && b[0]&0x80 != 0 {
		n.Sub(n, new(big.Int).Lsh(big.NewInt(1), uint(len(b))*8))
	}
	return n
}

// scaled writes unscaled × 10^-scale exactly in plain decimal notation.
func scaled(n *big.Int, scale int) string {
	if scale <= 0 {
		return n.Mul(n, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(-scale)), nil)).String()
	}
	neg := n.Sign() < 0
	digits := new(big.Int).Abs(n).String()
	for len(digits) <= scale {
		digits = "0" + digits
	}
	s := digits[:len(digits)-scale] + "." + digits[len(digits)-scale:]
	if neg {
		s = "-" + s
	}
	return s
}
