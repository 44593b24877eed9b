//go:build !finops_nocloud

package objstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/bloberror"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	"github.com/finops-oss/finops/internal/sanitize"
)

// Azure is one Azure Blob Storage container.
type Azure struct {
	cc        *container.Client
	account   string
	container string
	endpoint  string // for messages, without any token
	rep       reporter
}

// NewAzure makes a client of one container; it talks to nothing yet.
func NewAzure(c AzureConfig) (*Azure, error) {
	pkg := pkgOr(c.Pkg)
	if c.Account == "" {
		return nil, fmt.Errorf("%s: az://%s: no storage account: set sources.azure.account, or name the source "+
			"https://<account>.blob.core.windows.net/%s/<prefix>", pkg, c.Container, c.Container)
	}
	endpoint := strings.TrimSuffix(c.Endpoint, "/")
	if endpoint == "" {
		host := c.Host
		if host == "" {
			host = c.Account + ".blob.core.windows.net"
		}
		endpoint = "https://" + host
	}
	a := &Azure{account: c.Account, container: c.Container, endpoint: sanitize.URL(endpoint)}
	a.rep = reporter{pkg: pkg, service: a.endpoint, setting: c.IdleSetting, idle: c.IdleTimeout,
		again: "run the ingest again (it resumes where the database stands)"}
	if c.SASToken != "" {
		a.rep.secrets = append(a.rep.secrets, c.SASToken)
		if q, err := url.ParseQuery(c.SASToken); err == nil && len(q.Get("sig")) >= 4 {
			a.rep.secrets = append(a.rep.secrets, q.Get("sig"), url.QueryEscape(q.Get("sig")))
		}
	}
	if c.AccountKey != "" {
		a.rep.secrets = append(a.rep.secrets, c.AccountKey)
	}
	opts := &azblob.ClientOptions{ClientOptions: azcore.ClientOptions{
		// A few quick retries: a wrong endpoint should fail in seconds.
		Retry: policy.RetryOptions{MaxRetries: 3, RetryDelay: 500 * time.Millisecond, MaxRetryDelay: 10 * time.Second},
	}}
	var (
		client *azblob.Client
		err    error
	)
	switch {
	case c.AccountKey != "":
		cred, kerr := azblob.NewSharedKeyCredential(c.Account, c.AccountKey)
		if kerr != nil {
			return nil, fmt.Errorf("%s: %s: the shared key of sources.azure.account_key_env or account_key_file is not a storage account key (base64): copy it again from the account's Access keys", pkg, a.URL(""))
		}
		client, err = azblob.NewClientWithSharedKeyCredential(endpoint+"/", cred, opts)
	case c.SASToken != "":
		client, err = azblob.NewClientWithNoCredential(endpoint+"/?"+c.SASToken, opts)
	default:
		cred, cerr := azidentity.NewDefaultAzureCredential(nil)
		if cerr != nil {
			return nil, fmt.Errorf("%s: %s: no Azure credentials: %s; set sources.azure.account_key_env or sas_token_env, or sign in (az login, a managed identity, AZURE_CLIENT_ID…)",
				pkg, a.URL(""), sanitize.Redact(cerr.Error(), a.rep.secrets...))
		}
		client, err = azblob.NewClient(endpoint+"/", cred, opts)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %s; check sources.azure.endpoint", pkg, a.URL(""), sanitize.Redact(err.Error(), a.rep.secrets...))
	}
	a.cc = client.ServiceClient().NewContainerClient(c.Container)
	return a, nil
}

// Fetch downloads the blobs under prefix that accept takes into dir (see
// the package's Fetch); each one's URL is az://account/container/key.
func (a *Azure) Fetch(ctx context.Context, prefix string, accept func(string) bool, dir string) ([]Fetched, []error, error) {
	return Fetch(ctx, a, prefix, accept, dir)
}

// URL is az://account/container/key.
func (a *Azure) URL(key string) string { return "az://" + a.account + "/" + a.container + "/" + key }

func (a *Azure) reporter() *reporter      { return &a.rep }
func (a *Azure) fetchErr(err error) error { return err }

// List lists the blobs under prefix, each page under the idle limit.
func (a *Azure) List(ctx context.Context, prefix string) ([]Listed, error) {
	opts := &container.ListBlobsFlatOptions{Include: container.ListBlobsInclude{Metadata: true}}
	if prefix != "" {
		opts.Prefix = &prefix
	}
	var out []Listed
	pager := a.cc.NewListBlobsFlatPager(opts)
	for pager.More() {
		page, err := listStep(ctx, &a.rep, a.URL(prefix), pager.NextPage)
		if err != nil {
			return nil, a.explain("list", prefix, err)
		}
		for _, b := range page.Segment.BlobItems {
			if b.Name == nil {
				continue
			}
			o := Listed{Key: *b.Name}
			if p := b.Properties; p != nil {
				if p.LastModified != nil {
					o.LastModified = *p.LastModified
				}
				if p.ContentLength != nil {
					o.Size = *p.ContentLength
				}
				if p.ETag != nil {
					o.ETag = strings.Trim(string(*p.ETag), `"`)
				}
				o.MD5 = p.ContentMD5
			}
			// A hierarchical namespace (Data Lake Storage) lists its
			// directories as empty blobs marked hdi_isfolder.
			for k, v := range b.Metadata {
				if strings.EqualFold(k, "hdi_isfolder") && v != nil && strings.EqualFold(*v, "true") {
					o.Folder = true
				}
			}
			out = append(out, o)
		}
	}
	return out, nil
}

