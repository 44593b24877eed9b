//go:build !finops_nocloud

package objstore

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"net/textproto"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/oauth2"
)

// gcsObject is the part of the JSON API's object resource finops reads.
type gcsObject struct {
	Name        string    `json:"name"`
	Size        string    `json:"size"` // a decimal string (uint64)
	MD5Hash     string    `json:"md5Hash"`
	ETag        string    `json:"etag"`
	Updated     time.Time `json:"updated"`
	ContentType string    `json:"contentType"`
}

// List lists the objects under prefix, a page (objects.list, pageToken)
// at a time, each page under the idle limit.
func (g *GCS) List(ctx context.Context, prefix string) ([]Listed, error) {
	var out []Listed
	token := ""
	for {
		q := url.Values{"prefix": {prefix}, "projection": {"noAcl"}}
		if token != "" {
			q.Set("pageToken", token)
		}
		u := g.apiURL("b/"+url.PathEscape(g.bucket)+"/o", q)
		var page struct {
			Items         []gcsObject `json:"items"`
			NextPageToken string      `json:"nextPageToken"`
		}
		_, err := listStep(ctx, &g.rep, g.URL(prefix), func(ctx context.Context) (struct{}, error) {
			resp, err := g.get(ctx, u, "")
			if err != nil {
				return struct{}{}, err
			}
			defer resp.Body.Close()
			if err := json.NewDecoder(resp.Body).Decode(&page); err != nil {
				return struct{}{}, fmt.Errorf("the listing is not the JSON API's: %w", err)
			}
			return struct{}{}, nil
		})
		if err != nil {
			return nil, g.explain("list", prefix, err)
		}
		for _, o := range page.Items {
			l := Listed{Key: o.Name, ETag: o.ETag, LastModified: o.Updated}
			l.Size, _ = strconv.ParseInt(o.Size, 10, 64)
			if md, err := base64.StdEncoding.DecodeString(o.MD5Hash); err == nil {
				l.MD5 = md
			}
			out = append(out, l)
		}
		if token = page.NextPageToken; token == "" {
			return out, nil
		}
	}
}

// Open starts streaming one object (alt=media). A connection cut mid-body
// is reopened from where it stopped, at the same generation, for as long
// as the idle limit allows; the object's CRC32C is checked at its end.
func (g *GCS) Open(ctx context.Context, key string) (*Stream, error) {
	u := g.mediaURL(key, "")
	resp, err := g.get(ctx, u, "")
	if err != nil {
		return nil, g.explain("download", key, err)
	}
	b := &gcsBody{g: g, ctx: ctx, key: key, body: resp.Body, size: resp.ContentLength, decoded: resp.Uncompressed,
		gen: resp.Header.Get("X-Goog-Generation")}
	if resp.Uncompressed {
		b.size = -1
	}
	if want, ok := crc32cOf(resp.Header); ok && !resp.Uncompressed {
		b.crc, b.wantCRC = crc32.New(crc32.MakeTable(crc32.Castagnoli)), want
	}
	return &Stream{Body: b, Size: b.size, Decoded: resp.Uncompressed, SHA256: resp.Header.Get("X-Goog-Meta-" + SHA256Meta)}, nil
}

// crc32cOf reads the object's CRC32C from x-goog-hash ("crc32c=…,md5=…").
func crc32cOf(h http.Header) (uint32, bool) {
	for _, v := range h.Values("X-Goog-Hash") {
		for _, part := range strings.Split(v, ",") {
			if s, ok := strings.CutPrefix(strings.TrimSpace(part), "crc32c="); ok {
				if b, err := base64.StdEncoding.DecodeString(s); err == nil && len(b) == 4 {
					return binary.BigEndian.Uint32(b), true
				}
			}
		}
	}
	return 0, false
}

// gcsBody is an object's body that reopens a cut connection with a range
// request (as the client library did) and checks the CRC32C at its end.
type gcsBody struct {
	g       *GCS
	ctx     context.Context
	key     string
	gen     string // the generation read, pinned on a reopen
	body    io.ReadCloser
	read    int64
	size    int64 // < 0: unknown (then a cut is not reopened)
	decoded bool
	crc     hash.Hash32
	wantCRC uint32
}

func (b *gcsBody) Read(p []byte) (int, error) {
	for wait := 100 * time.Millisecond; ; wait = min(2*wait, 2*time.Second) {
		n, err := b.body.Read(p)
		b.read += int64(n)
		if b.crc != nil {
			b.crc.Write(p[:n])
		}
		if err == io.EOF && b.crc != nil && (b.size < 0 || b.read == b.size) && b.crc.Sum32() != b.wantCRC {
			return n, fmt.Errorf("its CRC32C is not the one the service keeps (%d bytes read)", b.read)
		}
		if n > 0 || err == nil || err == io.EOF || b.size < 0 || b.decoded || b.ctx.Err() != nil || !transient(err) {
			if n > 0 && err != nil && err != io.EOF {
				err = nil // the error comes again on the next Read
			}
			return n, err
		}
		if err := b.reopen(wait); err != nil {
			if b.ctx.Err() != nil {
				return 0, b.ctx.Err()
			}
			return 0, err
		}
	}
}

