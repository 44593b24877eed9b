// Package config loads finops.yaml: sources, resources, teams, prices,
// thresholds and publishing settings. Secrets are never read from it.
package config

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"
)

// Config is the whole finops.yaml. Every key is optional: finops works
// without a config file.
type Config struct {
	Timezone   string             `yaml:"timezone"`
	Currency   string             `yaml:"currency"`
	FX         map[string]string  `yaml:"fx"` // 1 unit of the key currency = value units of Currency
	Database   string             `yaml:"database"`
	Out        string             `yaml:"out"`
	Formats    []string           `yaml:"formats"`
	MaxBadRows int                `yaml:"max_bad_rows"`
	Thresholds Thresholds         `yaml:"thresholds"`
	Billing    []Source           `yaml:"billing"`
	Mappings   map[string]Mapping `yaml:"mappings"`
	Telemetry  Telemetry          `yaml:"utilization"`
	Tasks      []Source           `yaml:"tasks"`
	Instances  []InstanceType     `yaml:"instance_types"`
	Resources  []Resource         `yaml:"resources"`
	Teams      []Team             `yaml:"teams"`
	Prices     []Price            `yaml:"prices"`
	// PriceCatalog is a YAML file of more price rows (catalog/prices.example.yaml).
	PriceCatalog string     `yaml:"price_catalog"`
	Publish      Publish    `yaml:"publish"`
	Sources      Sources    `yaml:"sources"`         // az:// and gs:// billing sources (sources.go)
	Purchase     []Purchase `yaml:"purchase"`        // rent-or-buy review assumptions (purchase.go)
	Watch        Watch      `yaml:"watch,omitempty"` // finops watch (watch.go)
	// Report.GroupBy and Chargeback: allocation by tag and the spread of
	// the cost no team owns (allocation.go).
	Report     ReportSettings `yaml:"report,omitempty"`
	Chargeback Chargeback     `yaml:"chargeback,omitempty"`
	Energy     Energy         `yaml:"energy"` // kWh → CO₂e (energy.go)

	// catalogPath is the price_catalog file read, whose rows are
	// Prices[catalogFrom:]: errors name them by that file.
	catalogPath string
	catalogFrom int
}

// Thresholds of metrics.md. A key left out (nil, or a Duration never set)
// takes the default; a key given must be in its range (bounds.go).
type Thresholds struct {
	IdleUtilization   *float64  `yaml:"idle_utilization"`
	IdleMinSpan       Duration  `yaml:"idle_min_span"`
	TargetBand        []float64 `yaml:"target_band"`
	Lookback          Duration  `yaml:"lookback"`
	ReleaseSlack      *float64  `yaml:"release_slack"`
	SpotInflation     *float64  `yaml:"spot_inflation"`
	ReleaseBelowHours *float64  `yaml:"release_below_hours"`
	MinSavingsPercent *float64  `yaml:"min_savings_percent"`
	MinSavingsAmount  *float64  `yaml:"min_savings_amount"`
	StaleAfter        Duration  `yaml:"stale_after"`
	MinCoverage       *float64  `yaml:"min_coverage"`
	// MaxRestatementDrop: a delivery of a billing period whose total is
	// this share or more below the delivery it replaced makes the period's
	// reports incomplete (store/periodchange.go).
	MaxRestatementDrop *float64 `yaml:"max_restatement_drop"`
}

// Source is a billing or tasks source: a file, folder or glob.
type Source struct {
	Path    string `yaml:"path"`
	Format  string `yaml:"format"`
	Mapping string `yaml:"mapping"`
	// Currency is the currency of billing lines whose file leaves it blank
	// (a FOCUS export without BillingCurrency); such lines are refused without it.
	Currency string `yaml:"currency"`
}

// Mapping is a rental-platform column mapping (see ingest.ColumnMapping).
type Mapping struct {
	Provider string            `yaml:"provider"`
	Currency string            `yaml:"currency"`
	Timezone string            `yaml:"timezone"`
	Encoding string            `yaml:"encoding"` // utf-8 (default), gbk or gb18030
	Columns  map[string]string `yaml:"columns"`
	Modes    map[string]string `yaml:"modes"`
}

