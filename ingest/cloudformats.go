package ingest

import (
	"fmt"
	"strings"
)

// widthChecker is implemented by row parsers whose headers may declare a
// second row width (a CUR header ending in optional columns, which a row may
// leave off whole); Parse uses it instead of checkWidth.
type widthChecker interface {
	checkWidth(file string, line int, header, rec []string) *ParseError
}

// summaryFinisher is implemented by row parsers that learn something about
// the whole file (Azure: its billing scope, month and cost basis); Parse
// calls it once every row was read.
type summaryFinisher interface {
	finishSummary(*Summary)
}

// detectCloudFormat names the cloud billing export a header belongs to, or "".
func detectCloudFormat(h []string, idx *columns) string {
	switch {
	case isCURHeader(idx) && isCUR2Header(idx):
		return FormatCUR2
	case isCURHeader(idx):
		return FormatCUR
	case isGCPHeader(h):
		return FormatGCP
	case isAzureHeader(h):
		return FormatAzure
	}
	return ""
}

func describeCloudFormat(format string) string {
	switch format {
	case FormatCUR:
		return "an AWS Cost and Usage Report"
	case FormatCUR2:
		return "an AWS CUR 2.0 export"
	case FormatAzure:
		return "an Azure cost export"
	case FormatGCP:
		return "a GCP billing export"
	}
	return ""
}

// newCloudRowParser sets up the parser of a cloud export format; ok is false
// for other formats.
func newCloudRowParser(format string, cols *columns, opt Options, fileErr func(string) *ParseError, looksLike string) (parserSetup, *ParseError, bool) {
	var p rowParser
	var miss []string
	switch format {
	case FormatCUR, FormatCUR2:
		var cp *curParser
		if cp, miss = newCURParser(cols, opt); cp != nil {
			p = cp
		}
	case FormatAzure:
		var ap *azureParser
		if ap, miss = newAzureParser(cols, opt); ap != nil {
			p = ap
		}
	case FormatGCP:
		var gp *gcpCSVParser
		if gp, miss = newGCPCSVParser(cols, opt); len(miss) == 0 {
			p = gp
		}
	default:
		return parserSetup{}, nil, false
	}
	if len(miss) > 0 {
		return parserSetup{}, fileErr(fmt.Sprintf("not %s: missing column(s) %s%s",
			describeCloudFormat(format), strings.Join(miss, ", "), looksLike)), true
	}
	return parserSetup{p: p, format: format, kind: KindBilling, header: cols.hdr}, nil, true
}
