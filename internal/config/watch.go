package config

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Watch is `finops watch` (docs/WATCH.md): alerts on idle GPU resources
// between reports and the auto-recycle, which is off (a dry run) until Act.
type Watch struct {
	Lookback       Duration            `yaml:"lookback"`        // telemetry read each pass (default 2h)
	AlertAfter     Duration            `yaml:"alert_after"`     // idle this long: alert (default 30m)
	RemindEvery    Duration            `yaml:"remind_every"`    // default 4h
	Grace          Duration            `yaml:"grace"`           // grace alert before an action (default 15m)
	Act            bool                `yaml:"act"`             // false: dry run
	MaxActions     *int                `yaml:"max_actions"`     // per pass (default 1)
	CommandTimeout Duration            `yaml:"command_timeout"` // default 5m
	PassTimeout    Duration            `yaml:"pass_timeout"`    // a pass's sending, all channels (default 60s)
	Allow          WatchAllow          `yaml:"allow"`
	OnIdle         *OnIdle             `yaml:"on_idle"`      // for every resource without its own or its team's
	MaxLifetime    map[string]Duration `yaml:"max_lifetime"` // per pricing mode: hourly: 72h
	// ActOnLifetime runs a resource's on_idle command once it is past its
	// max_lifetime too (with the same safeguards, and only while idle).
	ActOnLifetime bool      `yaml:"act_on_lifetime"`
	Channels      []Channel `yaml:"channels"`
	// Digest sends each `finops run`'s weekly digest to the chat channels
	// too (deliver/digest.go): a team's to the channels that list the team
	// under teams, the fleet's to those that list none. Off by default, so
	// that channels set up for alerts get no weekly post they did not ask for.
	Digest bool `yaml:"digest"`
}

// WatchAllow lists what an action may touch: nothing outside it is ever acted on.
type WatchAllow struct {
	Resources []string `yaml:"resources"`
	Teams     []string `yaml:"teams"`
}

// OnIdle is the auto-recycle of a resource (or a team's, or every one's).
type OnIdle struct {
	After   Duration `yaml:"after"`
	Action  string   `yaml:"action"` // stop or release
	Command Command  `yaml:"command"`
}

// Command is an argv: a YAML list of arguments, run without a shell. A
// single string is refused at validation with its line (Args stays nil).
type Command struct {
	Args   []string
	Line   int
	Scalar string // the refused single-string form, for the message
}

// UnmarshalYAML implements yaml.Unmarshaler, keeping the line for errors.
func (c *Command) UnmarshalYAML(n *yaml.Node) error {
	c.Line = n.Line
	if n.Kind == yaml.ScalarNode {
		c.Scalar = n.Value
		return nil
	}
	if err := n.Decode(&c.Args); err != nil {
		return fmt.Errorf("line %d: command: want a list of arguments: %w", n.Line, err)
	}
	return nil
}

// Channel is where the watch's messages go. A webhook's URL holds its token,
// so it is read only from an environment variable or a file, never the YAML.
type Channel struct {
	Type       string   `yaml:"type"` // feishu, lark, dingtalk, wecom, slack, json, email
	URLEnv     string   `yaml:"url_env"`
	URLFile    string   `yaml:"url_file"`
	SecretEnv  string   `yaml:"secret_env"`
	SecretFile string   `yaml:"secret_file"`
	Teams      []string `yaml:"teams"` // only these teams' messages (empty: all)
}

// Channel types.
func channelTypes() []string {
	return []string{"feishu", "lark", "dingtalk", "wecom", "slack", "json", "email"}
}

// Name is how the ledger and messages name the channel: its type and place.
func (c Channel) Name(i int) string { return fmt.Sprintf("%s#%d", c.Type, i) }

// Lists reports whether the channel names team under teams, case aside (as
// team names are compared everywhere). A channel that lists no team lists
// none: the watch sends it every team's messages, the chat digest only the
// fleet's.
func (c Channel) Lists(team string) bool {
	return slices.ContainsFunc(c.Teams, func(t string) bool { return strings.EqualFold(t, team) })
}

