package prom

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/common/model"
)

// DefaultMaxResponseBytes caps one query_range answer when the source sets no
// cap (utilization.prometheus[].max_response_bytes).
const DefaultMaxResponseBytes = 256 << 20

// errTooLarge is an answer over the source's MaxResponseBytes: the query is
// split, never read whole.
var errTooLarge = errors.New("answer too large")

// rangeQuery is one query_range request: [Start, End] inclusive at the
// source's step.
type rangeQuery struct {
	expr       string
	start, end time.Time
}

// answer runs one query_range request and streams the answer's series to
// each, so memory follows a batch of points and not the answer: the body is
// read token by token (decodeMatrix), a series' points are passed on
// maxBatch at a time, and no single JSON value (a series' labels, a warning)
// may be buffered past maxValueBytes, whatever the cap. client_golang's API
// client reads the whole body and decodes it whole (a 200 MB answer cost 1.4
// GB); decoding each series whole still cost the longest series several
// times over (TestFetchLargeAnswerPeakRSS). An answer longer than
// MaxResponseBytes stops with errTooLarge; each must take points passed again
// (after a split, or a retry) as the same data. Errors are client_golang's
// *apiError where it would give one, so retries and messages stay as they
// were.
func (c *Client) answer(ctx context.Context, q rangeQuery, each func(*model.SampleStream)) ([]string, error) {
	form := url.Values{}
	form.Set("query", q.expr)
	form.Set("start", formatTime(q.start))
	form.Set("end", formatTime(q.end))
	form.Set("step", strconv.FormatFloat(c.src.Step.Seconds(), 'f', -1, 64))
	form.Set("timeout", c.src.Timeout.String())
	resp, err := c.post(ctx, form)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return nil, errorAnswer(resp)
	}
	max := c.src.MaxResponseBytes
	if resp.ContentLength > max {
		return nil, errTooLarge
	}
	lr := &io.LimitedReader{R: resp.Body, N: max + 1}
	br := &boundedValues{r: lr, max: maxValueBytes}
	br.dec = json.NewDecoder(br)
	warns, err := decodeMatrix(br.dec, each)
	if lr.N <= 0 {
		return warns, errTooLarge
	}
	return warns, err
}

// maxValueBytes bounds what the decoder may buffer of one JSON value it has
// not finished: a series' labels, a warning, one point. The result array and
// a series' values are never read whole, so a real answer never comes near.
const maxValueBytes = 1 << 20

// maxBatch is how many points of a series are passed to each at once: a
// series longer than that (a server ignoring the 11,000-point limit, or
// answering one series for many days) comes in parts with the same labels.
const maxBatch = 4096

// errValueTooLarge is one JSON value of an answer over maxValueBytes.
var errValueTooLarge = fmt.Errorf("one value of the answer (a series' labels, a warning) is over %d bytes", maxValueBytes)

// boundedValues feeds the decoder, refusing to read on while the decoder
// holds more than max bytes it has not consumed: json.Decoder buffers the
// whole of the value it is decoding (a Token's string too), so without this
// one 200 MB label would be held whole, and the buffer's doublings with it.
type boundedValues struct {
	r   io.Reader
	dec *json.Decoder
	n   int64 // bytes handed to dec
	max int64
}

func (b *boundedValues) Read(p []byte) (int, error) {
	if b.n-b.dec.InputOffset() > b.max {
		return 0, errValueTooLarge
	}
	n, err := b.r.Read(p)
	b.n += int64(n)
	return n, err
}

// post sends the query as a form, falling back to GET where a proxy refuses
// POST (as client_golang does).
func (c *Client) post(ctx context.Context, form url.Values) (*http.Response, error) {
	u := c.endpoint
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header["Idempotency-Key"] = nil // retry on a dropped keep-alive like a GET
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, err
	}
	switch resp.StatusCode {
	case http.StatusForbidden, http.StatusMethodNotAllowed, http.StatusNotImplemented:
		resp.Body.Close()
		req, err = http.NewRequestWithContext(ctx, http.MethodGet, u+"?"+form.Encode(), nil)
		if err != nil {
			return nil, err
		}
		return c.http.Do(req)
	}
	return resp, nil
}

