package publish

import (
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"net/url"
)

// Check makes the checks Send makes before it sends anything — a kind it
// knows, a secret only for a kind that signs, an http(s) URL without a user,
// plain http only to this host — and sends nothing. Its errors never quote
// the URL (it holds the token).
func (w Webhook) Check() error {
	_, err := w.target()
	return err
}

// Reach connects to where Send would — the proxy the environment names for
// the URL, else the URL's host — and, for https straight to the host,
// completes a TLS handshake; then it closes the connection. It makes no
// HTTP request, so nothing reaches the channel: `finops doctor` calls it
// without posting. It returns what it reached, for the finding.
func (w Webhook) Reach(ctx context.Context) (string, error) {
	u, err := w.target()
	if err != nil {
		return "", err
	}
	addr := dialAddr(u)
	if proxy, err := w.proxyFor(u); err != nil {
		return "", w.errorf("the proxy the environment names: %v", unwrapURL(err))
	} else if proxy != nil {
		var d net.Dialer
		c, err := d.DialContext(ctx, "tcp", dialAddr(proxy))
		if err != nil {
			return "", w.errorf("connect to the proxy %s: %v: check HTTPS_PROXY/HTTP_PROXY", proxy.Host, err)
		}
		c.Close()
		return "the proxy " + proxy.Host + " (the channel's host is behind it)", nil
	}
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return "", w.errorf("connect: %v: check the network and the channel's URL host", err)
	}
	defer c.Close()
	if u.Scheme != "https" {
		return addr + " (TCP)", nil
	}
	cfg := w.tlsConfig()
	cfg.ServerName = u.Hostname()
	tc := tls.Client(c, cfg)
	if err := tc.HandshakeContext(ctx); err != nil {
		return "", w.errorf("TLS handshake with %s: %v", addr, err)
	}
	tc.Close()
	return addr + " (TLS)", nil
}

// dialAddr is u's host:port, the scheme's port when u names none.
func dialAddr(u *url.URL) string {
	if u.Port() != "" {
		return u.Host
	}
	return net.JoinHostPort(u.Hostname(), map[string]string{"https": "443", "http": "80"}[u.Scheme])
}

// proxyFor is the proxy the client's transport would use for u (the
// environment's, for the default client), nil for none.
func (w Webhook) proxyFor(u *url.URL) (*url.URL, error) {
	proxy := http.ProxyFromEnvironment
	if t, ok := w.client().Transport.(*http.Transport); ok {
		proxy = t.Proxy
	}
	if proxy == nil {
		return nil, nil
	}
	return proxy(&http.Request{Method: http.MethodPost, URL: u, Header: http.Header{}})
}

// tlsConfig is the client transport's TLS settings (its trusted roots, in
// tests), else the system's.
func (w Webhook) tlsConfig() *tls.Config {
	if t, ok := w.client().Transport.(*http.Transport); ok && t.TLSClientConfig != nil {
		return t.TLSClientConfig.Clone()
	}
	return &tls.Config{MinVersion: tls.VersionTLS12}
}
