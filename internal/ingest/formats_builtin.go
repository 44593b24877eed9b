package ingest

import (
	"fmt"
	"strings"
)

// billingSourceKeys are the keys of a config billing source every billing
// format accepts; rentalSourceKeys adds the mapping a rental CSV is read by.
func billingSourceKeys() []string { return []string{"path", "format", "currency"} }
func rentalSourceKeys() []string  { return append(billingSourceKeys(), "mapping") }

// builtinFormats is the table of the formats this package reads, a fresh
// copy each call (no package state). Its order is the order formats are
// listed in messages (Formats); detection goes by Precedence.
func builtinFormats() registry {
	return registry{
		focusFormat(), smiFormat(), tasksFormat(), rentalFormat(),
		curFormat(), cur2Format(), azureFormat(), gcpFormat(),
		runpodFormat(), vastFormat(),
	}
}

func focusFormat() Format {
	return Format{
		Name: FormatFOCUS, Kind: KindBilling, Describe: "a FOCUS export", Columns: "BilledCost, ChargePeriodStart, ...",
		Doc: "docs/INGEST.md#focus", Sample: "focus_sample.csv",
		ConfigKeys: billingSourceKeys(), Supersede: SupersedeByCharge,
		Identity:   []string{"BillingAccountId", "ResourceId", "ChargePeriodStart", "ChargePeriodEnd", "SkuId", "ChargeCategory"},
		Precedence: 10,
		Detect:     func(h *Header) bool { return h.Has("BilledCost", "ChargePeriodStart") },
		setup: func(s setupInput) (parserSetup, *ParseError) {
			p, miss := newFOCUSParser(s.cols, s.opt)
			if len(miss) > 0 {
				return parserSetup{}, s.missingErr("a FOCUS export", miss)
			}
			return parserSetup{p: p, format: FormatFOCUS, kind: KindBilling, header: s.det.header}, nil
		},
	}
}

func smiFormat() Format {
	return Format{
		Name: FormatNvidiaSMI, Kind: KindUtilization, Describe: "an nvidia-smi log", Columns: "timestamp, index, utilization.gpu [%], ... of nvidia-smi --query-gpu --format=csv",
		Doc: "docs/INGEST.md#nvidia-smi-logs-with-a-header-the-shapes-read", Sample: "smi_shanghai.csv",
		Supersede:  SupersedeNever,
		Precedence: 20,
		Detect:     func(h *Header) bool { return isNvidiaSMIHeader(h.names) },
		Norm:       smiColumn,
		setup: func(s setupInput) (parserSetup, *ParseError) {
			return newSMISetup(s.det.header, s.cols, s.opt, s.fileErr, s.det.format != "", s.looksLike)
		},
	}
}

func tasksFormat() Format {
	return Format{
		Name: FormatTasks, Kind: KindTasks, Describe: "a finops tasks file", Columns: "task, resource or resource_id, start, end, ...",
		Doc: "docs/INGEST.md#tasks-files", Sample: "tasks_sample.csv",
		Supersede:  SupersedeNever,
		Precedence: 30,
		Detect:     func(h *Header) bool { return h.Has("task", "resource", "start", "end") },
		// A tasks file may call its resource resource_id, as the mappings'
		// field is called: only a header no mapping reads is taken for one.
		Fallback: func(h *Header) bool { return len(missingTaskColumns(h.idx)) == 0 },
		setup: func(s setupInput) (parserSetup, *ParseError) {
			p, miss := newTasksParser(s.cols, s.opt)
			if len(miss) > 0 {
				return parserSetup{}, s.fileErr(fmt.Sprintf("not a tasks file: missing column(s) %s%s",
					strings.Join(miss, ", "), s.looksLike))
			}
			return parserSetup{p: p, format: FormatTasks, kind: KindTasks, header: s.det.header}, nil
		},
	}
}

func rentalFormat() Format {
	return Format{
		Name: FormatRental, Kind: KindBilling, Describe: "a rental CSV", Columns: "the columns a mapping in the config names",
		Doc: "docs/INGEST.md#rental-platform-csvs-column-mappings", Sample: "autodl_sample.csv",
		ConfigKeys: rentalSourceKeys(), Supersede: SupersedeByCharge,
		// Mapping fields, not columns: a mapping names the columns.
		Identity:   []string{"resource_id", "start", "end", "sku"},
		Precedence: 80,
		Detect: func(h *Header) bool {
			for i := range h.mappings {
				if len(h.mappings[i].missingColumns(h.idx)) == 0 {
					m := h.mappings[i]
					h.mapping = &m
					return true
				}
			}
			return false
		},
		setup: func(s setupInput) (parserSetup, *ParseError) {
			if s.det.format != FormatRental {
				msg := "no column mapping matches this header"
				if s.det.err != nil {
					msg += ": " + s.det.err.Error()
				} else {
					msg += s.looksLike
				}
				return parserSetup{}, s.fileErr(msg)
			}
			if err := s.det.mapping.Validate(); err != nil {
				return parserSetup{}, s.fileErr(err.Error() + "; fix the mapping in the config")
			}
			return parserSetup{p: newRentalParser(s.cols, *s.det.mapping, s.opt), format: FormatRental, kind: KindBilling,
				header: s.det.header}, nil
		},
	}
}

