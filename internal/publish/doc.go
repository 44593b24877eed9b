// Package publish delivers a run's results: it uploads the reports and a
// database snapshot to S3 or an S3-compatible service, prunes old snapshots,
// builds the team-lead and admin emails and sends them over SMTP.
//
// It knows nothing of the database or the ledger: cmd/finops decides what to
// upload and send, and records what went out. The names it gives objects and
// attachments come from package objkey.
package publish
