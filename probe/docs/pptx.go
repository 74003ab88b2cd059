package docs

import (
	"context"
	"encoding/xml"
	"io"
	"strings"
)

const pptxMain = "ppt/presentation.xml"

// pptxSlides returns the slide parts in presentation order.
func pptxSlides(p *pkg) ([]string, error) {
	if !p.has(pptxMain) {
		return nil, p.src.errorf(ErrDamaged, "not a PowerPoint presentation (no %s)", pptxMain)
	}
	rels, err := p.rels(pptxMain)
	if err != nil {
		return nil, err
	}
	rc, err := p.open(pptxMain)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	d := decoder(rc)
	var slides []string
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return slides, nil
		}
		if err != nil {
			return nil, p.xmlErr(pptxMain, err)
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "sldId" {
			r, ok := rels[relID(se)]
			if !ok || !p.has(r.target) {
				return nil, p.src.errorf(ErrDamaged, "slide %d of the presentation points to no slide part", len(slides)+1)
			}
			slides = append(slides, r.target)
		}
	}
}

// pptxLines calls fn with each line of text of each slide (its
// paragraphs, in shape order, table cells included), then of the slide's
// notes (the notes body only), slide by slide; sel.Slide keeps one.
func pptxLines(ctx context.Context, p *pkg, sel Selection, fn func(Ref, string) error) error {
	slides, err := pptxSlides(p)
	if err != nil {
		return err
	}
	if sel.Slide > len(slides) {
		return p.src.errorf(ErrNotFound, "there is no slide %d; the presentation has %d", sel.Slide, len(slides))
	}
	for i, part := range slides {
		n := i + 1
		if sel.Slide != 0 && n != sel.Slide {
			continue
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err := shapeLines(p, part, false, func(line int, s string) error {
			return fn(Ref{Kind: "slide", N: n, Line: line}, s)
		}); err != nil {
			return err
		}
		rels, err := p.rels(part)
		if err != nil {
			return err
		}
		for _, r := range rels {
			if strings.HasSuffix(r.typ, "/notesSlide") && p.has(r.target) {
				if err := shapeLines(p, r.target, true, func(line int, s string) error {
					return fn(Ref{Kind: "notes", N: n, Line: line}, s)
				}); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// shapeLines reads the paragraphs (a:p) of a slide or notes part; a line
// break (a:br) starts a new line. For notes only the body placeholder is
// read (not the slide number, header or the slide image).
func shapeLines(p *pkg, part string, notes bool, fn func(int, string) error) error {
	rc, err := p.open(part)
	if err != nil {
		return err
	}
	defer rc.Close()
	d := decoder(rc)
	var b strings.Builder
	line, inText, ph := 0, false, ""
	keep := func() bool { return !notes || ph == "body" }
	emit := func() error {
		if !keep() {
			b.Reset()
			return nil
		}
		line++
		err := fn(line, b.String())
		b.Reset()
		return err
	}
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return p.xmlErr(part, err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "sp":
				ph = ""
			case "ph":
				ph = attr(t, "type")
				if ph == "" {
					ph = "body" // a placeholder without a type is a body
				}
			case "p":
				if isDrawingML(t.Name.Space) {
					b.Reset()
				}
			case "t":
				inText = true
			case "br":
				if err := emit(); err != nil {
					return err
				}
			}
		case xml.EndElement:
			switch t.Name.Local {
			case "t":
				inText = false
			case "p":
				if isDrawingML(t.Name.Space) {
					if err := emit(); err != nil {
						return err
					}
				}
			}
		case xml.CharData:
			if inText {
				b.Write(t)
			}
		}
	}
}

func pptxInfo(ctx context.Context, p *pkg) (Info, error) {
	slides, err := pptxSlides(p)
	if err != nil {
		return Info{}, err
	}
	info := Info{Format: PPTX, Slides: len(slides)}
	err = pptxLines(ctx, p, Selection{}, func(_ Ref, s string) error {
		info.Words += len(strings.Fields(s))
		return nil
	})
	return info, err
}

// isDrawingML reports whether an XML namespace is DrawingML's (a:p is a
// paragraph there), in the transitional or the strict flavour.
func isDrawingML(space string) bool { return strings.Contains(space, "drawingml") }
