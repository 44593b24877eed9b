package sanitize

import "testing"

// TestRedact: each secret of 4 characters or more goes, a shorter one
// stays (it would cut words), and a URL's password goes with it.
func TestRedact(t *testing.T) {
	got := Redact("key AKIAEXAMPLE at https://u:hunter2@s3.example.com/b, id ab", "AKIAEXAMPLE", "ab", "")
	want := "key [redacted] at https://u:xxxxx@s3.example.com/b, id ab"
	if got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}
