package prom

import (
	"fmt"
	"net/http"
)

// apiError is a failed query as Prometheus' HTTP API reports it: the
// errorType of its JSON answer (or one derived from the status code) and
// its message. It reads as client_golang's v1.Error did ("bad_data: parse
// error …"), which finops used until only this type was left of that
// module: answer.go reads the answers itself (streamed, bounded), and the
// client's API package linked json-iterator and reflect2 for nothing.
type apiError struct {
	Type errorType
	Msg  string
}

func (e *apiError) Error() string { return fmt.Sprintf("%s: %s", e.Type, e.Msg) }

// errorType is the API's errorType field; these are the values Prometheus
// sends and the ones a client derives from a status code.
type errorType string

const (
	errBadData     errorType = "bad_data"
	errTimeout     errorType = "timeout"
	errCanceled    errorType = "canceled"
	errBadResponse errorType = "bad_response"
	errServer      errorType = "server_error"
	errClient      errorType = "client_error"
)

// defaultTransport is the HTTP transport of a source that sets none: Go's
// default one (proxy from the environment, 30 s dial and keep-alive,
// HTTP/2), shared by every client of the process as client_golang's was,
// so that a watch making a client each pass reuses its connections.
func defaultTransport() http.RoundTripper { return http.DefaultTransport }
