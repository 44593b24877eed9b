// Package templates holds the files the HTML report and the email body are
// built from: the page template, its stylesheet, the email template and, when
// `make assets` has fetched it, the ECharts library that the page inlines so
// it opens offline.
package templates

import (
	"embed"
	"html/template"
	"io/fs"
)

// pages holds the page template and its stylesheet. They are parsed together so
// the CSS stays a plain file that editors and linters understand.
//
//go:embed report.html.tmpl report.css email.html.tmpl review.html.tmpl
var pages embed.FS

// assets holds the third-party scripts. The directory pattern (rather than the
// file name) keeps the build working when echarts.min.js has not been fetched:
// assets/README.md is always there, the library only when fetch-echarts.sh ran.
//
//go:embed assets
var assets embed.FS

// echartsPath is where fetch-echarts.sh installs the library.
const echartsPath = "assets/echarts.min.js"

// Report parses and returns the page template. The stylesheet is available to it
// as the template "report.css". A fresh template is returned on every call so
// callers can add functions or clone it without sharing state.
//
// The files are embedded and parsed by a test, so a parse error is a build
// defect; it panics instead of burdening every caller with an impossible error.
func Report() *template.Template {
	return template.Must(template.New("report.html.tmpl").ParseFS(pages, "report.html.tmpl", "report.css"))
}

// Email parses and returns the HTML email body template (inline styles only:
// mail clients drop style blocks). A fresh template is returned on every call.
func Email() *template.Template {
	return template.Must(template.New("email.html.tmpl").ParseFS(pages, "email.html.tmpl"))
}

// ECharts returns the embedded, minified ECharts library, or nil when this build
// was made without running fetch-echarts.sh. Callers must then render without
// charts; there is deliberately no CDN fallback.
func ECharts() []byte {
	b, err := fs.ReadFile(assets, echartsPath)
	if err != nil || len(b) == 0 {
		return nil
	}
	return b
}
