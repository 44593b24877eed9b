// Package ingest reads billing exports, GPU telemetry and task files and turns
// them into the normalized records of package finops; it knows file formats,
// not the database.
package ingest