// reopen asks for the rest of the object after a pause.
func (b *gcsBody) reopen(wait time.Duration) error {
	b.body.Close()
	b.body = io.NopCloser(strings.NewReader(""))
	select {
	case <-time.After(wait):
	case <-b.ctx.Done():
		return b.ctx.Err()
	}
	resp, err := b.g.get(b.ctx, b.g.mediaURL(b.key, b.gen), fmt.Sprintf("bytes=%d-", b.read))
	if err != nil {
		if transient(err) {
			// The next Read fails the same way and tries again.
			b.body = io.NopCloser(failedReader{io.ErrUnexpectedEOF})
			return nil
		}
		return err
	}
	b.body = resp.Body
	if resp.StatusCode == http.StatusOK {
		// The whole object again: skip what was read.
		if _, err := io.CopyN(io.Discard, resp.Body, b.read); err != nil {
			b.body = io.NopCloser(failedReader{io.ErrUnexpectedEOF})
		}
	}
	return nil
}

func (b *gcsBody) Close() error { return b.body.Close() }

// Put uploads an object (a multipart upload: its metadata, then its
// bytes) with its content type and sha256 metadata.
func (g *GCS) Put(ctx context.Context, key string, body io.ReadSeeker, size int64, o PutOptions) error {
	meta := map[string]any{"name": key}
	if o.ContentType != "" {
		meta["contentType"] = o.ContentType
	}
	if o.SHA256 != "" {
		meta["metadata"] = map[string]string{SHA256Meta: o.SHA256}
	}
	mj, _ := json.Marshal(meta)
	var head bytes.Buffer
	mw := multipart.NewWriter(&head)
	part, _ := mw.CreatePart(textproto.MIMEHeader{"Content-Type": {"application/json; charset=UTF-8"}})
	part.Write(mj)
	ct := o.ContentType
	if ct == "" {
		ct = "application/octet-stream"
	}
	mw.CreatePart(textproto.MIMEHeader{"Content-Type": {ct}})
	tail := "\r\n--" + mw.Boundary() + "--\r\n"
	if _, err := body.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("%s: upload %s: %w", g.rep.pkg, g.URL(key), err)
	}
	up := g.api.Scheme + "://" + g.api.Host + "/upload" + g.api.EscapedPath() + "b/" + url.PathEscape(g.bucket) + "/o?uploadType=multipart"
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, up,
		io.MultiReader(bytes.NewReader(head.Bytes()), io.LimitReader(body, size), strings.NewReader(tail)))
	if err != nil {
		return fmt.Errorf("%s: upload %s: %w", g.rep.pkg, g.URL(key), err)
	}
	req.ContentLength = int64(head.Len()) + size + int64(len(tail))
	req.Header.Set("Content-Type", "multipart/related; boundary="+mw.Boundary())
	resp, err := g.hc.Do(req)
	if err == nil {
		defer resp.Body.Close()
		err = checkStatus(resp)
	}
	return g.explain("upload", key, err)
}

// apiURL is the JSON API's URL of path (already escaped) with q.
func (g *GCS) apiURL(path string, q url.Values) string {
	return g.api.String() + path + "?" + q.Encode()
}

// mediaURL is an object's download URL; gen pins a generation ("" the
// live one).
func (g *GCS) mediaURL(key, gen string) string {
	q := url.Values{"alt": {"media"}}
	if gen != "" {
		q.Set("generation", gen)
	}
	return g.apiURL("b/"+url.PathEscape(g.bucket)+"/o/"+url.PathEscape(key), q)
}

// get sends a GET, retrying a transient failure (429, 5xx, a connection
// refused or reset) a few times with a growing pause, and returns a
// response of status 2xx; rg is a Range header ("" none).
func (g *GCS) get(ctx context.Context, u, rg string) (*http.Response, error) {
	var last error
	for try, wait := 0, 200*time.Millisecond; try < 4; try, wait = try+1, wait*2 {
		if try > 0 {
			select {
			case <-time.After(wait):
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		if err != nil {
			return nil, err
		}
		if rg != "" {
			req.Header.Set("Range", rg)
		}
		resp, err := g.hc.Do(req)
		if err == nil {
			if err = checkStatus(resp); err == nil {
				return resp, nil
			}
			resp.Body.Close()
		}
		if last = err; ctx.Err() != nil || !transient(err) {
			return nil, err
		}
	}
	return nil, last
}

// gcsError is an error answer of the JSON API.
type gcsError struct {
	Code    int
	Message string
}

func (e *gcsError) Error() string { return fmt.Sprintf("HTTP %d: %s", e.Code, e.Message) }

// checkStatus turns a non-2xx answer into a *gcsError (its body read, up
// to 64 KiB, for the service's message).
func checkStatus(resp *http.Response) error {
	if resp.StatusCode/100 == 2 {
		return nil
	}
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	var body struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	msg := http.StatusText(resp.StatusCode)
	if json.Unmarshal(b, &body) == nil && body.Error.Message != "" {
		msg = body.Error.Message
	}
	return &gcsError{Code: resp.StatusCode, Message: msg}
}

// transient reports whether a request may succeed when sent again: the
// service busy or failing, or the connection refused, reset or cut.
func transient(err error) bool {
	var ge *gcsError
	if errors.As(err, &ge) {
		return ge.Code == http.StatusTooManyRequests || ge.Code == http.StatusRequestTimeout || ge.Code >= 500
	}
	var re *oauth2.RetrieveError
	if errors.As(err, &re) {
		return false
	}
	var ue *url.Error
	return errors.As(err, &ue) || errors.Is(err, io.ErrUnexpectedEOF) || cutErr(err)
}

// failedReader is a body whose connection failed: every Read is err.
type failedReader struct{ err error }

func (f failedReader) Read([]byte) (int, error) { return 0, f.err }

// cutErr reports whether err is a connection refused, reset or broken.
func cutErr(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED)
}
