package fetch

import (
	"fmt"
	"net/url"
	"strings"
)

// Remote source kinds.
const (
	KindAzure = "az"
	KindGCS   = "gs"
)

// azureHosts are the blob service host suffixes of Azure's public and
// sovereign clouds: https://<account>.<suffix>/<container>/<prefix>.
var azureHosts = []string{".blob.core.windows.net", ".blob.core.chinacloudapi.cn", ".blob.core.usgovcloudapi.net"}

// Source is a parsed remote source.
type Source struct {
	Kind string // KindAzure or KindGCS
	// Account is the Azure storage account an https:// source names; ""
	// for az:// (the config's sources.azure.account) and gs://.
	Account string
	// Host is an https:// source's blob service host.
	Host string
	// Bucket is the container or bucket.
	Bucket string
	// Key is the key part as written (https://: unescaped), possibly a
	// glob; "" is the whole container.
	Key string
}

// hasPrefixFold reports whether s starts with prefix, in any case.
func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

// IsRemote reports whether name is a source this package fetches:
// az://…, gs://… or https://<account>.blob.core.windows.net/… (or a
// sovereign cloud's blob host).
func IsRemote(name string) bool {
	if hasPrefixFold(name, "az://") || hasPrefixFold(name, "gs://") {
		return true
	}
	if !hasPrefixFold(name, "https://") {
		return false
	}
	host, _, _ := strings.Cut(name[len("https://"):], "/")
	host = strings.ToLower(host)
	if at := strings.LastIndexByte(host, '@'); at >= 0 {
		host = host[at+1:]
	}
	host, _, _ = strings.Cut(host, "?")
	for _, suf := range azureHosts {
		if strings.HasSuffix(host, suf) {
			return true
		}
	}
	return false
}

// Parse splits a remote source into its parts. A URL holding credentials
// (user info, a SAS token's query) is refused without being echoed: the
// secrets come from the config's sources block.
func Parse(name string) (Source, error) {
	var s Source
	var rest string
	switch {
	case hasPrefixFold(name, "az://"):
		s.Kind, rest = KindAzure, name[5:]
	case hasPrefixFold(name, "gs://"):
		s.Kind, rest = KindGCS, name[5:]
	case IsRemote(name):
		return parseHTTPS(name)
	default:
		return s, fmt.Errorf("fetch: %q: want az://container/prefix, https://<account>.blob.core.windows.net/<container>/<prefix> or gs://bucket/prefix", name)
	}
	s.Bucket, s.Key, _ = strings.Cut(rest, "/")
	if err := s.check(name); err != nil {
		return Source{}, err
	}
	return s, nil
}

func parseHTTPS(name string) (Source, error) {
	if strings.ContainsAny(name, "?#") {
		return Source{}, fmt.Errorf("fetch: an Azure source URL must not hold a query (a SAS token): name the token with sources.azure.sas_token_env or sas_token_file")
	}
	u, err := url.Parse(name)
	if err != nil || u.User != nil {
		// Not echoed: it may hold a secret.
		return Source{}, fmt.Errorf("fetch: an Azure source URL must be https://<account>.blob.core.windows.net/<container>/<prefix>, without credentials")
	}
	host := strings.ToLower(u.Hostname())
	s := Source{Kind: KindAzure, Host: host}
	s.Account, _, _ = strings.Cut(host, ".")
	p := strings.TrimPrefix(u.EscapedPath(), "/")
	c, k, _ := strings.Cut(p, "/")
	if s.Bucket, err = url.PathUnescape(c); err == nil {
		s.Key, err = url.PathUnescape(k)
	}
	if err != nil {
		return Source{}, fmt.Errorf("fetch: %q: %w", name, err)
	}
	if err := s.check(name); err != nil {
		return Source{}, err
	}
	return s, nil
}

func (s Source) check(name string) error {
	noun := "bucket"
	if s.Kind == KindAzure {
		noun = "container"
	}
	switch {
	case s.Bucket == "":
		return fmt.Errorf("fetch: %q: no %s: want %s", name, noun, s.example())
	case strings.Contains(s.Bucket, "@"):
		return fmt.Errorf("fetch: a %s:// URL must not contain credentials: name them in the config's sources block", s.Kind)
	case strings.ContainsAny(s.Bucket, "*?[]\\ \t\r\n"):
		return fmt.Errorf("fetch: %q: %q is not a %s name (a glob may only follow the %s: %s)", name, s.Bucket, noun, noun, s.example())
	}
	return nil
}

func (s Source) example() string {
	if s.Kind == KindGCS {
		return "gs://bucket/prefix (or a glob: gs://bucket/prefix/*.parquet)"
	}
	return "az://container/prefix or https://<account>.blob.core.windows.net/<container>/<prefix> (or a glob: az://container/prefix/*/*.csv)"
}
