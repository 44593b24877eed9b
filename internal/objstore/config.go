package objstore

import "time"

// The stores' configurations are in every build; their clients (s3.go,
// azure.go, gcs*.go) only in the full one, not in the demo's (nocloud.go).

// S3Config is how to reach one bucket. AccessKeyID and SecretAccessKey are
// secrets read from the environment by the caller; empty means the default
// AWS credential chain (env, shared files, SSO, IMDS, IRSA …).
type S3Config struct {
	Bucket    string
	Region    string // default: from the AWS chain, else us-east-1
	Endpoint  string // S3-compatible services: their base URL; "" is AWS
	PathStyle bool   // bucket in the path, not the host name (most S3-compatible services)

	AccessKeyID, SecretAccessKey, SessionToken string

	MaxAttempts int           // per request, first try included (default 5)
	MaxBackoff  time.Duration // longest wait between tries (default 10s)

	// IdleTimeout ends a download or a listing page that waits this long
	// without a byte (default idle.DefaultLimit); IdleSetting is the config
	// key that sets it, named in the error ("" when none does).
	IdleTimeout time.Duration
	IdleSetting string

	// Pkg names the package whose errors these are ("publish"); "" is
	// "objstore".
	Pkg string
}

// AzureConfig is how to reach one container. Exactly one way to sign in
// is used: the shared key, else the SAS token, else DefaultAzureCredential
// (environment, workload or managed identity, Azure CLI).
type AzureConfig struct {
	Account   string // the storage account
	Container string
	// Endpoint is the blob service URL; "" is https://<Account>.blob.core.windows.net
	// (Host's suffix, for a sovereign cloud's https:// source).
	Endpoint   string
	Host       string // an https:// source's blob host, used when Endpoint is ""
	AccountKey string // a shared key (base64)
	SASToken   string // a SAS token, without its '?'
	// IdleTimeout ends a request or a read that waits this long without a
	// byte (default idle.DefaultLimit); IdleSetting is the config key that
	// sets it, named in the error ("" when none does).
	IdleTimeout time.Duration
	IdleSetting string
	// Pkg names the package whose errors these are ("fetch"); "" is
	// "objstore".
	Pkg string
}

// GCSConfig is how to reach one bucket.
type GCSConfig struct {
	Bucket string
	// Endpoint replaces https://storage.googleapis.com (fake-gcs-server,
	// a private gateway): a URL or host:port ($STORAGE_EMULATOR_HOST's
	// form). An endpoint on this machine is an emulator and is reached
	// without credentials unless CredentialsFile is set. "" is
	// $STORAGE_EMULATOR_HOST when set, as Google's client libraries read
	// it, else the service.
	Endpoint string
	// CredentialsFile is a service-account key file; "" is Application
	// Default Credentials.
	CredentialsFile string
	// IdleTimeout ends a request or a read that waits this long without a
	// byte (default idle.DefaultLimit); IdleSetting is the config key that
	// sets it, named in the error ("" when none does).
	IdleTimeout time.Duration
	IdleSetting string
	// Pkg names the package whose errors these are ("fetch"); "" is
	// "objstore".
	Pkg string
}

// pkgOr is the package an error names: the caller's, else objstore.
func pkgOr(pkg string) string {
	if pkg == "" {
		return "objstore"
	}
	return pkg
}
