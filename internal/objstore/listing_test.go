//go:build !finops_nocloud

package objstore

import (
	"bytes"
	"context"
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/fetch/fetchtest"
)

// TestListingGenerated puts generated objects (random keys, sizes from
// empty to 64 KiB, random bytes) into a real versitygw, Azurite and
// fake-gcs-server through Put, and checks what List says of each against
// the bytes put, computed here: the key, the size, the MD5 where the
// service keeps one (Azure and GCS always; S3 never, its ETag is not one
// for every upload), an ETag, a modification time within the test's own
// clock, and an ETag that changes when the object does. Each object then
// comes back whole through Download, checked against the sha256 Put
// stored.
func TestListingGenerated(t *testing.T) {
	ctx := context.Background()
	stores := map[string]func(t *testing.T) Store{
		"s3": func(t *testing.T) Store {
			c, _ := newTestS3(t)
			return c
		},
		"azure": func(t *testing.T) Store {
			az := fetchtest.StartAzurite(t)
			az.CreateContainer(t, "gen")
			a, err := NewAzure(AzureConfig{Account: fetchtest.AzuriteAccount, Container: "gen", Endpoint: az.Endpoint, AccountKey: fetchtest.AzuriteKey})
			if err != nil {
				t.Fatal(err)
			}
			return a
		},
		"gcs": func(t *testing.T) Store {
			srv := fetchtest.StartFakeGCS(t)
			srv.CreateBucket(t, "gen")
			g, err := NewGCS(ctx, GCSConfig{Bucket: "gen", Endpoint: srv.URL})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { g.Close() })
			return g
		},
	}
	for name, mk := range stores {
		t.Run(name, func(t *testing.T) {
			s := mk(t)
			rng := rand.New(rand.NewSource(int64(len(name))))
			objects := map[string][]byte{}
			before := time.Now().Add(-2 * time.Second)
			for range 25 {
				key := "gen/" + randomKey(rng)
				b := make([]byte, rng.Intn(64<<10+1))
				rng.Read(b)
				objects[key] = b
				put(t, s, key, b)
			}
			// Outside the prefix: never listed.
			put(t, s, "other/x.csv", []byte("x"))
			after := time.Now().Add(2 * time.Second)
			listed, err := s.List(ctx, "gen/")
			if err != nil {
				t.Fatal(err)
			}
			seen := checkListed(t, s, name, listed, objects, before, after)
			if len(seen) != len(objects) || len(listed) != len(objects) {
				t.Errorf("listed %d objects (%d keys), put %d", len(listed), len(seen), len(objects))
			}
			// A changed object lists a new ETag.
			for key, b := range objects {
				put(t, s, key, append(b, '!'))
				again, err := s.List(ctx, key)
				if err != nil || len(again) != 1 || again[0].ETag == seen[key].ETag || again[0].Size != int64(len(b)+1) {
					t.Errorf("%s changed: listed %+v (was ETag %q), %v", key, again, seen[key].ETag, err)
				}
				break
			}
		})
	}
}

// checkListed checks each listed object against the bytes put under its
// key (size, MD5 where the service keeps one, an ETag, a modification time
// between before and after) and downloads it back whole; it returns the
// listing by key.
func checkListed(t *testing.T, s Store, name string, listed []Listed, objects map[string][]byte, before, after time.Time) map[string]Listed {
	t.Helper()
	ctx := context.Background()
	seen := map[string]Listed{}
	for _, o := range listed {
		seen[o.Key] = o
		b, ok := objects[o.Key]
		if !ok {
			t.Errorf("listed %q, never put under the prefix", o.Key)
			continue
		}
		sum := md5.Sum(b)
		wantMD5 := name != "s3"
		if o.Size != int64(len(b)) || o.ETag == "" || (wantMD5 && !bytes.Equal(o.MD5, sum[:])) || (!wantMD5 && len(o.MD5) > 0) ||
			o.LastModified.Before(before) || o.LastModified.After(after) {
			t.Errorf("%s: size %d (put %d), MD5 %x (of the bytes %x), ETag %q, modified %v (put between %v and %v)",
				o.Key, o.Size, len(b), o.MD5, sum, o.ETag, o.LastModified, before, after)
		}
		var got bytes.Buffer
		sha, err := Download(ctx, s, o.Key, &got)
		want := sha256.Sum256(b)
		if err != nil || !bytes.Equal(got.Bytes(), b) || sha != hex.EncodeToString(want[:]) {
			t.Errorf("%s: download: %d bytes, sha256 %s, %v", o.Key, got.Len(), sha, err)
		}
	}
	return seen
}

// randomKey is one to three folders of letters, digits and the
// punctuation billing exports use ('=', '-', '_', '.', ' ').
func randomKey(rng *rand.Rand) string {
	const alphabet = "abcdefghijklmnopqrstuvwxyzABC0123456789=-_. "
	var segs []string
	for range 1 + rng.Intn(3) {
		n := 1 + rng.Intn(12)
		var b strings.Builder
		b.WriteByte('k') // never "." or "..", never hidden
		for range n {
			b.WriteByte(alphabet[rng.Intn(len(alphabet))])
		}
		segs = append(segs, strings.TrimRight(b.String(), ". "))
	}
	return strings.Join(segs, "/") + ".csv"
}

func put(t *testing.T, s Store, key string, b []byte) {
	t.Helper()
	sum := sha256.Sum256(b)
	if err := s.Put(context.Background(), key, bytes.NewReader(b), int64(len(b)),
		PutOptions{ContentType: "text/csv", SHA256: hex.EncodeToString(sum[:])}); err != nil {
		t.Fatalf("put %s: %v", key, err)
	}
}
