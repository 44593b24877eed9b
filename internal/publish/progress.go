package publish

import "io"

// UploadOption changes how Upload and UploadReader send a body.
type UploadOption func(*uploadOptions)

type uploadOptions struct {
	progress func(n int)
}

// WithProgress passes to progress the number of the body's bytes each read
// took, for a bar of bytes sent. Each byte is counted once however often the
// SDK reads it (the signing read on a plain-HTTP endpoint, a retry after a
// rewind), so the counts add up to the body's size, never more.
func WithProgress(progress func(n int)) UploadOption {
	return func(o *uploadOptions) { o.progress = progress }
}

// progressReader reports the body's bytes as its reads pass the furthest
// offset any read reached: a rewind and a second pass report nothing until
// they go beyond the first.
type progressReader struct {
	r        io.ReadSeeker
	report   func(n int)
	pos, max int64
}

// newProgressReader counts r's bytes from its offset now, where the SDK
// rewinds to and where the body begins.
func newProgressReader(r io.ReadSeeker, report func(n int)) (*progressReader, error) {
	pos, err := r.Seek(0, io.SeekCurrent)
	if err != nil {
		return nil, err
	}
	return &progressReader{r: r, report: report, pos: pos, max: pos}, nil
}

func (p *progressReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	p.pos += int64(n)
	if p.pos > p.max {
		p.report(int(p.pos - p.max))
		p.max = p.pos
	}
	return n, err
}

func (p *progressReader) Seek(offset int64, whence int) (int64, error) {
	pos, err := p.r.Seek(offset, whence)
	if err == nil {
		p.pos = pos
	}
	return pos, err
}