// Telemetry lists the utilization sources.
type Telemetry struct {
	NvidiaSMI   []HostLog    `yaml:"nvidia_smi"`
	Prometheus  []Prometheus `yaml:"prometheus"`
	DCGMScrapes []Scrapes    `yaml:"dcgm_scrapes"`
	NVMLSpool   []Spool      `yaml:"nvml_spool"`
	// HotDays is how many days of telemetry stay per minute (where a sample
	// delivered twice is recognised) before they are compacted into days;
	// 0 means store.DefaultHotDays.
	HotDays int `yaml:"hot_days"`
}

// HostLog is a set of nvidia-smi logs from one host, in that host's zone.
type HostLog struct {
	Path     string `yaml:"path"`
	Host     string `yaml:"host"`
	Timezone string `yaml:"timezone"`
	// Fields is the logger's --query-gpu list, for logs written with
	// --format=csv,noheader (source.SMIFields reads it); "" detects it.
	Fields string `yaml:"fields"`
}

// InstanceType extends the built-in GPU instance catalog.
type InstanceType struct {
	Name     string `yaml:"name"`
	GPUModel string `yaml:"gpu_model"`
	GPUCount int    `yaml:"gpu_count"`
}

// Resource says how a billed resource maps to GPU hosts and UUIDs.
type Resource struct {
	ID            string   `yaml:"id"`
	Hosts         []string `yaml:"hosts"`
	GPUs          []string `yaml:"gpus"`
	Team          string   `yaml:"team"`
	Interruptible bool     `yaml:"interruptible"`
	// The watch (watch.go): never act on it, its own auto-recycle, and how
	// long it may be billed before an alert.
	Protect     bool     `yaml:"protect,omitempty"`
	OnIdle      *OnIdle  `yaml:"on_idle,omitempty"`
	MaxLifetime Duration `yaml:"max_lifetime,omitempty"`
}

// Team is a team with its leads and optional monthly budget.
type Team struct {
	Name          string   `yaml:"name"`
	Tag           string   `yaml:"tag"`
	Leads         []string `yaml:"leads"`
	MonthlyBudget *float64 `yaml:"monthly_budget"`
	// QuietHours holds the watch's messages to this team ("22:00-08:00" in
	// the config's timezone); OnIdle is its auto-recycle (watch.go).
	QuietHours string  `yaml:"quiet_hours,omitempty"`
	OnIdle     *OnIdle `yaml:"on_idle,omitempty"`
}

// Price is one price-catalog row: one provider's price for one GPU model.
type Price struct {
	Provider string   `yaml:"provider"`
	GPUModel string   `yaml:"gpu_model"`
	Hourly   *float64 `yaml:"hourly"`  // per GPU-hour
	Daily    *float64 `yaml:"daily"`   // per GPU-day
	Weekly   *float64 `yaml:"weekly"`  // per GPU-week
	Monthly  *float64 `yaml:"monthly"` // per GPU-month
	Spot     *float64 `yaml:"spot"`    // per GPU-hour
	Currency string   `yaml:"currency"`
	AsOf     string   `yaml:"as_of"`
}

// Publish holds S3 and SMTP settings (used from the publishing stage on).
type Publish struct {
	S3   S3   `yaml:"s3"`
	SMTP SMTP `yaml:"smtp"`
	// LinkBaseURL, when set, is where the uploaded objects can be read
	// (a bucket website, a CDN): emails link to LinkBaseURL/<S3 key>.
	LinkBaseURL string `yaml:"link_base_url"`
	// MetricsTextfile is a node-exporter textfile the run writes its result
	// to (finops_last_run_timestamp_seconds, finops_last_run_success).
	MetricsTextfile string `yaml:"metrics_textfile"`
}

