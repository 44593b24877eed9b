// Package templates holds the files the HTML report and the email body are
// built from: the page template, its stylesheet, the email template and the
// ECharts library that the page inlines so it opens offline.
package templates

import (
	"embed"
	"html/template"
	"io/fs"
)

// pages holds the page template and its stylesheet. They are parsed together so
// the CSS stays a plain file that editors and linters understand.
//
//go:embed report.html.tmpl report.css email.html.tmpl review.html.tmpl energy.html.tmpl
var pages embed.FS

// assets holds the committed ECharts build and its pinned sha256. Naming the
// file (not the directory) makes a tree without it fail to compile instead of
// building a report without charts; TestEChartsMatchesPinnedHash checks the
// file is the verified one.
//
//go:embed assets/echarts.min.js assets/echarts.min.js.sha256
var assets embed.FS

// echartsPath is where the library is committed (make assets updates it).
const echartsPath = "assets/echarts.min.js"

// Report parses and returns the page template. The stylesheet is available to it
// as the template "report.css". A fresh template is returned on every call so
// callers can add functions or clone it without sharing state.
//
// The files are embedded and parsed by a test, so a parse error is a build
// defect; it panics instead of burdening every caller with an impossible error.
func Report() *template.Template {
	return template.Must(template.New("report.html.tmpl").ParseFS(pages, "report.html.tmpl", "report.css", "energy.html.tmpl"))
}

// Email parses and returns the HTML email body template (inline styles only:
// mail clients drop style blocks). A fresh template is returned on every call.
func Email() *template.Template {
	return template.Must(template.New("email.html.tmpl").ParseFS(pages, "email.html.tmpl"))
}

// ECharts returns the embedded, minified ECharts library, or nil when the
// committed file is empty (a damaged checkout). Callers must then render
// without charts; there is deliberately no CDN fallback.
func ECharts() []byte {
	b, err := fs.ReadFile(assets, echartsPath)
	if err != nil || len(b) == 0 {
		return nil
	}
	return b
}
