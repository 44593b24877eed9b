// Package rollup combines the JSON summaries of several finops — one per
// cluster or business unit, a shard each — into one analysis.Result that
// the report writers render as the organisation's workbook, page and
// summary (`finops rollup`, docs/ROLLUP.md). It reads only the files it is
// given; it never reaches the store, an ingest parser or publishing.
//
// A shard counts once and only as what its parts add up to: a file that is
// not a regular one under MaxShardBytes, the same summary or database twice,
// totals its parts do not add up to, a key twice and a rate out of bounds
// or given twice are refused (docs/ROLLUP.md). What cannot be combined is
// refused (another schema version, different periods, a currency without a
// rate, two shards of one name), or dropped
// and named in the data-quality warnings (the sections it does not combine,
// and keys this finops does not know): never silently.
package rollup
