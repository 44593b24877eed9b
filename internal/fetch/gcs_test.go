package fetch

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/finops-oss/finops/internal/fetch/fetchtest"
)

// TestGCSFetch downloads from a real fake-gcs-server: globs, prefixes, an
// empty prefix, an empty bucket, a missing one and keys that cannot be
// saved safely.
func TestGCSFetch(t *testing.T) {
	srv := fetchtest.StartFakeGCS(t)
	objects := map[string][]byte{
		"exports/focus/focus_sample.csv":   focusSample(t),
		"exports/focus/.DS_Store":          []byte("not an export"),
		"exports/2026-11/a.parquet":        []byte("a\n"),
		"exports/2026-12/b.parquet":        []byte("b\n"),
		"exports/2026-12/notes.txt":        []byte("notes\n"),
		"exports-old/c.csv":                []byte("c\n"),
		"odd/../../../escape.csv":          []byte("x\n"),
		"odd/a\\b.csv":                     []byte("x\n"),
		"odd/x//y.csv":                     []byte("x\n"),
		"odd/ok.csv":                       []byte("ok\n"),
		"odd/spaces and ünïcode=1 #?.csv":  []byte("fine\n"),
		"exports/focus/empty-folder-mark/": nil,
	}
	srv.CreateBucket(t, "billing")
	for k, b := range objects {
		srv.Put(t, "billing", k, b)
	}
	srv.CreateBucket(t, "empty")
	for _, tc := range []struct {
		bucket string
		fetchCase
	}{
		{"billing", fetchCase{name: "glob", key: "exports/*/*.parquet",
			want: []string{"exports/2026-11/a.parquet", "exports/2026-12/b.parquet"}}},
		{"billing", fetchCase{name: "folder prefix, hidden names and folder markers left out", key: "exports/focus/",
			want: []string{"exports/focus/focus_sample.csv"}}},
		{"billing", fetchCase{name: "empty prefix: the whole bucket, odd keys refused", key: "",
			want: []string{"exports-old/c.csv", "exports/2026-11/a.parquet", "exports/2026-12/b.parquet", "exports/2026-12/notes.txt",
				"exports/focus/focus_sample.csv", "odd/ok.csv", "odd/spaces and ünïcode=1 #?.csv"},
			refused: []string{`gs://billing/odd/../../../escape.csv: key "odd/../../../escape.csv"`, `gs://billing/odd/a\b.csv`,
				`gs://billing/odd/x//y.csv`}}},
		{"billing", fetchCase{name: "nothing under the prefix", key: "nothing/"}},
		{"empty", fetchCase{name: "empty bucket", key: ""}},
		{"nope", fetchCase{name: "missing bucket", key: "exports/",
			errHas: []string{"gs://nope/exports/", `bucket "nope" does not exist at ` + srv.URL, "check the bucket"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, err := NewGCS(context.Background(), GCSConfig{Bucket: tc.bucket, Endpoint: srv.URL})
			if err != nil {
				t.Fatal(err)
			}
			defer g.Close()
			runFetch(t, g, tc.fetchCase, "gs://"+tc.bucket+"/", objects)
		})
	}
}

// TestGCSCredentials: a credentials file that is not a service-account key
// fails before any request; a key the token service refuses fails with
// what to check. Neither error shows the key. fake-gcs-server takes any
// credentials, so the refusal comes from a token endpoint of the test's
// own (the key file names it), in front of the real server.
func TestGCSCredentials(t *testing.T) {
	srv := fetchtest.StartFakeGCS(t)
	srv.CreateBucket(t, "billing")
	srv.Put(t, "billing", "a.csv", []byte("a\n"))
	tokens := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		w.Write([]byte(`{"error":"invalid_grant","error_description":"Invalid JWT Signature."}`))
	}))
	defer tokens.Close()
	rk, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(rk)
	if err != nil {
		t.Fatal(err)
	}
	privateKey := string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
	keyFile, _ := json.Marshal(map[string]string{"type": "service_account", "project_id": "p", "private_key_id": "kid-0123456789abcdef",
		"private_key": privateKey, "client_email": "finops@p.iam.gserviceaccount.com", "client_id": "1", "token_uri": tokens.URL + "/token"})
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	pemBody := strings.Split(privateKey, "\n")[1]
	for _, tc := range []struct {
		name     string
		file     string
		atNew    bool // the error comes from NewGCS, not from the fetch
		errHas   []string
		endpoint string
	}{
		{name: "not a key file", file: write("notkey.json", []byte(`{"type":"authorized_user","refresh_token":"secret-refresh-token"}`)),
			atNew: true, errHas: []string{"sources.gcs.credentials_file", "is not a service-account key file"}},
		{name: "not JSON", file: write("garbage.json", []byte("secret-garbage-text")), atNew: true,
			errHas: []string{"is not a service-account key file"}},
		{name: "missing file", file: filepath.Join(dir, "none.json"), atNew: true, errHas: []string{"sources.gcs.credentials_file", "none.json"}},
		{name: "key refused by the token service", file: write("sa.json", keyFile), endpoint: srv.URL,
			errHas: []string{"gs://billing/", "no usable Google credentials", "sources.gcs.credentials_file"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, err := NewGCS(context.Background(), GCSConfig{Bucket: "billing", Endpoint: srv.URL, CredentialsFile: tc.file})
			if err == nil {
				defer g.Close()
				_, _, err = g.Fetch(context.Background(), "", nil, t.TempDir())
			} else if !tc.atNew {
				t.Fatalf("NewGCS: %v", err)
			}
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.errHas {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			for _, s := range []string{pemBody, "kid-0123456789abcdef", "secret-refresh-token", "secret-garbage-text"} {
				if strings.Contains(err.Error(), s) {
					t.Errorf("error shows a secret (%.12s…): %q", s, err)
				}
			}
		})
	}
}
