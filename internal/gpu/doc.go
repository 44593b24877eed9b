// Package gpu is finops's one GPU catalog: the canonical model names, the
// names and aliases drivers, bills and rental platforms print for them, the
// cloud instance types that carry a fixed number of them (AWS, GCP, Azure,
// Alibaba Cloud), and each model's memory and compute figures. Ingest,
// config, the planner and the rent-or-buy review all resolve GPU names here,
// so "A100-SXM4-80GB" is the same card everywhere.
//
// It imports only the standard library, so every package may use it.
package gpu
