package config

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"reflect"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// MaxFileBytes is the most finops.yaml or a price catalog may hold. A real
// config is a few KiB; YAML takes some 36 times a file's size in memory to
// parse, so a 50 MB file would take well over a gigabyte before any check.
const MaxFileBytes = 4 << 20

// ReadFunc reads a file the config is or names (finops.yaml, its
// price_catalog, a secret file) of at most limit bytes: a regular file only
// (a FIFO would block in open, holding the run lock, and /dev/zero never
// ends), refused from its stat, and one over the limit before reading more
// than that. internal/capped.ReadRegular is the one implementation; the
// caller hands it in, so config reads no file of its own and stays a leaf.
type ReadFunc func(ctx context.Context, path string, limit int64) ([]byte, error)

// readFile reads a config or price catalog file with read. what is the
// file's part for people ("the config", "a price catalog"), named in what to
// do about a refused one.
func readFile(read ReadFunc, path, what string) ([]byte, error) {
	if read == nil {
		return nil, fmt.Errorf("%s: no ReadFunc to read it with (config.Parse reads no file: load the config with config.Load)", path)
	}
	b, err := read(context.Background(), path, MaxFileBytes)
	return b, withFix(err, what)
}

// MaxSecretBytes is the most a secret file (url_file, secret_file,
// secret_key_file, password_file) may hold: a token or a password is a
// line, and a bigger file is the wrong one.
const MaxSecretBytes = 64 << 10

// notRegularFile is the error of a ReadFunc refusing what is not a regular file
// (internal/capped.NotRegularError), known by its method, not its package.
type notRegularFile interface {
	error
	FileMode() fs.FileMode
}

// withFix adds to a refused file what to do about it; other errors are
// returned as they are (os errors name the path and the reason).
func withFix(err error, what string) error {
	var nr notRegularFile
	if !errors.As(err, &nr) {
		return err
	}
	if nr.FileMode().IsDir() {
		return fmt.Errorf("%w: name the file itself, not its folder", err)
	}
	return fmt.Errorf("%w: finops reads %s only from a regular file (a link to one is fine), never a pipe, socket or device: write it into a file and name that file", err, what)
}

// decodeStrict decodes one YAML document into v: an unknown key is an
// error naming its line and the nearest valid key (a typo in a threshold
// would otherwise silently fall back to the default), and so are a second document after "---" (it would be ignored
// without a word) and a number that is not finite (.nan, .inf), whatever
// key it is under. yaml refuses alias bombs ("excessive aliasing") itself.
func decodeStrict(b []byte, v any) error {
	dec := yaml.NewDecoder(bytes.NewReader(b))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil // an empty file: every key takes its default
		}
		return err
	}
	var next yaml.Node
	if err := dec.Decode(&next); !errors.Is(err, io.EOF) {
		if err != nil {
			return err
		}
		return fmt.Errorf("line %d: a second YAML document (after ---): the file holds one; remove the --- and merge or delete what follows", next.Line)
	}
	if err := nonFinite(&doc, ""); err != nil {
		return err
	}
	if errs := unknownKeys(&doc, reflect.TypeOf(v), ""); len(errs) > 0 {
		return keyErrors(errs)
	}
	strict := yaml.NewDecoder(bytes.NewReader(b))
	strict.KnownFields(true)
	return strict.Decode(v)
}

// nonFinite finds the first float that is NaN or infinite under n, naming
// its key path. Aliases are not followed: their anchors are checked where
// they are defined, and following them could take exponential time.
func nonFinite(n *yaml.Node, path string) error {
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			if err := nonFinite(c, path); err != nil {
				return err
			}
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			key := n.Content[i].Value
			if path != "" {
				key = path + "." + key
			}
			if err := nonFinite(n.Content[i+1], key); err != nil {
				return err
			}
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			if err := nonFinite(c, path+"["+strconv.Itoa(i)+"]"); err != nil {
				return err
			}
		}
	case yaml.ScalarNode:
		if n.ShortTag() == "!!float" {
			switch strings.ToLower(strings.TrimLeft(n.Value, "+-")) {
			case ".nan", ".inf":
				return fmt.Errorf("line %d: %s: %s is not a finite number", n.Line, path, n.Value)
			}
		}
		// yaml reads 1e309 as text, which then fails as a number with
		// the line only, or passes as an fx rate: name the key.
		if n.Style == 0 {
			if _, err := strconv.ParseFloat(n.Value, 64); errors.Is(err, strconv.ErrRange) {
				return fmt.Errorf("line %d: %s: %s is beyond the largest number finops can hold", n.Line, path, n.Value)
			}
		}
	}
	return nil
}
