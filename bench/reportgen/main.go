// Command reportgen writes the inputs of the report benchmark (bench/report.sh):
// one ISO week of a 1,000-GPU fleet, read by both finops and the pandas +
// openpyxl script (bench/pandas_report.py).
//
//   - DIR/focus.csv: a FOCUS 1.0 export of -lines billing lines (default
//     200,000). Each of the 250 resources (g5.12xlarge, 4×A10G, team tag) has
//     one instance-hour line per hour of the week (42,000 lines); the rest are
//     the smaller lines that come with them (EBS volume, data transfer, public
//     IPv4), spread over the same hours and resources.
//   - DIR/smi.csv: nvidia-smi --query-gpu CSV with a hostname column, one
//     sample per GPU every 5 minutes (2,016,000 rows). The hostname is the
//     resource's ResourceId, which is how finops matches telemetry to a billed
//     resource without a config. 5 minutes is the coarsest spacing finops
//     counts as continuous coverage (a sample covers at most 5 minutes), so an
//     idle span of 30 minutes can be seen; an hourly file could not show one.
//
// Utilization is deterministic: each GPU has a busy level, and resources idle
// at night, over the weekend or after their job ends, depending on their
// number, so idle waste and recommendations have something to find.
//
//	go run ./bench/reportgen -o /tmp/reportbench -week 2026-W46
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

const (
	gpusPerRes = 4
	hours      = 168
	hourlyRate = 5.672 // g5.12xlarge on-demand, USD
)

// fleet is the generated fleet's size and sampling: 250 resources (1,000
// GPUs) every 5 minutes for the report and year benchmarks, 2,500 (10,000
// GPUs) every minute for bench/fleet.sh.
type fleet struct {
	resources int
	step      time.Duration
}

var teams = []string{"nlp", "vision", "speech", "recsys", "research", "infra", "search", "ads"}

func main() {
	dir := flag.String("o", ".", "output folder")
	week := flag.String("week", "2026-W46", "ISO week (UTC)")
	lines := flag.Int("lines", 200000, "billing lines")
	history := flag.Int("history", 0, "also write this many weeks before -week as DIR/history/focus-<week>.csv (year benchmark)")
	historyLines := flag.Int("history-lines", 0, "billing lines per history week (default one instance-hour line per resource and hour)")
	telemetryDB := flag.String("telemetry-db", "", "instead: write -history weeks of compacted telemetry into this finops database (bench/year.sh)")
	smi := flag.Bool("smi", true, "write DIR/smi.csv (bench/fleet.sh turns it off for the history weeks' exports)")
	fl := fleet{}
	flag.IntVar(&fl.resources, "resources", 250, "resources of 4 GPUs")
	flag.DurationVar(&fl.step, "step", 5*time.Minute, "sampling interval of the nvidia-smi samples (whole minutes, at most 5m)")
	flag.Parse()
	if fl.resources < 1 || fl.step < time.Minute || fl.step > 5*time.Minute || fl.step%time.Minute != 0 {
		fmt.Fprintln(os.Stderr, "reportgen: -resources must be at least 1 and -step 1m to 5m in whole minutes")
		os.Exit(2)
	}
	if *historyLines == 0 {
		*historyLines = fl.resources * hours
	}
	start, err := isoWeek(*week)
	if err == nil && *telemetryDB != "" {
		err = fl.writeTelemetryHistory(*telemetryDB, start, *history)
		if err != nil {
			fmt.Fprintln(os.Stderr, "reportgen:", err)
			os.Exit(1)
		}
		return
	}
	if err == nil {
		err = os.MkdirAll(*dir, 0o755)
	}
	if err == nil {
		err = fl.writeFOCUS(filepath.Join(*dir, "focus.csv"), start, *lines)
	}
	if err == nil && *smi {
		err = fl.writeSMI(filepath.Join(*dir, "smi.csv"), start)
	}
	if err == nil && *history > 0 {
		err = os.MkdirAll(filepath.Join(*dir, "history"), 0o755)
		for w := 1; w <= *history && err == nil; w++ {
			ws := start.AddDate(0, 0, -7*w)
			y, n := ws.ISOWeek()
			err = fl.writeFOCUS(filepath.Join(*dir, "history", fmt.Sprintf("focus-%d-W%02d.csv", y, n)), ws, *historyLines)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "reportgen:", err)
		os.Exit(1)
	}
}

