package analysis

import (
	"fmt"
	"strings"
)

// maxFilesNamed is how many files a currency error lists before "and N more".
const maxFilesNamed = 5

// CheckCurrencies refuses a report over billing lines in a currency the
// config gives no exchange rate for, naming the currency and the files that
// carry it: summing CNY and USD as if they were one currency would be
// silently wrong, and the fix (an fx rate, or the reporting currency) is the
// user's. Lines without a currency are refused too: ingest no longer stores
// them, and counting an older database's as the reporting currency would be a
// silent rate of 1.
//
// byCur is store.LineSummary's Currencies, which it may change.
func CheckCurrencies(byCur map[string][]string, p Params) error {
	if blank := byCur[""]; len(blank) > 0 {
		return fmt.Errorf("analysis: billing lines without a currency in %s (imported by an older finops, which counted them as the reporting currency): "+
			"finops never assumes a currency; import the files into a new database with --currency CODE (or currency: on the billing source)", namedFiles(blank))
	}
	delete(byCur, "")
	curs := sortedKeys(byCur)
	reporting := strings.ToUpper(p.Currency)
	if reporting == "" {
		if len(curs) <= 1 {
			return nil // the data's one currency is the reporting currency
		}
		var parts []string
		for _, c := range curs {
			parts = append(parts, c+" in "+namedFiles(byCur[c]))
		}
		return fmt.Errorf("analysis: the billing lines of this report are in %d currencies (%s): set currency (the reporting currency) "+
			"and fx rates for the others in the config; lines in %s", len(curs), strings.Join(curs, ", "), strings.Join(parts, "; lines in "))
	}
	var missing []string
	for _, c := range curs {
		if _, ok := p.FX[c]; !ok && c != reporting {
			missing = append(missing, c)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	var parts []string
	for _, c := range missing {
		parts = append(parts, fmt.Sprintf("no exchange rate from %s to %s for the lines in %s: add fx: {%s: <%s per %s>} to the config",
			c, reporting, namedFiles(byCur[c]), c, reporting, c))
	}
	return fmt.Errorf("analysis: %s", strings.Join(parts, "; "))
}

// namedFiles names a few files, and how many more there are.
func namedFiles(uris []string) string {
	if len(uris) <= maxFilesNamed {
		return strings.Join(uris, ", ")
	}
	return fmt.Sprintf("%s and %d more files", strings.Join(uris[:maxFilesNamed], ", "), len(uris)-maxFilesNamed)
}
