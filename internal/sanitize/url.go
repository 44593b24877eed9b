package sanitize

import (
	"net/url"
	"strings"
)

// redactedMark replaces a secret, as url.URL.Redacted writes it.
const redactedMark = "xxxxx"

// URL returns a URL fit to be shown or stored: the password of its userinfo
// and the values of query parameters that carry credentials (token,
// access_token, key, apikey, password, secret, signature, sig,
// X-Amz-Signature, X-Amz-Credential, …) become "xxxxx", in url.URL.Redacted's
// style (http://user:xxxxx@host/). Everything else is kept byte for byte, so
// the result still says which server or object is meant. It works on the
// text, without url.Parse, so a URL that does not parse is redacted too.
// A user name alone is kept, as url.URL.Redacted keeps it.
func URL(raw string) string {
	i := strings.Index(raw, "://")
	if i < 0 {
		return raw
	}
	rest := raw[i+3:]
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	authority, tail := rest[:end], rest[end:]
	if at := strings.LastIndexByte(authority, '@'); at >= 0 {
		if colon := strings.IndexByte(authority[:at], ':'); colon >= 0 {
			authority = authority[:colon+1] + redactedMark + authority[at:]
		}
	}
	return raw[:i+3] + authority + redactQuery(tail)
}

// redactQuery redacts the credential parameters of a URL's path, query and
// fragment; the path and fragment are kept as they are.
func redactQuery(tail string) string {
	q := strings.IndexByte(tail, '?')
	if q < 0 {
		return tail
	}
	query, frag := tail[q+1:], ""
	if h := strings.IndexByte(query, '#'); h >= 0 {
		query, frag = query[:h], query[h:]
	}
	params := strings.Split(query, "&")
	for n, p := range params {
		k, v, ok := strings.Cut(p, "=")
		if ok && v != "" && secretParam(k) {
			params[n] = k + "=" + redactedMark
		}
	}
	return tail[:q+1] + strings.Join(params, "&") + frag
}

// secretParam reports a query parameter whose value is a credential. Names
// are compared in lower case without '-' and '_' (X-Amz-Signature,
// api_key), by suffix as well (client_secret, x-goog-credential): showing
// one harmless value as xxxxx costs less than leaking one key.
func secretParam(key string) bool {
	if k, err := url.QueryUnescape(key); err == nil {
		key = k
	}
	k := strings.Map(func(r rune) rune {
		switch {
		case r == '-' || r == '_':
			return -1
		case r >= 'A' && r <= 'Z':
			return r + 'a' - 'A'
		}
		return r
	}, key)
	switch k {
	case "key", "sig", "auth", "pass", "pwd", "code":
		return true
	}
	for _, s := range []string{"token", "secret", "password", "passwd", "signature", "credential", "credentials",
		"apikey", "accesskey", "secretkey", "privatekey", "authorization"} {
		if strings.HasSuffix(k, s) {
			return true
		}
	}
	return false
}

// URLs redacts, with URL, every URL inside a text: an error message that
// quotes the address a library called, a log line, a source's name. A URL
// is a scheme, "://" and what follows up to a space, quote, backslash,
// angle bracket or backtick.
func URLs(text string) string {
	if !strings.Contains(text, "://") {
		return text
	}
	var b strings.Builder
	for {
		i := strings.Index(text, "://")
		if i < 0 {
			break
		}
		start := i
		for start > 0 && schemeByte(text[start-1]) {
			start--
		}
		end := i + 3 + strings.IndexAny(text[i+3:], " \t\r\n\"'`\\<>")
		if end < i+3 {
			end = len(text)
		}
		b.WriteString(text[:start])
		b.WriteString(URL(text[start:end]))
		text = text[end:]
	}
	b.WriteString(text)
	return b.String()
}

func schemeByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.'
}