// URL reads the webhook's address from its variable or file.
func (c Channel) URL(ctx context.Context, getenv func(string) string, read ReadFunc) (string, error) {
	return secretFrom(ctx, getenv, read, c.URLEnv, c.URLFile, "url")
}

// Secret reads the signing secret ("" when none is configured).
func (c Channel) Secret(ctx context.Context, getenv func(string) string, read ReadFunc) (string, error) {
	if c.SecretEnv == "" && c.SecretFile == "" {
		return "", nil
	}
	return secretFrom(ctx, getenv, read, c.SecretEnv, c.SecretFile, "secret")
}

func secretFrom(ctx context.Context, getenv func(string) string, read ReadFunc, env, file, what string) (string, error) {
	if env != "" {
		v := strings.TrimSpace(getenv(env))
		if v == "" {
			return "", fmt.Errorf("the environment variable %s (%s_env) is empty or not set", env, what)
		}
		return v, nil
	}
	v, err := readSecretFile(ctx, read, file)
	if err != nil {
		return "", fmt.Errorf("%s_file: %w", what, err)
	}
	return v, nil
}

// Watch defaults (docs/WATCH.md).
const (
	DefaultWatchLookback = 2 * time.Hour
	DefaultAlertAfter    = 30 * time.Minute
	DefaultRemindEvery   = 4 * time.Hour
	DefaultGrace         = 15 * time.Minute
	DefaultMaxActions    = 1
	DefaultCmdTimeout    = 5 * time.Minute
	DefaultPassTimeout   = time.Minute
)

// WatchSettings are the watch's settings with defaults applied.
type WatchSettings struct {
	Lookback, AlertAfter, RemindEvery, Grace, CommandTimeout, PassTimeout time.Duration
	MaxActions                                                            int
}

// Settings applies the defaults.
func (w Watch) Settings() WatchSettings {
	s := WatchSettings{Lookback: DefaultWatchLookback, AlertAfter: DefaultAlertAfter, RemindEvery: DefaultRemindEvery,
		Grace: DefaultGrace, CommandTimeout: DefaultCmdTimeout, PassTimeout: DefaultPassTimeout, MaxActions: DefaultMaxActions}
	for _, o := range []struct {
		d   Duration
		dst *time.Duration
	}{{w.Lookback, &s.Lookback}, {w.AlertAfter, &s.AlertAfter}, {w.RemindEvery, &s.RemindEvery}, {w.Grace, &s.Grace},
		{w.CommandTimeout, &s.CommandTimeout}, {w.PassTimeout, &s.PassTimeout}} {
		if o.d.set {
			*o.dst = o.d.Duration
		}
	}
	if w.MaxActions != nil {
		s.MaxActions = *w.MaxActions
	}
	return s
}

// keyErr is a refusal of one key, written "key: message" as every
// refusal that names a key is; Parse prefixes the key's line (withLines).
func keyErr(key, format string, args ...any) error {
	return errors.New(key + ": " + fmt.Sprintf(format, args...))
}

