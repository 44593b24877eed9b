// Writes the Parquet fixtures of this folder from the CSV samples beside it,
// with DuckDB: an independent Parquet writer, so finops's reader is tested on
// files it did not write. CI does not run this; the outputs are committed.
//
//   cd testdata/ingest/parquet
//   npm install --no-save @duckdb/node-api@1.5.6-r.1
//   node generate.mjs
//
// Each COPY writes the types the exporters write (see the comments).
import { DuckDBInstance } from '@duckdb/node-api';

const db = await DuckDBInstance.create(':memory:');
const c = await db.connect();
const run = (sql) => c.run(sql);

await run(`SET TimeZone = 'UTC'`);

// The FOCUS 1.0 sample, every column as text first, exactly as in the CSV.
await run(`CREATE TABLE focus AS SELECT * FROM read_csv('../focus_sample.csv', all_varchar = true, nullstr = 'NULL', header = true)`);

// AWS FOCUS in Parquet: costs and quantities DOUBLE, times text.
const money = ['BilledCost', 'EffectiveCost', 'ListCost', 'ContractedCost', 'ContractedUnitPrice', 'ListUnitPrice',
  'ConsumedQuantity', 'PricingQuantity'];
const asDouble = money.map((m) => `CAST("${m}" AS DOUBLE) AS "${m}"`).join(', ');
await run(`COPY (SELECT * REPLACE (${asDouble}) FROM focus) TO 'focus_double.parquet' (FORMAT parquet)`);

// Costs DECIMAL(38,10) (a FIXED_LEN_BYTE_ARRAY decimal), quantities
// DECIMAL(18,14) (an INT64 decimal), charge periods TIMESTAMP (UTC adjusted,
// micros) and BillingPeriodStart/End as TIMESTAMP_MS and TIMESTAMP_NS, Tags as
// a MAP(VARCHAR, VARCHAR).
const asDecimal = ['BilledCost', 'EffectiveCost', 'ListCost', 'ContractedCost']
  .map((m) => `CAST("${m}" AS DECIMAL(38,10)) AS "${m}"`).join(', ');
await run(`COPY (SELECT * REPLACE (${asDecimal},
    CAST(ConsumedQuantity AS DECIMAL(18,14)) AS ConsumedQuantity,
    CAST(ChargePeriodStart AS TIMESTAMPTZ) AS ChargePeriodStart,
    CAST(ChargePeriodEnd AS TIMESTAMPTZ) AS ChargePeriodEnd,
    CAST(BillingPeriodStart AS TIMESTAMP_MS) AS BillingPeriodStart,
    CAST(BillingPeriodEnd AS TIMESTAMP_NS) AS BillingPeriodEnd,
    CAST(json_transform(Tags, '"MAP(VARCHAR, VARCHAR)"') AS MAP(VARCHAR, VARCHAR)) AS Tags)
  FROM focus) TO 'focus_decimal.parquet' (FORMAT parquet)`);

// A cost column holding text: row 3's BilledCost is "abc".
await run(`COPY (SELECT * EXCLUDE (rn) REPLACE (CASE WHEN rn = 3 THEN 'abc' ELSE BilledCost END AS BilledCost)
  FROM (SELECT *, row_number() OVER () AS rn FROM focus LIMIT 5)) TO 'bad_cost_text.parquet' (FORMAT parquet)`);

// CUR 2.0 as AWS Data Exports writes it in Parquet: costs DOUBLE, dates
// TIMESTAMP (UTC, millis), product, resource_tags and cost_category as
// map<string,string>, in the export's BILLING_PERIOD= layout with its manifest.
const cur2CSV = '../aws/cur2/exports/gpu-export/data/BILLING_PERIOD=2026-01/gpu-export-00001.csv.gz';
await run(`CREATE TABLE cur2 AS SELECT * FROM read_csv('${cur2CSV}', all_varchar = true, header = true)`);
const curDoubles = ['line_item_usage_amount', 'line_item_unblended_cost', 'line_item_net_unblended_cost',
  'pricing_public_on_demand_cost', 'reservation_effective_cost', 'savings_plan_savings_plan_effective_cost']
  .map((m) => `CAST(${m} AS DOUBLE) AS ${m}`).join(', ');
const curMaps = ['product', 'resource_tags', 'cost_category']
  .map((m) => `CAST(json_transform(${m}, '"MAP(VARCHAR, VARCHAR)"') AS MAP(VARCHAR, VARCHAR)) AS ${m}`).join(', ');
const curTimes = ['bill_billing_period_start_date', 'line_item_usage_start_date', 'line_item_usage_end_date']
  .map((m) => `CAST(CAST(${m} AS TIMESTAMPTZ) AS TIMESTAMP_MS) AS ${m}`).join(', ');
await run(`COPY (SELECT * REPLACE (${curDoubles}, ${curMaps}, ${curTimes}) FROM cur2)
  TO 'cur2/exports/gpu-export/data/BILLING_PERIOD=2026-01/gpu-export-00001.snappy.parquet' (FORMAT parquet, COMPRESSION snappy)`);

// The same with a unblended cost that is text: row 2 says "abc".
await run(`COPY (SELECT * REPLACE (CASE WHEN identity_line_item_id = 'c2-2' THEN 'abc' ELSE line_item_unblended_cost END AS line_item_unblended_cost,
    ${curMaps}) FROM cur2) TO 'bad_cur2_cost_text.parquet' (FORMAT parquet)`);

c.closeSync();
