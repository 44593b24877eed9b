package amount

import "strings"

// Decimals is the number of decimals of the currency's minor unit (ISO
// 4217): 0 for yen and won, 3 for the Gulf dinars, 2 for the rest and for
// an unknown or empty code. Totals are rounded to it for people; the store
// keeps every line exact.
func Decimals(code string) int {
	switch strings.ToUpper(strings.TrimSpace(code)) {
	case "JPY", "KRW", "VND", "CLP", "ISK", "PYG", "UGX", "XAF", "XOF", "KMF", "RWF", "DJF", "GNF", "VUV", "XPF":
		return 0
	case "BHD", "KWD", "OMR", "JOD", "IQD", "LYD", "TND":
		return 3
	}
	return 2
}