func curFormat() Format {
	return Format{
		Name: FormatCUR, Kind: KindBilling, Describe: "an AWS Cost and Usage Report", Columns: "lineItem/UnblendedCost, lineItem/LineItemType, ...",
		Doc: "docs/INGEST.md#aws-cur", Sample: "aws/test_cur.csv",
		ConfigKeys: billingSourceKeys(), Supersede: SupersedeByCharge,
		Identity: []string{"lineItem/UsageAccountId", "lineItem/ResourceId", "lineItem/UsageStartDate",
			"lineItem/UsageEndDate", "lineItem/UsageType", "lineItem/LineItemType"},
		Precedence: 50, // after CUR 2.0, whose headers are CUR headers too
		Detect:     func(h *Header) bool { return isCURHeader(h.idx) },
		Norm:       curNorm,
		setup:      curSetup(FormatCUR, "an AWS Cost and Usage Report"),
	}
}

func cur2Format() Format {
	return Format{
		Name: FormatCUR2, Kind: KindBilling, Describe: "an AWS CUR 2.0 export", Columns: "line_item_unblended_cost, line_item_line_item_type, ...",
		Doc:        "docs/INGEST.md#aws-cur2",
		Sample:     "aws/cur2/exports/gpu-export/data/BILLING_PERIOD=2026-01/gpu-export-00001.csv.gz",
		ConfigKeys: billingSourceKeys(), Supersede: SupersedeByCharge,
		Identity: []string{"line_item_usage_account_id", "line_item_resource_id", "line_item_usage_start_date",
			"line_item_usage_end_date", "line_item_usage_type", "line_item_line_item_type"},
		Precedence: 40,
		Detect:     func(h *Header) bool { return isCURHeader(h.idx) && isCUR2Header(h.idx) },
		Norm:       curNorm,
		setup:      curSetup(FormatCUR2, "an AWS CUR 2.0 export"),
	}
}

// curSetup is the setup of both CUR formats: one parser reads either.
func curSetup(format, describe string) func(setupInput) (parserSetup, *ParseError) {
	return func(s setupInput) (parserSetup, *ParseError) {
		cp, miss := newCURParser(s.cols, s.opt)
		if len(miss) > 0 {
			return parserSetup{}, s.missingErr(describe, miss)
		}
		return parserSetup{p: cp, format: format, kind: KindBilling, header: s.cols.hdr}, nil
	}
}

func azureFormat() Format {
	return Format{
		Name: FormatAzure, Kind: KindBilling, Describe: "an Azure cost export", Columns: "Date, CostInBillingCurrency, MeterCategory, ...",
		Doc: "docs/INGEST.md#azure", Sample: "azure/EA_ActualCost_Small.csv",
		ConfigKeys: billingSourceKeys(),
		// The parser reads the billing scope, month and cost basis: the
		// actual-cost and amortized exports of a month replace each other.
		Supersede:  SupersedeByPeriod,
		Identity:   []string{"SubscriptionId", "ResourceId", "Date", "MeterId", "ChargeType"},
		Precedence: 70,
		Detect:     func(h *Header) bool { return isAzureHeader(h.names) },
		Norm:       azureNorm,
		setup: func(s setupInput) (parserSetup, *ParseError) {
			ap, miss := newAzureParser(s.cols, s.opt)
			if len(miss) > 0 {
				return parserSetup{}, s.missingErr("an Azure cost export", miss)
			}
			return parserSetup{p: ap, format: FormatAzure, kind: KindBilling, header: s.cols.hdr}, nil
		},
	}
}

func gcpFormat() Format {
	return Format{
		Name: FormatGCP, Kind: KindBilling, Describe: "a GCP billing export", Columns: "cost, usage_start_time, usage_end_time, sku.description, ...",
		Doc: "docs/INGEST.md#gcp", Sample: "gcp/2022-08-01_5.csv",
		ConfigKeys: billingSourceKeys(), Supersede: SupersedeByCharge,
		Identity:   []string{"billing_account_id", "resource.name", "usage_start_time", "usage_end_time", "sku.id", "cost_type"},
		Precedence: 60,
		Detect:     func(h *Header) bool { return isGCPHeader(h.names) },
		Norm:       alnumLower,
		setup: func(s setupInput) (parserSetup, *ParseError) {
			gp, miss := newGCPCSVParser(s.cols, s.opt)
			if len(miss) > 0 {
				return parserSetup{}, s.missingErr("a GCP billing export", miss)
			}
			return parserSetup{p: gp, format: FormatGCP, kind: KindBilling, header: s.cols.hdr}, nil
		},
	}
}

func runpodFormat() Format {
	return Format{
		Name: FormatRunPod, Kind: KindBilling, Describe: "a RunPod billing file",
		Doc: "docs/INGEST.md#runpod-billing-json", Sample: "rental/runpod_billing_pods.json",
		ConfigKeys: billingSourceKeys(), Supersede: SupersedeByCharge,
		Identity: []string{"podId", "time", "gpuTypeId"},
		record:   isRunPodRecord,
		records:  func(opt Options) jsonRecordParser { return newRunPodParser(opt) },
	}
}

func vastFormat() Format {
	return Format{
		Name: FormatVast, Kind: KindBilling, Describe: "a Vast.ai billing file",
		Doc: "docs/INGEST.md#vastai-billing-json", Sample: "rental/vast_charges.json",
		ConfigKeys: billingSourceKeys(), Supersede: SupersedeByCharge,
		Identity: []string{"source", "start", "end", "type"},
		record:   isVastRecord,
		records:  func(opt Options) jsonRecordParser { return newVastParser(opt) },
	}
}
