package deliver

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"path/filepath"
	"strings"

	"github.com/finops-oss/finops/internal/analysis"
	"github.com/finops-oss/finops/internal/config"
	"github.com/finops-oss/finops/internal/report"
	"github.com/finops-oss/finops/internal/reportjob"
)

// teamPage is one team's own files of the period: its slice of the result,
// its workbook and its HTML page. The names are chosen once for the run, so
// that the lead's email, the team's chat digest and the upload agree.
type teamPage struct {
	team   string // as configured
	result *analysis.Result
	// view is the team's chargeback and movers, built once: its page,
	// workbook, email and digest all render this one (report.Audience).
	view     *report.Audience
	workbook string
	page     string
	written  bool
}

// digestOn reports whether this run sends chat digests.
func (r *Run) digestOn() bool {
	return r.Config.Watch.Digest && len(chatChannels(r.Config)) > 0
}

// teamPages names the files of every team that may be told about its week:
// by email (it has leads) or in chat (a channel listing it); the names
// consider them all, so that they do not depend on which are sent this run. A
// team with no row in the result, or nothing to tell (nothingToTell), has
// none. report.BaseName already keeps names that lose characters apart ("数据组" is ___-0f8c4195,
// sanitize.FileLabelUnique); a name spelt like another's label, hash and
// all, would still share its files (and S3 keys), so a second, shorter hash
// follows there.
func (r *Run) teamPages(res *analysis.Result, dir string, reports []string) map[string]*teamPage {
	if r.pages != nil {
		return r.pages
	}
	r.pages = map[string]*teamPage{}
	used := map[string]bool{}
	for _, p := range reports {
		used[strings.TrimSuffix(filepath.Base(p), filepath.Ext(p))] = true
	}
	chat := r.digestOn()
	for _, t := range r.Config.Teams {
		byMail := len(t.Leads) > 0
		byChat := chat && len(digestRoute(r.Config, t.Name)) > 0
		if !byMail && !byChat {
			continue
		}
		slice := res.ForTeam(t.Name)
		if slice == nil || nothingToTell(slice) {
			continue
		}
		team := slice.ByTeam[0].Team
		base := report.BaseName(slice, report.Meta{Team: team})
		if used[base] {
			h := sha256.Sum256([]byte(team))
			base += "-" + hex.EncodeToString(h[:3])
		}
		used[base] = true
		r.pages[t.Name] = &teamPage{team: t.Name, result: slice, view: report.NewAudience(slice, team, res.Chargeback),
			workbook: filepath.Join(dir, base+".xlsx"), page: filepath.Join(dir, base+".html")}
	}
	return r.pages
}

// writeTeamPage writes a team's page and workbook once, recorded for upload
// when uploading.
func (r *Run) writeTeamPage(ctx context.Context, p *teamPage) error {
	if p.written {
		return nil
	}
	meta := report.Meta{GeneratedAt: r.now(), Version: r.Version, Team: p.result.ByTeam[0].Team, View: p.view}
	if err := report.WriteFileAtomic(p.page, func(w io.Writer) error { return report.WriteHTML(w, p.result, meta) }); err != nil {
		return err
	}
	meta.Lines = r.Store.LineStream(ctx, r.Window.Start, r.Window.End, reportjob.TeamLineFilter(r.Config, p.result))
	if err := report.WriteFileAtomic(p.workbook, func(w io.Writer) error { return report.WriteXLSX(w, p.result, meta) }); err != nil {
		return err
	}
	if r.Transports.S3 != nil {
		for _, f := range []string{p.workbook, p.page} {
			if err := r.recordArtifact(ctx, f); err != nil {
				return err
			}
		}
	}
	p.written = true
	return nil
}

// told reports whether this run tells team t about its week: by email (it
// has leads and there is a mail server) or in chat (the digest is on and a
// channel lists it). Only such a team's files are written and uploaded.
func (r *Run) told(t config.Team) bool {
	return len(t.Leads) > 0 && r.Transports.SMTP != nil || r.digestOn() && len(digestRoute(r.Config, t.Name)) > 0
}

// writeTeamPages writes every named team's files before the upload, so
// that a page a digest links is in the bucket when the digest goes out.
func (r *Run) writeTeamPages(ctx context.Context, res *analysis.Result, dir string, reports []string) error {
	for _, t := range r.Config.Teams {
		if p := r.teamPages(res, dir, reports)[t.Name]; p != nil && r.told(t) {
			if err := r.writeTeamPage(ctx, p); err != nil {
				return err
			}
		}
	}
	return nil
}