func isoWeek(s string) (time.Time, error) {
	var y, w int
	if _, err := fmt.Sscanf(s, "%d-W%d", &y, &w); err != nil {
		return time.Time{}, fmt.Errorf("week %q: want 2026-W46", s)
	}
	jan4 := time.Date(y, 1, 4, 0, 0, 0, 0, time.UTC)
	mon := jan4.AddDate(0, 0, -((int(jan4.Weekday()) + 6) % 7))
	return mon.AddDate(0, 0, 7*(w-1)), nil
}

func resID(r int) string { return fmt.Sprintf("i-0f%015d", r) }

// mix is a small deterministic hash (splitmix64) for reproducible noise.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// util is GPU g of resource r's utilization in percent at minute m of the week.
func util(r, g, m int) float64 {
	h := m / 60
	hod, dow := h%24, h/24
	idle := false
	switch r % 5 {
	case 0: // busy all week
	case 1: // idle at night
		idle = hod < 7 || hod >= 20
	case 2: // idle over the weekend
		idle = dow >= 5
	case 3: // job ended on Wednesday, kept on
		idle = h >= 60
	case 4: // bursty: idle for a few hours a day
		idle = (hod+r)%8 < 3
	}
	n := mix(uint64(r)<<40 | uint64(g)<<32 | uint64(m))
	if idle {
		return float64(n % 4) // 0–3 %
	}
	base := 45 + (r*7+g*13)%45
	return float64(base) + float64(n%21) - 10
}

