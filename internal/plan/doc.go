// Package plan estimates GPU memory, hours and budget for planned work.
//
// It implements the four-step method of metrics.md §Planner: list the
// scenarios, find the GPU memory and hours each needs, turn them into card-hours
// and price them with a risk coefficient. Everything here is pure computation
// over a parsed scenario file (no clock, no network); the only file it reads is
// the scenario file itself, in load.go. Every number it produces carries the
// formula that made it, so the terminal table, the workbook, the JSON and
// `finops plan --explain` can all say how it was got.
package plan
