package report

import (
	"slices"
	"strings"
	"testing"
)

// TestChooseFormats: the flag's formats, trimmed, in its order; without it
// the config's, else the default three; an unknown or empty name refused.
func TestChooseFormats(t *testing.T) {
	for _, tc := range []struct {
		flag       string
		configured []string
		want       []string
		wantErr    string
	}{
		{"", nil, []string{"xlsx", "html", "json"}, ""},
		{"", []string{"json"}, []string{"json"}, ""},
		{"json, csv", []string{"xlsx"}, []string{"json", "csv"}, ""},
		{"pdf", nil, nil, `--format "pdf": want some of xlsx, html, json, csv`},
		{"json,", nil, nil, `--format "": want some of`},
	} {
		got, err := ChooseFormats(tc.flag, tc.configured)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("ChooseFormats(%q): %v, want an error saying %q", tc.flag, err, tc.wantErr)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("ChooseFormats(%q, %q) = %q, %v; want %q", tc.flag, tc.configured, got, err, tc.want)
		}
	}
}
