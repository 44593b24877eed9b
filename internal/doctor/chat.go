package doctor

import (
	"context"
	"fmt"
	"time"

	"github.com/finops-oss/finops/internal/capped"
	"github.com/finops-oss/finops/internal/config"
	"github.com/finops-oss/finops/internal/publish"
)

// ChatTimeout bounds the reachability probe of one chat channel.
const ChatTimeout = 10 * time.Second

// chat checks one of watch.channels as the watch and the digest would use
// it, without posting: its URL and secret are read (from the environment
// or their files) and pass Send's own checks (publish.Webhook.Check), and
// its host is reached — a TCP connection and, for https, a TLS handshake,
// no HTTP request (publish.Webhook.Reach) — so the channel receives
// nothing. The finding names the channel and its host, never the URL (it
// holds the token) nor the secret.
func (d *run) chat(ctx context.Context, i int, ch config.Channel) {
	name := ch.Name(i)
	if ch.Type == "email" {
		d.line(Skip, "chat", name+": sent through publish.smtp (the smtp check)")
		return
	}
	getenv := d.o.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	url, err := ch.URL(ctx, getenv, capped.ReadRegular)
	if err != nil {
		d.line(Fail, "chat", fmt.Sprintf("%s: the URL: %v", name, err))
		return
	}
	secret, err := ch.Secret(ctx, getenv, capped.ReadRegular)
	if err != nil {
		d.line(Fail, "chat", fmt.Sprintf("%s: the secret: %v", name, err), url)
		return
	}
	w := publish.Webhook{Kind: ch.Type, URL: url, Secret: secret, Client: d.o.ChatClient}
	if err := w.Check(); err != nil {
		d.line(Fail, "chat", fmt.Sprintf("%s: %v", name, err), url, secret)
		return
	}
	signed := "unsigned"
	if secret != "" {
		signed = "secret read"
	}
	ctx, cancel := context.WithTimeout(ctx, ChatTimeout)
	defer cancel()
	reached, err := w.Reach(ctx)
	if err != nil {
		d.line(Fail, "chat", fmt.Sprintf("%s: URL ok (%s), but %v", name, signed, err), url, secret)
		return
	}
	d.line(OK, "chat", fmt.Sprintf("%s: URL ok (%s); reached %s; nothing posted", name, signed, reached), url, secret)
}
