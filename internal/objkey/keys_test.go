package objkey

import (
	"strings"
	"testing"
)

func TestKeyStaysUnderPrefix(t *testing.T) {
	for _, tc := range []struct {
		prefix, period, name, want string
	}{
		{"weekly", "2026-W47", "finops-2026-W47.xlsx", "weekly/2026-W47/finops-2026-W47.xlsx"},
		{"/weekly/", "2026-W47", "a.json", "weekly/2026-W47/a.json"},
		{"", "2026-10-31_2026-11-30", "a.json", "2026-10-31_2026-11-30/a.json"},
		{"a//b/./c", "2026-W47", "x", "a/b/c/2026-W47/x"},
		{"weekly", "../../x", "finops.db.gz", "weekly/.._.._x/finops.db.gz"},
		{"weekly", "..", "..", "weekly/_../_.."},
		{"weekly", ".", "a", "weekly/_./a"},
		{"weekly", "/etc/passwd", "a", "weekly/_etc_passwd/a"},
		{"weekly", "2026-W47\r\nX: y", "a", "weekly/2026-W47__X__y/a"},
		{"weekly", "週報", "a", "weekly/__/a"},
		{"../up", "p", "n", "_../up/p/n"},
	} {
		got, err := Key(tc.prefix, tc.period, tc.name)
		if err != nil {
			t.Errorf("Key(%q, %q, %q): %v", tc.prefix, tc.period, tc.name, err)
			continue
		}
		if got != tc.want {
			t.Errorf("Key(%q, %q, %q) = %q, want %q", tc.prefix, tc.period, tc.name, got, tc.want)
		}
	}
	if _, err := Key("weekly", "", "a"); err == nil {
		t.Error("Key with an empty period: no error")
	}
}

// FuzzKey: whatever the period and name, the key lies under the prefix, two
// segments below it, with no empty, "." or ".." segment and no character
// outside the safe set.
func FuzzKey(f *testing.F) {
	for _, s := range []string{"2026-W47", "../../x", "..", "/", "a/../../b", "\x00", "%2e%2e", "\\..\\x"} {
		f.Add("weekly", s, "finops.xlsx")
		f.Add("a/../b", "2026-W47", s)
	}
	f.Fuzz(func(t *testing.T, prefix, period, name string) {
		key, err := Key(prefix, period, name)
		if err != nil {
			if period == "" || name == "" {
				return
			}
			t.Fatalf("Key(%q, %q, %q): %v", prefix, period, name, err)
		}
		p := CleanPrefix(prefix)
		if p != "" && !strings.HasPrefix(key, p+"/") {
			t.Fatalf("key %q escapes prefix %q", key, p)
		}
		rest := strings.Split(strings.TrimPrefix(key, p+"/"), "/")
		if p == "" {
			rest = strings.Split(key, "/")
		}
		if len(rest) != 2 {
			t.Fatalf("key %q: %d segments below the prefix, want 2", key, len(rest))
		}
		for _, s := range strings.Split(key, "/") {
			if s == "" || s == "." || s == ".." {
				t.Fatalf("key %q has segment %q", key, s)
			}
			for _, r := range s {
				if !(r == '.' || r == '_' || r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
					t.Fatalf("key %q has character %q", key, r)
				}
			}
		}
	})
}

func TestParseS3URL(t *testing.T) {
	b, p, err := ParseS3URL("s3://finops-reports/weekly/../x/")
	if err != nil || b != "finops-reports" || p != "weekly/_../x" {
		t.Errorf("ParseS3URL = %q, %q, %v", b, p, err)
	}
	for _, bad := range []string{"http://x/y", "s3:///x", "s3://key:secret@bucket/x", "bucket/x"} {
		if _, _, err := ParseS3URL(bad); err == nil {
			t.Errorf("ParseS3URL(%q): no error", bad)
		} else if strings.Contains(err.Error(), "secret") {
			t.Errorf("ParseS3URL(%q): error quotes the credentials: %v", bad, err)
		}
	}
}