// Open starts streaming one blob.
func (a *Azure) Open(ctx context.Context, key string) (*Stream, error) {
	resp, err := a.cc.NewBlobClient(key).DownloadStream(ctx, nil)
	if err != nil {
		return nil, a.explain("download", key, err)
	}
	size := int64(-1)
	if resp.ContentLength != nil {
		size = *resp.ContentLength
	}
	st := &Stream{Size: size}
	for k, v := range resp.Metadata {
		if strings.EqualFold(k, SHA256Meta) && v != nil {
			st.SHA256 = *v
		}
	}
	// A cut connection resumes where it stopped, at the same blob version
	// (the retry reader pins its ETag).
	st.Body = resp.NewRetryReader(ctx, &blob.RetryReaderOptions{MaxRetries: 3})
	return st, nil
}

// Put uploads a block blob with its content type and sha256 metadata.
func (a *Azure) Put(ctx context.Context, key string, body io.ReadSeeker, size int64, o PutOptions) error {
	opts := &blockblob.UploadOptions{}
	if o.ContentType != "" {
		opts.HTTPHeaders = &blob.HTTPHeaders{BlobContentType: &o.ContentType}
	}
	if o.SHA256 != "" {
		opts.Metadata = map[string]*string{SHA256Meta: &o.SHA256}
	}
	if _, err := a.cc.NewBlockBlobClient(key).Upload(ctx, streaming.NopCloser(body), opts); err != nil {
		return a.explain("upload", key, err)
	}
	return nil
}

// explain turns an Azure error into one line naming the blob URL (never a
// token) and what to check; it still unwraps to the SDK's error.
func (a *Azure) explain(op, key string, err error) error {
	var ours *remoteError
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ours) {
		return err
	}
	at := a.URL(key)
	var re *azcore.ResponseError
	var authErr *azidentity.AuthenticationFailedError
	var netErr *net.OpError
	var hint string
	switch {
	case bloberror.HasCode(err, bloberror.ContainerNotFound):
		hint = fmt.Sprintf("container %q does not exist in account %q at %s: check the container in the URL (and sources.azure.account and endpoint)",
			a.container, a.account, a.endpoint)
	case bloberror.HasCode(err, bloberror.AuthenticationFailed, bloberror.InvalidAuthenticationInfo, bloberror.NoAuthenticationInformation,
		bloberror.AuthorizationFailure, bloberror.AuthorizationPermissionMismatch, bloberror.AuthorizationResourceTypeMismatch):
		// Azure says AuthenticationFailed for a wrong key or signature;
		// Azurite and a network rule say AuthorizationFailure.
		hint = "the service refused the credentials: check the shared key (sources.azure.account_key_env or account_key_file) " +
			"or the SAS token (sas_token_env or sas_token_file: signed for this account, not expired, with read and list " +
			"permission) and sources.azure.account; an Entra identity needs the Storage Blob Data Reader role on the container"
	case errors.As(err, &authErr) || strings.Contains(err.Error(), "DefaultAzureCredential"):
		hint = "no usable Azure credentials: set sources.azure.account_key_env or sas_token_env, or sign in " +
			"(az login, a managed identity, AZURE_CLIENT_ID/AZURE_TENANT_ID/AZURE_CLIENT_SECRET)"
	case strings.Contains(err.Error(), "non-TLS"):
		hint = "DefaultAzureCredential sends its token over https only: give the endpoint as https://, or sign in to an " +
			"emulator such as Azurite with sources.azure.account_key_env or sas_token_env"
	case errors.As(err, &netErr):
		hint = fmt.Sprintf("cannot reach the blob service at %s: check sources.azure.endpoint and the network", a.endpoint)
	case errors.As(err, &re) && re.StatusCode == http.StatusNotFound:
		hint = "not found: check the URL and sources.azure.endpoint"
	}
	msg := err.Error()
	var ue *url.Error
	switch {
	case errors.As(err, &re):
		// The SDK's message is many lines: the request, the response body.
		msg = fmt.Sprintf("%s (HTTP %d)", re.ErrorCode, re.StatusCode)
	case errors.As(err, &ue):
		// The request's URL is ours, and may carry the SAS token.
		msg = ue.Err.Error()
	}
	msg = strings.Join(strings.Fields(msg), " ")
	msg = fmt.Sprintf("%s: %s %s: %s", a.rep.pkg, op, at, a.rep.redact(msg))
	if hint != "" {
		msg += "; " + hint
	}
	return &remoteError{msg: msg, err: err}
}
