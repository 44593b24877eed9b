// Package finops holds the records every stage of the pipeline shares: the
// billing lines, GPU samples and task runs that ingest produces and the store
// persists, the per-minute utilization series the store loads for the
// analysis, and the vocabulary they are written in (charge categories,
// pricing modes) with the few rules that are about a record alone (a line's
// cost basis, whether it is GPU usage, a GPU's key, a valid utilization).
//
// It is the contract between the stages, so it depends on nothing of this
// module: no parsing (file formats belong to ingest), no SQL (the store), no
// I/O and no computation across records (the analysis). A new export format
// needs no change here unless it brings a field no record has yet.
package finops
