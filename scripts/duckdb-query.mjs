// Runs one SQL query on DuckDB (npm @duckdb/node-api) and writes its result
// as CSV: the warehouse pushdown test (cmd/finops TestWarehousePushdown)
// runs docs/SCALE.md's queries with it over the Parquet fixtures, the way
// Athena or BigQuery would over an export.
//
//   node scripts/duckdb-query.mjs MODULES QUERY.sql OUT.csv [SETUP_SQL...]
//
// MODULES is the folder given to `npm install --prefix` (.ci/run installs
// @duckdb/node-api@1.5.6-r.1 into .cache/duckdb), so the package is found
// without a node_modules in the repository. Each SETUP_SQL runs first: the
// test defines there the tables the query names (a view over the Parquet
// files), as CREATE EXTERNAL TABLE does in Athena. The CSV is written the
// way Athena writes a query's result: every value quoted, NULL as an empty
// field, times in UTC as 2026-01-15 10:00:00.000.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [modules, queryFile, out, ...setup] = process.argv.slice(2);
if (!modules || !queryFile || !out) {
  console.error('usage: node duckdb-query.mjs MODULES QUERY.sql OUT.csv [SETUP_SQL...]');
  process.exit(2);
}
const resolved = createRequire(join(modules, 'package.json')).resolve('@duckdb/node-api');
const { DuckDBInstance } = await import(pathToFileURL(resolved).href);

const db = await DuckDBInstance.create(':memory:');
const c = await db.connect();
await c.run(`SET TimeZone = 'UTC'`);
for (const s of setup) {
  await c.run(s);
}
// The query as written, without its trailing semicolon, inside COPY.
const query = readFileSync(queryFile, 'utf8').trim().replace(/;$/, '');
const quoted = out.replaceAll("'", "''");
await c.run(`COPY (${query}) TO '${quoted}' (FORMAT csv, HEADER true, FORCE_QUOTE *, TIMESTAMPFORMAT '%Y-%m-%d %H:%M:%S.%g')`);
c.closeSync();
