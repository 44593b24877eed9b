package importer

import (
	"bytes"
	"encoding/json"
	"testing"
	"unicode"
)

// TestEmitJSONEscapesUnsafeText: a result line quoting a file name or an
// error with a control or invisible character (U+009B, U+2028, U+202E,
// U+200B, DEL) holds none of them raw, and decodes to the same text.
func TestEmitJSONEscapesUnsafeText(t *testing.T) {
	name := "bills/a\u009b2J\u2028b\u202ec\u200bd\u007fe.csv"
	var b bytes.Buffer
	if err := emitJSON(&b, map[string]string{"file": name}); err != nil {
		t.Fatal(err)
	}
	for _, c := range b.String() {
		if c != '\n' && unicode.In(c, unicode.Cc, unicode.Cf, unicode.Zl, unicode.Zp) {
			t.Errorf("the line holds %U raw: %q", c, b.String())
		}
	}
	var back map[string]string
	if err := json.Unmarshal(b.Bytes(), &back); err != nil || back["file"] != name {
		t.Errorf("decodes to %q, %v; want %q", back["file"], err, name)
	}
}