func (fl fleet) writeSMI(path string, start time.Time) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	w.WriteString("timestamp, hostname, name, pci.bus_id, index, uuid, utilization.gpu [%], utilization.memory [%], memory.total [MiB], memory.used [MiB], power.draw [W]\n")
	var b []byte
	for m := 0; m < hours*60; m += int(fl.step / time.Minute) {
		ts := start.Add(time.Duration(m)*time.Minute + 7*time.Second).Format("2006/01/02 15:04:05.000")
		for r := range fl.resources {
			for g := range gpusPerRes {
				u := util(r, g, m)
				mem := 2000 + int(u*200)
				b = b[:0]
				b = append(b, ts...)
				b = append(b, ", "...)
				b = append(b, resID(r)...)
				b = fmt.Appendf(b, ", NVIDIA A10G, 00000000:%02X:00.0, %d, GPU-%08x-0000-4000-8000-%012x, %d %%, %d %%, 23028 MiB, %d MiB, %.2f W\n",
					0x10+g, g, r, g, int(u), int(u/2), mem, 60+u*2.4)
				w.Write(b)
			}
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

var focusHeader = []string{"AvailabilityZone", "BilledCost", "BillingAccountId", "BillingAccountName", "BillingCurrency",
	"BillingPeriodEnd", "BillingPeriodStart", "ChargeCategory", "ChargeClass", "ChargeDescription", "ChargeFrequency",
	"ChargePeriodEnd", "ChargePeriodStart", "CommitmentDiscountCategory", "CommitmentDiscountId", "CommitmentDiscountName",
	"CommitmentDiscountStatus", "CommitmentDiscountType", "ConsumedQuantity", "ConsumedUnit", "ContractedCost",
	"ContractedUnitPrice", "EffectiveCost", "InvoiceIssuerName", "ListCost", "ListUnitPrice", "PricingCategory",
	"PricingQuantity", "PricingUnit", "ProviderName", "PublisherName", "RegionId", "RegionName", "ResourceId",
	"ResourceName", "ResourceType", "ServiceCategory", "Id", "ServiceName", "SkuId", "SkuPriceId", "SubAccountId",
	"SubAccountName", "Tags"}

type extra struct {
	desc, unit, svc, cat, rtype, sku string
	qty, price                       float64
	res                              func(r int) string
}

var extras = []extra{
	{"$0.08 per GB-month of General Purpose (gp3) provisioned storage", "GB-Mo", "Amazon Elastic Compute Cloud", "Storage", "volume", "EBS:VolumeUsage.gp3", 0.6849, 0.08,
		func(r int) string { return fmt.Sprintf("vol-0e%015d", r) }},
	{"$0.09 per GB - first 10 TB / month data transfer out", "GB", "Amazon Elastic Compute Cloud", "Networking", "", "DataTransfer-Out-Bytes", 1.25, 0.09,
		func(r int) string { return resID(r) }},
	{"$0.005 per In-use public IPv4 address per hour", "Hours", "Amazon Virtual Private Cloud", "Networking", "", "PublicIPv4:InUseAddress", 1, 0.005,
		func(r int) string { return fmt.Sprintf("eni-0a%015d", r) }},
}

func (fl fleet) writeFOCUS(path string, start time.Time, lines int) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	for i, h := range focusHeader {
		if i > 0 {
			w.WriteByte(',')
		}
		w.WriteString(`"` + h + `"`)
	}
	w.WriteByte('\n')
	periodStart := time.Date(start.Year(), start.Month(), 1, 0, 0, 0, 0, time.UTC)
	periodEnd := periodStart.AddDate(0, 1, 0)
	const tf = "2006-01-02 15:04:05"
	bps, bpe := periodStart.Format(tf), periodEnd.Format(tf)
	id := 0
	row := func(r, h int, cost float64, qty float64, desc, unit, price, svc, cat, rtype, sku, az, res string) {
		id++
		team := teams[r%len(teams)]
		s := start.Add(time.Duration(h) * time.Hour)
		c := strconv.FormatFloat(cost, 'f', 10, 64)
		q := strconv.FormatFloat(qty, 'f', 10, 64)
		tags := fmt.Sprintf(`"{""team"": ""%s"", ""project"": ""p%03d"", ""environment"": ""prod""}"`, team, r%40)
		fields := []string{az, c, `"1234567890123"`, `"GPUCo"`, `"USD"`, `"` + bpe + `"`, `"` + bps + `"`, `"Usage"`, "NULL",
			`"` + desc + `"`, `"Usage-Based"`, `"` + s.Add(time.Hour).Format(tf) + `"`, `"` + s.Format(tf) + `"`,
			"NULL", "NULL", "NULL", "NULL", "NULL", q, `"` + unit + `"`, c, price, c, `"Amazon Web Services, Inc."`, c,
			`"` + price + `"`, `"Standard"`, q, `"` + unit + `"`, `"AWS"`, `"Amazon Web Services, Inc."`, `"us-east-1"`,
			`"US East (N. Virginia)"`, `"` + res + `"`, "NULL", rtype, `"` + cat + `"`, strconv.Itoa(id), `"` + svc + `"`,
			`"` + sku + `"`, `"` + sku + `.JRTCKXETXF"`, fmt.Sprintf(`"%011d"`, 10000000000+r%8), `"` + team + `"`, tags}
		w.WriteString(strings.Join(fields, ","))
		w.WriteByte('\n')
	}
	resources := fl.resources
	compute := resources * hours
	if lines < compute {
		compute = lines
	}
	for k := range compute {
		h, r := k/resources, k%resources
		row(r, h, hourlyRate, 1, "$5.672 per On Demand Linux g5.12xlarge Instance Hour", "Hours", "5.672",
			"Amazon Elastic Compute Cloud", "Compute", `"instance"`, "G5-12XL-USE1", `"us-east-1b"`, resID(r))
	}
	rest := lines - compute
	for k := range rest {
		h := k * hours / max(rest, 1)
		r := k % resources
		e := extras[(k/resources)%len(extras)]
		q := e.qty * (1 + float64(mix(uint64(k))%100)/1000)
		rt := "NULL"
		if e.rtype != "" {
			rt = `"` + e.rtype + `"`
		}
		row(r, h, q*e.price, q, e.desc, e.unit, strconv.FormatFloat(e.price, 'f', -1, 64), e.svc, e.cat, rt, e.sku, "NULL", e.res(r))
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
