//go:build !finops_nocloud

package objstore

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"

	"golang.org/x/oauth2"
)

// explain turns a GCS error into one line naming the object URL and what
// to check; it still unwraps to the error.
func (g *GCS) explain(op, key string, err error) error {
	var ours *remoteError
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ours) {
		return err
	}
	var api *gcsError
	isAPI := errors.As(err, &api)
	var tokenErr *oauth2.RetrieveError
	var netErr *net.OpError
	var hint string
	msg := err.Error()
	switch {
	case isAPI && api.Code == http.StatusNotFound && op == "list":
		hint = fmt.Sprintf("bucket %q does not exist at %s: check the bucket in the gs:// URL (and sources.gcs.endpoint)", g.bucket, g.endpoint)
	case isAPI && api.Code == http.StatusUnauthorized:
		hint = "the service refused the credentials: check sources.gcs.credentials_file or Application Default Credentials"
	case isAPI && api.Code == http.StatusForbidden:
		hint = fmt.Sprintf("access denied to bucket %q: the credentials need storage.objects.list and storage.objects.get on it (roles/storage.objectViewer)", g.bucket)
	case errors.As(err, &tokenErr) || strings.Contains(msg, "could not find default credentials") || strings.Contains(msg, "credentials: ") ||
		strings.Contains(msg, "cannot fetch token"):
		hint = "no usable Google credentials: set sources.gcs.credentials_file, or set up Application Default Credentials " +
			"(gcloud auth application-default login, GOOGLE_APPLICATION_CREDENTIALS, a service account attached to the machine)"
	case errors.As(err, &netErr):
		hint = fmt.Sprintf("cannot reach the storage service at %s: check sources.gcs.endpoint (or STORAGE_EMULATOR_HOST) and the network", g.endpoint)
	}
	var ue *url.Error
	switch {
	case isAPI:
		msg = api.Error()
	case errors.As(err, &ue):
		// The request's URL is ours, long and says nothing new.
		msg = ue.Err.Error()
	}
	// One line: the token service's messages span lines.
	msg = strings.Join(strings.Fields(msg), " ")
	out := fmt.Sprintf("%s: %s %s: %s", g.rep.pkg, op, g.URL(key), g.rep.redact(msg))
	if hint != "" {
		out += "; " + hint
	}
	return &remoteError{msg: out, err: err}
}