func (c *Config) validateWatch() []error {
	w := c.Watch
	var errs refusals
	errs.add(durRange{lo: 10 * time.Minute, hi: 7 * day}.check("watch.lookback", w.Lookback))
	errs.add(durRange{lo: time.Minute, hi: 7 * day}.check("watch.alert_after", w.AlertAfter))
	errs.add(durRange{lo: 5 * time.Minute, hi: 30 * day}.check("watch.remind_every", w.RemindEvery))
	errs.add(durRange{lo: time.Minute, hi: day}.check("watch.grace", w.Grace))
	errs.add(durRange{lo: time.Second, hi: time.Hour}.check("watch.command_timeout", w.CommandTimeout))
	// At most 4 minutes: the deploy units end a pass at 240 s (deploy/), and
	// a pass is every 5 minutes.
	errs.add(durRange{lo: time.Second, hi: 4 * time.Minute}.check("watch.pass_timeout", w.PassTimeout))
	if w.MaxActions != nil && (*w.MaxActions < 0 || *w.MaxActions > 1000) {
		errs.add(keyErr("watch.max_actions", "%d is not between 0 and 1000", *w.MaxActions))
	}
	if s := w.Settings(); s.AlertAfter > s.Lookback {
		errs.add(keyErr("watch.alert_after", "%s is longer than watch.lookback (%s): a pass would never see that much idle time; raise lookback",
			fmtDuration(s.AlertAfter), fmtDuration(s.Lookback)))
	}
	for mode, d := range w.MaxLifetime {
		key := "watch.max_lifetime." + mode
		if !slices.Contains(pricingModes(), mode) {
			errs.add(keyErr(key, "%q is not a pricing mode; want one of %s", mode, strings.Join(pricingModes(), ", ")))
		}
		errs.add(durRange{lo: time.Hour, hi: 366 * day}.check(key, d))
	}
	teams := map[string]bool{}
	for _, t := range c.Teams {
		teams[strings.ToLower(t.Name)] = true
	}
	resources := map[string]bool{}
	for _, r := range c.Resources {
		resources[strings.ToLower(r.ID)] = true
	}
	for i, r := range w.Allow.Resources {
		if !resources[strings.ToLower(r)] {
			errs.add(keyErr(fmt.Sprintf("watch.allow.resources[%d]", i), "%q is not a resource under resources: list it there (with its team) or remove it", r))
		}
	}
	for i, t := range w.Allow.Teams {
		if !teams[strings.ToLower(t)] {
			errs.add(keyErr(fmt.Sprintf("watch.allow.teams[%d]", i), "%q is not a team under teams: add the team or fix the name", t))
		}
	}
	if w.OnIdle != nil {
		errs = append(errs, w.OnIdle.validate("watch.on_idle")...)
	}
	for i, r := range c.Resources {
		if r.OnIdle != nil {
			errs = append(errs, r.OnIdle.validate(fmt.Sprintf("resources[%d].on_idle", i))...)
		}
		errs.add(durRange{lo: time.Hour, hi: 366 * day}.check(fmt.Sprintf("resources[%d].max_lifetime", i), r.MaxLifetime))
	}
	for i, t := range c.Teams {
		if t.OnIdle != nil {
			errs = append(errs, t.OnIdle.validate(fmt.Sprintf("teams[%d].on_idle", i))...)
		}
		if t.QuietHours != "" {
			if _, err := ParseQuietHours(t.QuietHours); err != nil {
				errs.add(keyErr(fmt.Sprintf("teams[%d].quiet_hours", i), "%v", err))
			}
		}
	}
	for i, ch := range w.Channels {
		errs = append(errs, ch.validate(fmt.Sprintf("watch.channels[%d]", i), teams)...)
	}
	return errs
}

// pricingModes are finops' pricing modes (finops.ModeHourly …), and
// actionStop and actionRelease the watch's actions (watch.ActionStop …):
// plain text here, so that config imports neither; TestNamesMatchOwners
// keeps them equal.
func pricingModes() []string {
	return []string{"hourly", "daily", "weekly", "monthly", "spot", "committed"}
}

const (
	actionStop    = "stop"
	actionRelease = "release"
)

func (o *OnIdle) validate(key string) []error {
	var errs refusals
	if !o.After.set {
		errs.add(keyErr(key+".after", "required: how long idle before the action, e.g. 2h"))
	}
	errs.add(durRange{lo: 5 * time.Minute, hi: 30 * day}.check(key+".after", o.After))
	if o.Action != actionStop && o.Action != actionRelease {
		errs.add(keyErr(key+".action", "%q is not an action; want stop or release", o.Action))
	}
	ck := key + ".command"
	switch {
	case o.Command.Scalar != "":
		errs.add(keyErr(ck, "%q is one string: give the command as a list of arguments, e.g. [sh, -c, 'runpodctl stop pod \"$FINOPS_RESOURCE_ID\"']; finops runs it without a shell of its own", sanitizeValue(o.Command.Scalar)))
	case len(o.Command.Args) == 0:
		errs.add(keyErr(ck, "required: the command to run, as a list of arguments"))
	case strings.ContainsAny(o.Command.Args[0], " \t"):
		errs.add(keyErr(ck+"[0]", "%q holds spaces: give each argument as its own list item", sanitizeValue(o.Command.Args[0])))
	}
	return errs
}

