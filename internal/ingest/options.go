package ingest

import (
	"time"

	"github.com/finops-oss/finops/internal/gpu"
)

// Options tell a parser what the file itself does not say.
type Options struct {
	// Name is the file's path or URI as the user gave it; errors name it.
	Name string
	// Format forces a format; "" detects it from the header.
	Format string
	// Host is the GPU host of telemetry files that do not name it (nvidia-smi logs).
	Host string
	// Location is the zone of sources with local timestamps (nvidia-smi logs,
	// rental CSVs without a zone). nil = UTC.
	Location *time.Location
	// Mappings are the configured rental-platform column mappings, tried in
	// order when the header is not a known format.
	Mappings []ColumnMapping
	// Catalog recognises GPU instance types and GPU names. nil = gpu.NewCatalog().
	Catalog *gpu.Catalog
	// MaxBadRows is how many bad rows a file may have before it is refused;
	// rejected rows are counted in Summary.Rejected. Default 0: any bad row refuses the file.
	MaxBadRows int
	// Currency is the currency of billing lines whose file leaves it blank
	// (--currency, or the billing source's currency in the config). "" =
	// none: a line without a currency is a bad row.
	Currency string
	// SMIFields is the --query-gpu field list of nvidia-smi logs written
	// without a header (ParseSMIFields reads it); it implies the nvidia-smi
	// format. nil: the fields are told from the values, or refused.
	SMIFields []string
	// Formats are the formats to detect and read; nil = the built-in ones
	// (BuiltinFormats). A caller adds a format of its own by appending it.
	Formats []Format

	// oneGoroutine: parse and deliver every row on the caller's goroutine,
	// never in runPiped; the reference the tests compare runPiped with.
	oneGoroutine bool
}

// ColumnMapping maps a rental platform's CSV columns onto billing-line fields.
// Header names are matched case-insensitively after trimming spaces and a BOM.
type ColumnMapping struct {
	Name     string // e.g. "autodl"
	Provider string // ProviderName to record, e.g. "AutoDL"
	Currency string // when the file has no currency column, e.g. "CNY"
	// Columns maps a field to the header name in the file. Fields:
	//   resource_id (required), resource_name, start (required), end (required),
	//   cost (required; the amount actually paid), list_cost, currency,
	//   gpu (model and count in one cell: "RTX 4090 * 2"), gpu_model, gpu_count
	//   (when unmapped, a column named like a GPU count, GPU数量 or num_gpus, is
	//   read as it),
	//   pricing_mode (raw billing mode: 按量/包日/包周/包月/竞价, hourly, monthly, ...),
	//   region, sku, team, task, usage_quantity, usage_unit,
	//   account (billing account), service (product name),
	//   tags ("key1:value1;key2:value2" or a JSON object),
	//   instance_config (free text such as Alibaba's 实例配置, read for the GPU
	//   when neither gpu, gpu_model nor sku names it)
	Columns map[string]string
	// Modes maps raw pricing-mode values to Mode* constants, on top of the
	// built-in ones (按量 hourly, 包日 daily, 包周 weekly, 包月 monthly, 竞价 spot,
	// and the English words).
	Modes map[string]string
	// Location of the start/end timestamps when they carry no offset. nil = Options.Location.
	Location *time.Location
	// Encoding of the file's text: "" or "utf-8", "gbk" or "gb18030" (Chinese
	// consoles and Excel on Chinese Windows save CSVs in GBK). A file that is
	// evidently UTF-8 (BOM, or valid UTF-8 Chinese text) is read as UTF-8 even
	// under a GBK mapping.
	Encoding string

	// documented is the header a built-in mapping was written for (nil for a
	// configured mapping): a matching file's other columns that change what
	// a row means are warned about (rentalParser.headerWarning).
	documented []string
}
