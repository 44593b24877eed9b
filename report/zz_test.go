package report
import ("testing";"bytes";"strings")
func TestZZ(t *testing.T){var b bytes.Buffer; writeHTML(&b, handResult(t), testMeta(), nil); s:=b.String(); i:=strings.Index(s,"Generated"); t.Log(s[i:i+100])}