// S3 settings. Credentials come from the environment variables (or file)
// named here, else from the default AWS credential chain; never from the YAML.
type S3 struct {
	Bucket          string   `yaml:"bucket"`
	Prefix          string   `yaml:"prefix"`
	Region          string   `yaml:"region"`
	Endpoint        string   `yaml:"endpoint"`
	PathStyle       bool     `yaml:"path_style"`
	AccessKeyEnv    string   `yaml:"access_key_env"`    // name of the env var holding the access key id
	SecretKeyEnv    string   `yaml:"secret_key_env"`    // name of the env var holding the secret key
	SecretKeyFile   string   `yaml:"secret_key_file"`   // or a file holding it
	SessionTokenEnv string   `yaml:"session_token_env"` // optional
	RetentionWeeks  int      `yaml:"retention_weeks"`   // delete snapshots older than this; 0 keeps all
	Timeout         Duration `yaml:"timeout"`           // deadline for the whole upload stage (default 10m)
}

// SMTP settings. The password comes from PasswordEnv or PasswordFile.
type SMTP struct {
	Host         string   `yaml:"host"`
	Port         int      `yaml:"port"`
	TLS          string   `yaml:"tls"` // starttls (default), implicit, none (localhost only)
	From         string   `yaml:"from"`
	User         string   `yaml:"user"`
	PasswordEnv  string   `yaml:"password_env"`
	PasswordFile string   `yaml:"password_file"`
	Admins       []string `yaml:"admins"`
	Timeout      Duration `yaml:"timeout"` // connect and per-command deadline (default 30s)
	CAFile       string   `yaml:"ca_file"` // PEM roots to trust instead of the system's (a private CA)
}

// Check is a check of the config that takes what another package owns: the
// billing formats and column mappings of ingest and the addresses' token
// parameters (source.CheckConfig), Prometheus addresses
// (telemetry.CheckConfig), the GPU catalog (GPUModelCheck(gpu.Model)), the
// watch's placeholders (CommandCheck(watch.CheckCommand)). config imports
// none of them: the caller hands the checks to Load or Parse, whose error
// then holds their refusals after Validate's, a key error among them with
// its line, as the user has always seen them.
type Check func(*Config) []error

// Load reads and validates the file at path with read (internal/capped's
// ReadRegular: a regular file, bounded), then runs checks. A missing file is
// an error only when required is true: ad hoc use needs no config.
func Load(path string, required bool, read ReadFunc, checks ...Check) (*Config, error) {
	b, err := readFile(read, path, "the config (--config, $FINOPS_CONFIG)")
	if errors.Is(err, os.ErrNotExist) && !required {
		c := &Config{}
		return c, c.Validate(checks...)
	}
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	return parse(path, b, read, checks)
}

// Parse decodes YAML strictly (decodeStrict), validates the result and runs
// checks. It reads no file: a price_catalog is read by Load.
func Parse(name string, b []byte, checks ...Check) (*Config, error) {
	return parse(name, b, nil, checks)
}

func parse(name string, b []byte, read ReadFunc, checks []Check) (*Config, error) {
	c := &Config{}
	if len(b) > MaxFileBytes {
		return nil, fmt.Errorf("config: %s holds %d bytes, over the %d MiB limit: is it the right file?", name, len(b), MaxFileBytes>>20)
	}
	if err := decodeStrict(b, c); err != nil {
		return nil, fmt.Errorf("config: %s: %w", name, err)
	}
	if err := c.loadPriceCatalog(read, name); err != nil {
		return nil, fmt.Errorf("config: %s: %w", name, err)
	}
	if err := c.Validate(checks...); err != nil {
		return nil, fmt.Errorf("config: %s: %w", name, withLines(b, err))
	}
	return c, nil
}