// maxErrorBody bounds what is read of an error answer.
const maxErrorBody = 64 << 10

// errorAnswer turns a non-2xx answer into an apiError: Prometheus'
// own errors (400, 422) by their errorType, others by the status class.
func errorAnswer(resp *http.Response) error {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	generic := func() error {
		typ, msg := errBadResponse, fmt.Sprintf("bad response code %d", resp.StatusCode)
		switch resp.StatusCode / 100 {
		case 4:
			typ, msg = errClient, fmt.Sprintf("client error: %d", resp.StatusCode)
		case 5:
			typ, msg = errServer, fmt.Sprintf("server error: %d", resp.StatusCode)
		}
		return &apiError{Type: typ, Msg: msg}
	}
	if resp.StatusCode != http.StatusBadRequest && resp.StatusCode != http.StatusUnprocessableEntity {
		return generic()
	}
	var r struct {
		Status    string    `json:"status"`
		ErrorType errorType `json:"errorType"`
		Error     string    `json:"error"`
	}
	if json.Unmarshal(body, &r) != nil {
		return generic()
	}
	if r.Status == "success" {
		return &apiError{Type: errBadResponse, Msg: "inconsistent body for response code"}
	}
	if r.ErrorType == "" {
		r.ErrorType = errClient
	}
	if r.Error == "" {
		r.Error = fmt.Sprintf("client error: %d", resp.StatusCode)
	}
	return &apiError{Type: r.ErrorType, Msg: r.Error}
}

// decodeMatrix walks a query_range answer token by token, decoding one
// series of data.result at a time.
func decodeMatrix(dec *json.Decoder, each func(*model.SampleStream)) ([]string, error) {
	bad := func(err error) error { return &apiError{Type: errBadResponse, Msg: err.Error()} }
	if err := expectDelim(dec, '{'); err != nil {
		return nil, bad(err)
	}
	var status, errType, errMsg, resultType string
	var warns []string
	hasData, hasResult := false, false
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return warns, bad(err)
		}
		switch key {
		case "status":
			err = dec.Decode(&status)
		case "errorType":
			err = dec.Decode(&errType)
		case "error":
			err = dec.Decode(&errMsg)
		case "warnings":
			err = dec.Decode(&warns)
		case "data":
			hasData = true
			if err = expectDelim(dec, '{'); err != nil {
				break
			}
			for err == nil && dec.More() {
				var k json.Token
				if k, err = dec.Token(); err != nil {
					break
				}
				switch k {
				case "resultType":
					err = dec.Decode(&resultType)
				case "result":
					if resultType != "" && resultType != model.ValMatrix.String() {
						err = skipValue(dec)
						break
					}
					hasResult = true
					err = eachSeries(dec, each)
				default:
					err = skipValue(dec)
				}
			}
			if err == nil {
				err = expectDelim(dec, '}')
			}
		default:
			err = skipValue(dec)
		}
		if err != nil {
			return warns, bad(err)
		}
	}
	if status == "error" {
		return warns, &apiError{Type: errorType(errType), Msg: errMsg}
	}
	switch {
	case !hasData || resultType == "" && !hasResult:
		// A 200 without data (a proxy's "{}").
		return warns, errors.New("expected a range vector (matrix), got no data")
	case resultType != model.ValMatrix.String():
		return warns, fmt.Errorf("expected a range vector (matrix), got %s", resultType)
	}
	return warns, nil
}