func (ch Channel) validate(key string, teams map[string]bool) []error {
	var errs refusals
	if !slices.Contains(channelTypes(), ch.Type) {
		errs.add(keyErr(key+".type", "%q is not a channel type; want one of %s", ch.Type, strings.Join(channelTypes(), ", ")))
	}
	if ch.Type == "email" {
		if ch.URLEnv != "" || ch.URLFile != "" || ch.SecretEnv != "" || ch.SecretFile != "" {
			errs.add(keyErr(key, "an email channel goes to the teams' leads through publish.smtp: it takes no url_* or secret_*"))
		}
	} else {
		if (ch.URLEnv == "") == (ch.URLFile == "") {
			errs.add(keyErr(key, "give exactly one of url_env and url_file: the webhook's address holds its token and is never written in the config"))
		}
		if ch.SecretEnv != "" && ch.SecretFile != "" {
			errs.add(keyErr(key, "give at most one of secret_env and secret_file"))
		}
		// WeCom and Slack bots are not signed (publish.Signs): the URL is
		// their only credential. A secret given for one would be read and
		// then refused by every send, so each message would stay pending
		// until someone read the pass's errors; refuse it here, at load,
		// where the key and line say what to remove.
		if ch.Type == "wecom" || ch.Type == "slack" {
			if ch.SecretEnv != "" {
				errs.add(keyErr(key+".secret_env", "%s bots are not signed (the URL is their only credential): remove secret_env", ch.Type))
			}
			if ch.SecretFile != "" {
				errs.add(keyErr(key+".secret_file", "%s bots are not signed (the URL is their only credential): remove secret_file", ch.Type))
			}
		}
	}
	for i, t := range ch.Teams {
		if !teams[strings.ToLower(t)] {
			errs.add(keyErr(fmt.Sprintf("%s.teams[%d]", key, i), "%q is not a team under teams", t))
		}
	}
	return errs
}

// sanitizeValue shows a value from the config in one line.
func sanitizeValue(s string) string {
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// QuietHours is a daily span of local time in which a team gets no message
// (they are held and sent after it): From may be after To (22:00-08:00).
type QuietHours struct{ From, To time.Duration }

// ParseQuietHours parses "22:00-08:00".
func ParseQuietHours(s string) (QuietHours, error) {
	a, b, ok := strings.Cut(strings.TrimSpace(s), "-")
	if !ok {
		return QuietHours{}, fmt.Errorf("%q: want HH:MM-HH:MM, e.g. 22:00-08:00", s)
	}
	var q QuietHours
	for _, p := range []struct {
		v   string
		dst *time.Duration
	}{{a, &q.From}, {b, &q.To}} {
		t, err := time.Parse("15:04", strings.TrimSpace(p.v))
		if err != nil {
			return QuietHours{}, fmt.Errorf("%q: want HH:MM-HH:MM, e.g. 22:00-08:00", s)
		}
		*p.dst = time.Duration(t.Hour())*time.Hour + time.Duration(t.Minute())*time.Minute
	}
	if q.From == q.To {
		return QuietHours{}, fmt.Errorf("%q: the span is empty; remove quiet_hours to get messages at any time", s)
	}
	return q, nil
}

// Contains reports whether t, in loc, falls in the quiet hours.
func (q QuietHours) Contains(t time.Time, loc *time.Location) bool {
	t = t.In(loc)
	tod := time.Duration(t.Hour())*time.Hour + time.Duration(t.Minute())*time.Minute
	if q.From < q.To {
		return tod >= q.From && tod < q.To
	}
	return tod >= q.From || tod < q.To
}