// Validate checks what can be checked without touching files, then runs the
// checks of what other packages own (Check), whose refusals come last.
func (c *Config) Validate(checks ...Check) error {
	var errs refusals
	if _, err := c.Location(); err != nil {
		errs.add(err)
	}
	errs = append(errs, c.validateSources()...)
	errs.add(c.Telemetry.validate())
	errs = append(errs, c.validateNames()...)
	errs = append(errs, c.Thresholds.validate()...)
	errs = append(errs, c.validateRanges()...)
	errs = append(errs, c.Publish.validate()...)
	errs = append(errs, c.Sources.validate()...)
	errs = append(errs, c.validatePurchase()...)
	errs = append(errs, c.validateWatch()...)
	errs = append(errs, c.validateAllocation()...)
	errs = append(errs, c.Energy.validate()...)
	errs = append(errs, c.validateReport()...)
	for _, check := range checks {
		errs = append(errs, check(c)...)
	}
	return errors.Join(errs...)
}

// validateSources checks the billing sources, the mappings' zones and the
// nvidia-smi logs; their formats, encodings, built-in mappings and field
// lists are ingest's (source.CheckConfig).
func (c *Config) validateSources() []error {
	var errs refusals
	for i, s := range c.Billing {
		if s.Path == "" {
			errs.add(fmt.Errorf("billing[%d]: path is required", i))
		}
	}
	for name, m := range c.Mappings {
		if m.Timezone != "" {
			if _, err := time.LoadLocation(m.Timezone); err != nil {
				errs.add(fmt.Errorf("mappings.%s.timezone: %w", name, err))
			}
		}
	}
	for i, h := range c.Telemetry.NvidiaSMI {
		if h.Path == "" || h.Host == "" {
			errs.add(fmt.Errorf("utilization.nvidia_smi[%d]: path and host are required", i))
		}
		if h.Timezone != "" {
			if _, err := time.LoadLocation(h.Timezone); err != nil {
				errs.add(fmt.Errorf("utilization.nvidia_smi[%d].timezone: %w", i, err))
			}
		}
	}
	return errs
}

// validateNames checks that resources, teams and prices have their names,
// and the report formats.
func (c *Config) validateNames() []error {
	var errs refusals
	seen := map[string]bool{}
	for i, r := range c.Resources {
		if r.ID == "" {
			errs.add(fmt.Errorf("resources[%d]: id is required", i))
		}
		if seen[r.ID] {
			errs.add(fmt.Errorf("resources[%d]: id %q appears twice", i, r.ID))
		}
		seen[r.ID] = true
	}
	for i, t := range c.Teams {
		if t.Name == "" {
			errs.add(fmt.Errorf("teams[%d]: name is required", i))
		}
		for _, a := range t.Leads {
			if !plausibleEmail(a) {
				errs.add(fmt.Errorf("teams[%d].leads: %q is not an email address", i, a))
			}
		}
	}
	for i, p := range c.Prices {
		if p.Provider == "" || p.GPUModel == "" {
			errs.add(fmt.Errorf("%s: provider and gpu_model are required", c.priceKey(i)))
		}
		if p.Hourly == nil && p.Daily == nil && p.Weekly == nil && p.Monthly == nil && p.Spot == nil {
			errs.add(fmt.Errorf("%s: give at least one of hourly, daily, weekly, monthly, spot", c.priceKey(i)))
		}
	}
	for _, f := range c.Formats {
		switch f {
		case "xlsx", "html", "json", "csv":
		default:
			errs.add(fmt.Errorf("formats: %q is not one of xlsx, html, json, csv", f))
		}
	}
	return errs
}

// Location is the zone days and weeks are cut in (default UTC).
func (c *Config) Location() (*time.Location, error) {
	if c.Timezone == "" {
		return time.UTC, nil
	}
	loc, err := time.LoadLocation(c.Timezone)
	if err != nil {
		return nil, fmt.Errorf("timezone: %w", err)
	}
	return loc, nil
}

func plausibleEmail(s string) bool {
	at := strings.LastIndexByte(s, '@')
	return at > 0 && at < len(s)-1 && !strings.ContainsAny(s, " \r\n<>,;\"")
}
