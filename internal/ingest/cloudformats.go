package ingest

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
