// Package docstest builds small but real OOXML documents (DOCX, PPTX,
// XLSX) and PDFs for tests and benchmarks of the document probes. It
// imports only the standard library.
package docstest

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"fmt"
	"io"
	"strings"
	"testing"
)

// The OOXML packages are minimal but real documents, each part as Word,
// PowerPoint and Excel write it.

const (
	NsW   = `xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"`
	NsA   = `xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"`
	NsP   = `xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main"`
	NsR   = `xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"`
	NsS   = `xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"`
	RelNS = `http://schemas.openxmlformats.org/officeDocument/2006/relationships`
)

// Part is one zip entry: its name, and a body written by Body or Text.
type Part struct {
	Name string
	Body io.WriterTo
	Text string
}

// Zip writes parts into a zip (deflated, fast).
func Zip(t testing.TB, parts ...Part) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	zw.RegisterCompressor(zip.Deflate, func(w io.Writer) (io.WriteCloser, error) { return flate.NewWriter(w, flate.BestSpeed) })
	for _, p := range parts {
		w, err := zw.Create(p.Name)
		if err != nil {
			t.Fatal(err)
		}
		if p.Body != nil {
			p.Body.WriteTo(w)
		} else {
			io.WriteString(w, p.Text)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// Rels is a relationships part: pairs of type (last path element) and target.
func Rels(targets ...string) string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">`)
	for i := 0; i+1 < len(targets); i += 2 {
		fmt.Fprintf(&b, `<Relationship Id="rId%d" Type="%s/%s" Target="%s"/>`, i/2+1, RelNS, targets[i], targets[i+1])
	}
	b.WriteString(`</Relationships>`)
	return b.String()
}

var ContentTypes = Part{Name: "[Content_Types].xml", Text: `<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>`}

func esc(s string) string {
	var b bytes.Buffer
	xmlEscape(&b, s)
	return b.String()
}

func xmlEscape(w io.Writer, s string) {
	r := strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;")
	io.WriteString(w, r.Replace(s))
}

// DOCX makes a document whose body holds paragraphs (runs split on
// "|", a tab as \t) and, after them, a 2x2 table.
func DOCX(t testing.TB, paragraphs []string, table [2][2]string) []byte {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?><w:document ` + NsW + `><w:body>`)
	for _, p := range paragraphs {
		b.WriteString(`<w:p><w:pPr><w:tabs><w:tab w:val="left" w:pos="720"/></w:tabs></w:pPr>`)
		for _, run := range strings.Split(p, "|") {
			parts := strings.Split(run, "\t")
			b.WriteString(`<w:r>`)
			for i, s := range parts {
				if i > 0 {
					b.WriteString(`<w:tab/>`)
				}
				b.WriteString(`<w:t xml:space="preserve">` + esc(s) + `</w:t>`)
			}
			b.WriteString(`</w:r>`)
		}
		b.WriteString(`<w:r><w:delText>deleted words</w:delText></w:r></w:p>`)
	}
	b.WriteString(`<w:tbl>`)
	for _, row := range table {
		b.WriteString(`<w:tr>`)
		for _, c := range row {
			b.WriteString(`<w:tc><w:p><w:r><w:t>` + esc(c) + `</w:t></w:r></w:p></w:tc>`)
		}
		b.WriteString(`</w:tr>`)
	}
	b.WriteString(`</w:tbl></w:body></w:document>`)
	return Zip(t, ContentTypes,
		Part{Name: "_rels/.rels", Text: Rels("officeDocument", "word/document.xml")},
		Part{Name: "word/document.xml", Text: b.String()},
		Part{Name: "docProps/app.xml", Text: `<?xml version="1.0"?><Properties xmlns="http://schemas.openxmlformats.org/officeDocument/2006/extended-properties"><Pages>3</Pages></Properties>`})
}

// PPTX makes a presentation of slides (paragraphs split on "\n"),
// listed in the order given while their parts are numbered in reverse, so
// that order comes from presentation.xml; notes[i] (if not "") are slide
// i's notes.
func PPTX(t testing.TB, slides []string, notes []string) []byte {
	n := len(slides)
	parts := []Part{ContentTypes, {Name: "_rels/.rels", Text: Rels("officeDocument", "ppt/presentation.xml")}}
	var ids, relTargets strings.Builder
	var targets []string
	for i := range slides {
		num := n - i // slide i is stored as slide<n-i>.xml
		targets = append(targets, "slide", fmt.Sprintf("slides/slide%d.xml", num))
		fmt.Fprintf(&ids, `<p:sldId id="%d" r:id="rId%d"/>`, 256+i, i+1)
		var sp strings.Builder
		sp.WriteString(`<?xml version="1.0"?><p:sld ` + NsA + ` ` + NsP + ` ` + NsR + `><p:cSld><p:spTree>`)
		sp.WriteString(`<p:sp><p:nvSpPr><p:cNvPr id="2" name="Title"/><p:nvPr><p:ph type="title"/></p:nvPr></p:nvSpPr><p:txBody>`)
		for _, para := range strings.Split(slides[i], "\n") {
			sp.WriteString(`<a:p><a:r><a:t>` + esc(para) + `</a:t></a:r></a:p>`)
		}
		sp.WriteString(`</p:txBody></p:sp></p:spTree></p:cSld></p:sld>`)
		parts = append(parts, Part{Name: fmt.Sprintf("ppt/slides/slide%d.xml", num), Text: sp.String()})
		if i < len(notes) && notes[i] != "" {
			parts = append(parts,
				Part{Name: fmt.Sprintf("ppt/slides/_rels/slide%d.xml.rels", num), Text: Rels("notesSlide", fmt.Sprintf("../notesSlides/notesSlide%d.xml", num))},
				Part{Name: fmt.Sprintf("ppt/notesSlides/notesSlide%d.xml", num), Text: `<?xml version="1.0"?><p:notes ` + NsA + ` ` + NsP + `><p:cSld><p:spTree>` +
					`<p:sp><p:nvSpPr><p:nvPr><p:ph type="sldImg"/></p:nvPr></p:nvSpPr></p:sp>` +
					`<p:sp><p:nvSpPr><p:nvPr><p:ph type="body" idx="1"/></p:nvPr></p:nvSpPr><p:txBody><a:p><a:r><a:t>` + esc(notes[i]) + `</a:t></a:r></a:p></p:txBody></p:sp>` +
					`<p:sp><p:nvSpPr><p:nvPr><p:ph type="sldNum" idx="5"/></p:nvPr></p:nvSpPr><p:txBody><a:p><a:fld type="slidenum"><a:t>` + fmt.Sprint(i+1) + `</a:t></a:fld></a:p></p:txBody></p:sp>` +
					`</p:spTree></p:cSld></p:notes>`})
		}
	}
	relTargets.WriteString(Rels(targets...))
	parts = append(parts,
		Part{Name: "ppt/presentation.xml", Text: `<?xml version="1.0"?><p:presentation ` + NsP + ` ` + NsR + `><p:sldIdLst>` + ids.String() + `</p:sldIdLst></p:presentation>`},
		Part{Name: "ppt/_rels/presentation.xml.rels", Text: relTargets.String()})
	return Zip(t, parts...)
}

// Cell is one cell of a built workbook: raw XML attributes and content.
type Cell struct {
	Ref, T, S, V, F, Inline string
}

// XLSX makes a workbook of sheets (name → cells, in order); style 1
// is a date (numFmt 14), style 2 a custom "yyyy-mm-dd hh:mm" format,
// style 3 a plain number; shared strings are given as shared.
func XLSX(t testing.TB, date1904 bool, shared []string, sheets []string, cells map[string][]Cell) []byte {
	var wb, wbRels strings.Builder
	pr := ""
	if date1904 {
		pr = `<workbookPr date1904="1"/>`
	}
	wb.WriteString(`<?xml version="1.0"?><workbook ` + NsS + ` ` + NsR + `>` + pr + `<sheets>`)
	var targets []string
	parts := []Part{ContentTypes, {Name: "_rels/.rels", Text: Rels("officeDocument", "xl/workbook.xml")}}
	for i, name := range sheets {
		fmt.Fprintf(&wb, `<sheet name="%s" sheetId="%d" r:id="rId%d"/>`, esc(name), i+1, i+1)
		targets = append(targets, "worksheet", fmt.Sprintf("worksheets/sheet%d.xml", i+1))
		var sh strings.Builder
		sh.WriteString(`<?xml version="1.0"?><worksheet ` + NsS + `><sheetData>`)
		row := ""
		for _, c := range cells[name] {
			r := rowOf(c.Ref)
			if rs := fmt.Sprint(r); rs != row {
				if row != "" {
					sh.WriteString(`</row>`)
				}
				row = rs
				sh.WriteString(`<row r="` + rs + `">`)
			}
			fmt.Fprintf(&sh, `<c r="%s"`, c.Ref)
			if c.T != "" {
				fmt.Fprintf(&sh, ` t="%s"`, c.T)
			}
			if c.S != "" {
				fmt.Fprintf(&sh, ` s="%s"`, c.S)
			}
			sh.WriteString(`>`)
			if c.F != "" {
				sh.WriteString(`<f>` + esc(c.F) + `</f>`)
			}
			if c.Inline != "" {
				sh.WriteString(`<is><t>` + esc(c.Inline) + `</t></is>`)
			}
			if c.V != "" {
				sh.WriteString(`<v>` + esc(c.V) + `</v>`)
			}
			sh.WriteString(`</c>`)
		}
		if row != "" {
			sh.WriteString(`</row>`)
		}
		sh.WriteString(`</sheetData></worksheet>`)
		parts = append(parts, Part{Name: fmt.Sprintf("xl/worksheets/sheet%d.xml", i+1), Text: sh.String()})
	}
	wb.WriteString(`</sheets></workbook>`)
	targets = append(targets, "sharedStrings", "sharedStrings.xml", "styles", "styles.xml")
	wbRels.WriteString(Rels(targets...))
	var ss strings.Builder
	ss.WriteString(`<?xml version="1.0"?><sst ` + NsS + `>`)
	for _, s := range shared {
		ss.WriteString(`<si><r><t>` + esc(s) + `</t></r><rPh><t>phonetic</t></rPh></si>`)
	}
	ss.WriteString(`</sst>`)
	parts = append(parts,
		Part{Name: "xl/workbook.xml", Text: wb.String()},
		Part{Name: "xl/_rels/workbook.xml.rels", Text: wbRels.String()},
		Part{Name: "xl/sharedStrings.xml", Text: ss.String()},
		Part{Name: "xl/styles.xml", Text: `<?xml version="1.0"?><styleSheet ` + NsS + `><numFmts count="1"><numFmt numFmtId="164" formatCode="yyyy\-mm\-dd hh:mm"/></numFmts>` +
			`<cellXfs count="4"><xf numFmtId="0"/><xf numFmtId="14"/><xf numFmtId="164"/><xf numFmtId="4"/></cellXfs></styleSheet>`})
	return Zip(t, parts...)
}

// rowOf is the row number of a cell reference (B7 → 7).
func rowOf(ref string) int {
	n := 0
	for _, c := range ref {
		if c >= '0' && c <= '9' {
			n = n*10 + int(c-'0')
		}
	}
	return n
}

// PDF writes a PDF with one page per entry of pages, each line of an
// entry a line of Helvetica text; an entry "" is a page with no text (a
// filled rectangle, as a scanned page's image would be).
func PDF(pages []string) []byte {
	var b bytes.Buffer
	var offsets []int
	obj := func(body string) int {
		offsets = append(offsets, b.Len())
		n := len(offsets)
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", n, body)
		return n
	}
	b.WriteString("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
	obj("<< /Type /Catalog /Pages 2 0 R >>")
	pagesAt := len(offsets) // object 2 is written last, once the kids are known
	offsets = append(offsets, 0)
	font := obj("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
	var kids []string
	for _, text := range pages {
		var cs strings.Builder
		if text == "" {
			cs.WriteString("0.5 g 72 72 468 648 re f")
		} else {
			cs.WriteString("BT /F1 12 Tf 14 TL 72 720 Td")
			for _, line := range strings.Split(text, "\n") {
				r := strings.NewReplacer(`\`, `\\`, "(", `\(`, ")", `\)`)
				fmt.Fprintf(&cs, " (%s) Tj T*", r.Replace(line))
			}
			cs.WriteString(" ET")
		}
		content := obj(fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", cs.Len(), cs.String()))
		page := obj(fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 %d 0 R >> >> /Contents %d 0 R >>", font, content))
		kids = append(kids, fmt.Sprintf("%d 0 R", page))
	}
	offsets[pagesAt] = b.Len()
	fmt.Fprintf(&b, "2 0 obj\n<< /Type /Pages /Kids [%s] /Count %d >>\nendobj\n", strings.Join(kids, " "), len(kids))
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(offsets)+1)
	for _, o := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(offsets)+1, xref)
	return b.Bytes()
}
