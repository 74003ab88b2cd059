package docs

import "context"

// Lines calls fn with each line of the document's text, in document
// order, with where it is: a PDF page's lines, a DOCX paragraph, a slide's
// and then its notes' lines, an XLSX cell. sel narrows it to one page,
// slide or sheet. fn returning an error stops the reading with it.
func Lines(ctx context.Context, src Source, f Format, sel Selection, lim Limits, fn func(Ref, string) error) error {
	lim = lim.withDefaults()
	if f == PDF {
		return pdfLines(ctx, src, sel, lim, fn)
	}
	if err := checkSelection(src, f, sel); err != nil {
		return err
	}
	p, err := openPackage(src, lim)
	if err != nil {
		return err
	}
	switch f {
	case DOCX:
		return docxLines(ctx, p, fn)
	case PPTX:
		return pptxLines(ctx, p, sel, fn)
	case XLSX:
		return xlsxLines(ctx, p, sel, fn)
	}
	return src.errorf(ErrDamaged, "unknown document format %q", f)
}

// checkSelection refuses a selection the format does not have.
func checkSelection(src Source, f Format, sel Selection) error {
	switch {
	case sel.Page != 0 && f != PDF:
		return src.errorf(ErrNotFound, "--page is for PDF files; a %s has %s", f, unitOf(f))
	case sel.Slide != 0 && f != PPTX:
		return src.errorf(ErrNotFound, "--slide is for PPTX files; a %s has %s", f, unitOf(f))
	case sel.Sheet != "" && f != XLSX:
		return src.errorf(ErrNotFound, "--sheet is for XLSX files; a %s has %s", f, unitOf(f))
	}
	return nil
}

func unitOf(f Format) string {
	switch f {
	case PDF:
		return "pages (--page N)"
	case PPTX:
		return "slides (--slide N)"
	case XLSX:
		return "sheets (--sheet NAME)"
	}
	return "paragraphs, which read shows numbered"
}

// Stat describes the document: pages, slides, paragraphs and words, or
// each sheet's size.
func Stat(ctx context.Context, src Source, f Format, lim Limits) (Info, error) {
	lim = lim.withDefaults()
	if f == PDF {
		return pdfInfo(ctx, src, lim)
	}
	p, err := openPackage(src, lim)
	if err != nil {
		return Info{}, err
	}
	switch f {
	case DOCX:
		return docxInfo(ctx, p)
	case PPTX:
		return pptxInfo(ctx, p)
	case XLSX:
		return xlsxInfo(ctx, p)
	}
	return Info{}, src.errorf(ErrDamaged, "unknown document format %q", f)
}
