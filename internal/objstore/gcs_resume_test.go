//go:build !finops_nocloud

package objstore

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash/crc32"
	"math/rand"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// cuttingGCS serves one object, gs://b/o/obj, through the JSON API's
// media download: each answer sends the rest of the object from the
// request's Range, but closes the connection after cut() bytes of it (0:
// the whole rest). A ranged request must pin generation 7, the one the
// first answer named. crc is the x-goog-hash CRC32C it announces.
func cuttingGCS(t *testing.T, obj []byte, crc uint32, cut func() int, unpinned *atomic.Int32) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/storage/v1/b/b/o/obj" || r.URL.Query().Get("alt") != "media" {
			http.NotFound(w, r)
			return
		}
		start := 0
		if s, ok := strings.CutPrefix(r.Header.Get("Range"), "bytes="); ok {
			start, _ = strconv.Atoi(strings.TrimSuffix(s, "-"))
			if r.URL.Query().Get("generation") != "7" {
				unpinned.Add(1)
			}
		}
		var c [4]byte
		binary.BigEndian.PutUint32(c[:], crc)
		h := w.Header()
		h.Set("X-Goog-Generation", "7")
		h.Set("X-Goog-Hash", "crc32c="+base64.StdEncoding.EncodeToString(c[:])+",md5=AAAAAAAAAAAAAAAAAAAAAA==")
		h.Set("Content-Length", strconv.Itoa(len(obj)-start))
		status := http.StatusOK
		if start > 0 {
			status = http.StatusPartialContent
		}
		n := cut()
		if n <= 0 || start+n >= len(obj) {
			w.WriteHeader(status)
			w.Write(obj[start:])
			return
		}
		conn, buf, err := http.NewResponseController(w).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		defer conn.Close()
		fmt.Fprintf(buf, "HTTP/1.1 %d %s\r\n", status, http.StatusText(status))
		h.Write(buf)
		buf.WriteString("\r\n")
		buf.Write(obj[start : start+n])
		buf.Flush()
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestGCSResumeGenerated: a download whose connection is cut at random
// points, again and again, delivers exactly the object's bytes (compared
// with the generated object, and its sha256 computed here), every reopen
// pinned to the generation first read; a CRC32C that is not the bytes' is
// an error, never a kept copy.
func TestGCSResumeGenerated(t *testing.T) {
	rng := rand.New(rand.NewSource(36))
	castagnoli := crc32.MakeTable(crc32.Castagnoli)
	for i := range 40 {
		obj := make([]byte, 1+rng.Intn(20000))
		rng.Read(obj)
		crc := crc32.Checksum(obj, castagnoli)
		badCRC := i%8 == 7
		if badCRC {
			crc++
		}
		cuts := 0
		var unpinned atomic.Int32
		endpoint := cuttingGCS(t, obj, crc, func() int {
			// Up to five cuts, each after 1–4000 bytes, then the rest.
			if cuts >= 5 || rng.Intn(3) == 0 {
				return 0
			}
			cuts++
			return 1 + rng.Intn(4000)
		}, &unpinned)
		g, err := NewGCS(context.Background(), GCSConfig{Bucket: "b", Endpoint: endpoint, IdleTimeout: 5 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		sum, err := Download(context.Background(), g, "obj", &got)
		g.Close()
		if badCRC {
			if err == nil || !strings.Contains(err.Error(), "CRC32C") || !strings.Contains(err.Error(), "gs://b/obj") {
				t.Errorf("case %d: a wrong CRC32C: %v", i, err)
			}
			continue
		}
		want := sha256.Sum256(obj)
		if err != nil || !bytes.Equal(got.Bytes(), obj) || sum != hex.EncodeToString(want[:]) {
			t.Errorf("case %d (%d bytes, %d cuts): %d bytes back, equal %v, sum %s, err %v", i, len(obj), cuts, got.Len(),
				bytes.Equal(got.Bytes(), obj), sum, err)
		}
		if n := unpinned.Load(); n > 0 {
			t.Errorf("case %d: %d reopens without the generation", i, n)
		}
	}
}