// eachSeries decodes the result array one series at a time, and each
// series' values maxBatch points at a time: each gets a series' labels with
// every batch of its points (and once with none, for a series without
// points), and must not keep ss.Values, which the next batch reuses.
// Histograms are skipped: finops reads float samples only.
func eachSeries(dec *json.Decoder, each func(*model.SampleStream)) error {
	t, err := dec.Token()
	if err != nil {
		return err
	}
	if t == nil {
		return nil // "result": null
	}
	if t != json.Delim('[') {
		return fmt.Errorf("result: want an array, got %v", t)
	}
	ss := &model.SampleStream{Values: make([]model.SamplePair, 0, maxBatch)}
	for dec.More() {
		if err := expectDelim(dec, '{'); err != nil {
			return err
		}
		ss.Metric, ss.Values = nil, ss.Values[:0]
		passed := false
		for dec.More() {
			key, err := dec.Token()
			if err != nil {
				return err
			}
			switch key {
			case "metric":
				err = dec.Decode(&ss.Metric)
			case "values":
				err = eachPoint(dec, func(p model.SamplePair) error {
					if len(ss.Values) == maxBatch {
						if ss.Metric == nil {
							// Prometheus and VictoriaMetrics write the labels
							// first; points before them would have to be
							// held, without bound.
							return fmt.Errorf("a series' values before its metric, over %d points", maxBatch)
						}
						each(ss)
						passed, ss.Values = true, ss.Values[:0]
					}
					ss.Values = append(ss.Values, p)
					return nil
				})
			default:
				err = skipValue(dec)
			}
			if err != nil {
				return err
			}
		}
		if err := expectDelim(dec, '}'); err != nil {
			return err
		}
		if len(ss.Values) > 0 || !passed {
			each(ss)
		}
	}
	_, err = dec.Token()
	return err
}

// eachPoint passes each point of a series' values array to add.
func eachPoint(dec *json.Decoder, add func(model.SamplePair) error) error {
	t, err := dec.Token()
	if err != nil || t == nil {
		return err // "values": null is a series without points
	}
	if t != json.Delim('[') {
		return fmt.Errorf("values: want an array, got %v", t)
	}
	for dec.More() {
		var p pair
		if err := dec.Decode(&p); err != nil {
			return err
		}
		if !p.null {
			if err := add(p.SamplePair); err != nil {
				return err
			}
		}
	}
	_, err = dec.Token()
	return err
}

// pair is one [timestamp, "value"] point, parsed by hand: model.SamplePair
// decodes each point through json.Unmarshal of a two-element array, which
// costs more than the rest of the decoding together.
type pair struct {
	model.SamplePair
	null bool
}

func (p *pair) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if string(b) == "null" {
		p.null = true // as model.SamplePair, which leaves the point zero: never at a step
		return nil
	}
	if len(b) < 2 || b[0] != '[' || b[len(b)-1] != ']' {
		return fmt.Errorf("a point: want [timestamp, \"value\"], got %.40q", b)
	}
	// A number holds no comma: the first one ends the timestamp.
	ts, v, ok := bytes.Cut(b[1:len(b)-1], []byte(","))
	if !ok {
		return fmt.Errorf("a point: want [timestamp, \"value\"], got %.40q", b)
	}
	if err := p.Timestamp.UnmarshalJSON(bytes.TrimSpace(ts)); err != nil {
		return fmt.Errorf("a point's timestamp: %w", err)
	}
	if err := p.Value.UnmarshalJSON(bytes.TrimSpace(v)); err != nil {
		return fmt.Errorf("a point's value: %w", err)
	}
	return nil
}

func expectDelim(dec *json.Decoder, d json.Delim) error {
	t, err := dec.Token()
	if err != nil {
		return err
	}
	if t != d {
		return fmt.Errorf("want %v, got %v", d, t)
	}
	return nil
}

// skipValue reads past one value of any kind without keeping it.
func skipValue(dec *json.Decoder) error {
	depth := 0
	for {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		switch t {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
		if depth == 0 {
			return nil
		}
	}
}

func formatTime(t time.Time) string {
	return strconv.FormatFloat(float64(t.Unix())+float64(t.Nanosecond())/1e9, 'f', -1, 64)
}
