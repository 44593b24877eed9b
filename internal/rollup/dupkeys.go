package rollup

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// checkDuplicateKeys refuses a JSON document in which one object holds a
// key twice, at any depth, naming the key and its path
// ("totals.cost", "by_team[1].cost"). encoding/json keeps the last of
// the two without a word, so a summary with two "cost" keys would count as
// whichever came second while a reader of the file may see the first.
func checkDuplicateKeys(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	return walkKeys(dec, "")
}

// walkKeys reads one JSON value from dec, checking each object in it.
func walkKeys(dec *json.Decoder, path string) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return nil
	}
	switch d {
	case '{':
		// encoding/json matches a key to a field regardless of case
		// ("Cost" fills cost too), so keys equal but for case are one key.
		seen := map[string]string{}
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return err
			}
			k, _ := kt.(string)
			p := k
			if path != "" {
				p = path + "." + k
			}
			fold := strings.ToLower(strings.ToUpper(k))
			if first, ok := seen[fold]; ok {
				if first == k {
					return fmt.Errorf("key %q appears twice at %s", k, p)
				}
				return fmt.Errorf("keys %q and %q, one key to a JSON reader, both appear at %s", first, k, p)
			}
			seen[fold] = k
			if err := walkKeys(dec, p); err != nil {
				return err
			}
		}
	case '[':
		for i := 0; dec.More(); i++ {
			if err := walkKeys(dec, path+"["+strconv.Itoa(i)+"]"); err != nil {
				return err
			}
		}
	}
	_, err = dec.Token() // the closing delimiter
	return err
}
