package sanitize

import (
	"net/url"
	"testing"
)

func TestURL(t *testing.T) {
	// Expectations written by hand: the password and the values of
	// credential parameters become xxxxx, every other byte stays.
	for _, tt := range []struct{ in, want string }{
		{"http://user:pass@prometheus:9090/", "http://user:xxxxx@prometheus:9090/"},
		{"https://u:p@ss:w0rd@h/prefix", "https://u:xxxxx@h/prefix"}, // the last @ ends the userinfo
		{"http://user:@h", "http://user:xxxxx@h"},
		{"http://user@h/", "http://user@h/"}, // a user name alone is kept, as url.Redacted keeps it
		{"http://prometheus:9090", "http://prometheus:9090"},
		{"https://h/api?token=abc&step=60", "https://h/api?token=xxxxx&step=60"},
		{"https://h/?access_token=a&api_key=b&apikey=c&key=d&password=e&secret=f", "https://h/?access_token=xxxxx&api_key=xxxxx&apikey=xxxxx&key=xxxxx&password=xxxxx&secret=xxxxx"},
		{"https://b.s3.amazonaws.com/k?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIA%2F2026&X-Amz-Signature=9f3a&X-Amz-Security-Token=tok",
			"https://b.s3.amazonaws.com/k?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=xxxxx&X-Amz-Signature=xxxxx&X-Amz-Security-Token=xxxxx"},
		{"https://acct.blob.core.windows.net/c/f.csv?sv=2022-11-02&sig=abc%3D", "https://acct.blob.core.windows.net/c/f.csv?sv=2022-11-02&sig=xxxxx"},
		{"https://h/?client_secret=s&X-Goog-Signature=g#frag", "https://h/?client_secret=xxxxx&X-Goog-Signature=xxxxx#frag"},
		{"https://h/?token=&token", "https://h/?token=&token"}, // nothing to hide
		{"https://h/path#token=x", "https://h/path#token=x"},   // a fragment is no query
		{"s3://AKIA:wJalr@bucket/cur/", "s3://AKIA:xxxxx@bucket/cur/"},
		{"smtp://mailer:pw@smtp.example.com:587", "smtp://mailer:xxxxx@smtp.example.com:587"},
		{"/var/log/gpu-a.csv", "/var/log/gpu-a.csv"},
		{"", ""},
	} {
		if got := URL(tt.in); got != tt.want {
			t.Errorf("URL(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestURLAgreesWithRedacted: on URLs without credential parameters, URL
// says what Go's own url.URL.Redacted says.
func TestURLAgreesWithRedacted(t *testing.T) {
	for _, raw := range []string{
		"http://user:pass@prometheus:9090/",
		"https://admin:s3cr%40t@prom.example.com:443/thanos/?dedup=true",
		"http://user@h:1/x",
		"https://h/p?q=1#f",
		"http://[::1]:9090/",
		"http://u:p@[::1]:9090/",
	} {
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := URL(raw), u.Redacted(); got != want {
			t.Errorf("URL(%q) = %q, url.Redacted %q", raw, got, want)
		}
	}
}

func TestURLs(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{`prometheus http://u:pw@10.0.0.1:9090/: Post "http://u:pw@10.0.0.1:9090/api/v1/query_range?token=t": dial tcp: refused`,
			`prometheus http://u:xxxxx@10.0.0.1:9090/: Post "http://u:xxxxx@10.0.0.1:9090/api/v1/query_range?token=xxxxx": dial tcp: refused`},
		{"url 'https://a:b@h' and <https://c:d@h?sig=e>", "url 'https://a:xxxxx@h' and <https://c:xxxxx@h?sig=xxxxx>"},
		{`error="Get \"http://u:p@h/?key=k\": EOF"`, `error="Get \"http://u:xxxxx@h/?key=xxxxx\": EOF"`}, // a quoted quote ends it
		{"no address here: 3 files", "no address here: 3 files"},
		{"ends with http://u:p@h", "ends with http://u:xxxxx@h"},
	} {
		if got := URLs(tt.in); got != tt.want {
			t.Errorf("URLs(%q)\n = %q\nwant %q", tt.in, got, tt.want)
		}
	}
}
