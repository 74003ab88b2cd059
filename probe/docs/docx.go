package docs

import (
	"context"
	"encoding/xml"
	"io"
	"strings"
)

// docxMain is the main part of a word-processing document.
const docxMain = "word/document.xml"

// docxLines calls fn with each paragraph of the document body, in order
// (table cells' paragraphs included), as one line: runs' text (w:t), tabs
// as tabs, line breaks as spaces; deleted text and field codes left out.
func docxLines(ctx context.Context, p *pkg, fn func(Ref, string) error) error {
	if !p.has(docxMain) {
		return p.src.errorf(ErrDamaged, "not a Word document (no %s)", docxMain)
	}
	rc, err := p.open(docxMain)
	if err != nil {
		return err
	}
	defer rc.Close()
	d := decoder(rc)
	var b strings.Builder
	n, inText := 0, false
	for i := 0; ; i++ {
		if i%4096 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		tok, err := d.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return p.xmlErr(docxMain, err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "p":
				b.Reset()
			case "t":
				inText = true
			case "tab":
				if inRun(t) {
					b.WriteByte('\t')
				}
			case "br", "cr":
				b.WriteByte(' ')
			case "delText", "instrText":
				if err := d.Skip(); err != nil {
					return p.xmlErr(docxMain, err)
				}
			}
		case xml.EndElement:
			switch t.Name.Local {
			case "t":
				inText = false
			case "p":
				n++
				if err := fn(Ref{Kind: "paragraph", N: n}, b.String()); err != nil {
					return err
				}
				b.Reset()
			}
		case xml.CharData:
			if inText {
				b.Write(t)
			}
		}
	}
}

// inRun: w:tab is a tab character inside a run, and a tab stop inside
// w:tabs (paragraph properties); the latter has a w:val attribute.
func inRun(se xml.StartElement) bool { return attr(se, "val") == "" }

func docxInfo(ctx context.Context, p *pkg) (Info, error) {
	info := Info{Format: DOCX, Pages: p.appCount("Pages")}
	err := docxLines(ctx, p, func(_ Ref, s string) error {
		info.Paragraphs++
		info.Words += len(strings.Fields(s))
		return nil
	})
	return info, err
}
