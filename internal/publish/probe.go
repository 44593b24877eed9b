package publish

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path"
)

// Probe checks that the credentials may write, read and delete under the
// prefix, as a run's uploads, restore and retention do: it puts a small
// object <prefix>/.finops-doctor-<random>, reads it back and deletes it. It
// returns the probe's key; an error carries a hint on what to check.
func (c *S3) Probe(ctx context.Context) (key string, err error) {
	var r [8]byte
	rand.Read(r[:])
	key = path.Join(c.prefix, ".finops-doctor-"+hex.EncodeToString(r[:]))
	body := []byte("finops doctor probe: safe to delete\n")
	sum := sha256.Sum256(body)
	if err := c.UploadReader(ctx, key, bytes.NewReader(body), int64(len(body)), "text/plain", hex.EncodeToString(sum[:])); err != nil {
		return key, c.explain(err)
	}
	var got bytes.Buffer
	_, err = c.Download(ctx, key, &got)
	if err == nil && !bytes.Equal(got.Bytes(), body) {
		err = fmt.Errorf("publish: probe %s: read back %d bytes that differ from the %d written", c.URL(key), got.Len(), len(body))
	}
	if derr := c.Delete(ctx, key); err == nil && derr != nil {
		err = fmt.Errorf("%w (remove %s by hand)", derr, c.URL(key))
	}
	return key, c.explain(err)
}
