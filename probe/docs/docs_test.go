package docs

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/memreview/memreview/probe/docs/docstest"
	"io"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

type line struct{ ref, text string }

func src(data []byte, name string) Source {
	return Source{R: bytes.NewReader(data), Size: int64(len(data)), Name: name}
}

func lines(t testing.TB, s Source, f Format, sel Selection, lim Limits) ([]line, error) {
	t.Helper()
	var out []line
	err := Lines(context.Background(), s, f, sel, lim, func(r Ref, text string) error {
		out = append(out, line{r.String(), text})
		return nil
	})
	return out, err
}

func TestDOCX(t *testing.T) {
	data := docstest.DOCX(t, []string{"Revenue rose|12%", "Name:\tLeeds & York", ""}, [2][2]string{{"h1", "h2"}, {"c1", "c2"}})
	got, err := lines(t, src(data, "r.docx"), DOCX, Selection{}, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	want := []line{{"¶1", "Revenue rose12%"}, {"¶2", "Name:\tLeeds & York"}, {"¶3", ""}, {"¶4", "h1"}, {"¶5", "h2"}, {"¶6", "c1"}, {"¶7", "c2"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
	info, err := Stat(context.Background(), src(data, "r.docx"), DOCX, Limits{})
	if err != nil || info.Paragraphs != 7 || info.Pages != 3 || info.Words != 10 {
		t.Errorf("stat: %+v %v", info, err)
	}
	if _, err := lines(t, src(data, "r.docx"), DOCX, Selection{Page: 2}, Limits{}); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "--page is for PDF files") {
		t.Errorf("--page on a docx: %v", err)
	}
}

func TestPPTX(t *testing.T) {
	data := docstest.PPTX(t, []string{"Intro\nQ3 plan", "Numbers\nRevenue 4.2M", "End"}, []string{"", "Say the number slowly", ""})
	got, err := lines(t, src(data, "d.pptx"), PPTX, Selection{}, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	want := []line{{"slide 1:1", "Intro"}, {"slide 1:2", "Q3 plan"}, {"slide 2:1", "Numbers"}, {"slide 2:2", "Revenue 4.2M"},
		{"notes 2:1", "Say the number slowly"}, {"slide 3:1", "End"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
	got, err = lines(t, src(data, "d.pptx"), PPTX, Selection{Slide: 2}, Limits{})
	if err != nil || len(got) != 3 || got[2].ref != "notes 2:1" {
		t.Errorf("slide 2: %q %v", got, err)
	}
	if _, err := lines(t, src(data, "d.pptx"), PPTX, Selection{Slide: 4}, Limits{}); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "there is no slide 4; the presentation has 3") {
		t.Errorf("slide 4: %v", err)
	}
	info, err := Stat(context.Background(), src(data, "d.pptx"), PPTX, Limits{})
	if err != nil || info.Slides != 3 {
		t.Errorf("stat: %+v %v", info, err)
	}
}

func testWorkbook(t testing.TB, date1904 bool) []byte {
	return docstest.XLSX(t, date1904, []string{"region", "North", "South"}, []string{"Q3", "Notes sheet"}, map[string][]docstest.Cell{
		"Q3": {
			{Ref: "A1", T: "s", V: "0"}, {Ref: "B1", T: "inlineStr", Inline: "revenue"}, {Ref: "C1", T: "inlineStr", Inline: "closed"},
			{Ref: "A2", T: "s", V: "1"}, {Ref: "B2", V: "4200000"}, {Ref: "C2", S: "1", V: "45292"}, {Ref: "D2", T: "b", V: "1"},
			{Ref: "A3", T: "s", V: "2"}, {Ref: "B3", V: "1.5"}, {Ref: "C3", S: "2", V: "45292.75"}, {Ref: "D3", T: "e", V: "#DIV/0!"},
			{Ref: "B4", F: "SUM(B2:B3)", V: "4200001.5"}, {Ref: "C4", T: "str", F: `A2&"!"`, V: "North!"},
		},
		"Notes sheet": {{Ref: "B2", T: "inlineStr", Inline: "see Q3"}},
	})
}

func TestXLSX(t *testing.T) {
	data := testWorkbook(t, false)
	got, err := lines(t, src(data, "b.xlsx"), XLSX, Selection{}, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	want := []line{
		{"Q3!A1", "region"}, {"Q3!B1", "revenue"}, {"Q3!C1", "closed"},
		{"Q3!A2", "North"}, {"Q3!B2", "4200000"}, {"Q3!C2", "2024-01-01"}, {"Q3!D2", "TRUE"},
		{"Q3!A3", "South"}, {"Q3!B3", "1.5"}, {"Q3!C3", "2024-01-01 18:00:00"}, {"Q3!D3", "#DIV/0!"},
		{"Q3!B4", "4200001.5"}, {"Q3!C4", "North!"},
		{"'Notes sheet'!B2", "see Q3"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
	tab, err := SheetTable(context.Background(), src(data, "b.xlsx"), "q3", Range{Row1: 2, Col1: 2, Row2: 3, Col2: 4}, 100, 1<<20, Limits{})
	wantTab := Table{Sheet: "Q3", Columns: []string{"row", "B", "C", "D"}, Rows: [][]any{
		{int64(2), int64(4200000), "2024-01-01", "TRUE"}, {int64(3), 1.5, "2024-01-01 18:00:00", "#DIV/0!"}}}
	if err != nil || !reflect.DeepEqual(tab, wantTab) {
		t.Errorf("sheet Q3 B2:D3: %#v %v", tab, err)
	}
	tab, err = SheetTable(context.Background(), src(data, "b.xlsx"), "", Range{}, 2, 1<<20, Limits{})
	if err != nil || len(tab.Rows) != 2 || !tab.Truncated || len(tab.Columns) != 5 {
		t.Errorf("first sheet, 2 rows: %#v %v", tab, err)
	}
	if _, err := SheetTable(context.Background(), src(data, "b.xlsx"), "Q4", Range{}, 2, 1<<20, Limits{}); !errors.Is(err, ErrNotFound) ||
		!strings.Contains(err.Error(), `there is no sheet "Q4"; the sheets are Q3, Notes sheet`) {
		t.Errorf("missing sheet: %v", err)
	}
	info, err := Stat(context.Background(), src(data, "b.xlsx"), XLSX, Limits{})
	wantInfo := []SheetInfo{{Name: "Q3", Dimension: "A1:D4", Rows: 4, Cols: 4}, {Name: "Notes sheet", Dimension: "A1:B2", Rows: 2, Cols: 2}}
	if err != nil || !reflect.DeepEqual(info.Sheets, wantInfo) {
		t.Errorf("stat: %+v %v", info, err)
	}
	got, _ = lines(t, src(testWorkbook(t, true), "b.xlsx"), XLSX, Selection{Sheet: "Q3"}, Limits{})
	if got[5].text != "2028-01-02" {
		t.Errorf("1904 date system: %q", got[5])
	}
}

func TestRanges(t *testing.T) {
	for in, want := range map[string]Range{"A1:C10": {1, 1, 10, 3}, "b7": {7, 2, 7, 2}, "C:A": {0, 1, 0, 3}, "3:10": {3, 0, 10, 0}, "$A$1:$B$2": {1, 1, 2, 2}, "": {}} {
		if got, err := ParseRange(in); err != nil || got != want {
			t.Errorf("ParseRange(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"A1:B", "1A", "AAAA1", "A0", "A1:C10:D4", "XFE1"} {
		if _, err := ParseRange(bad); err == nil {
			t.Errorf("ParseRange(%q) accepted it", bad)
		}
	}
	if got, _ := serialDate(59, false); got != "1900-02-28" {
		t.Errorf("serial 59: %s", got)
	}
	if got, _ := serialDate(60, false); got != "1900-02-29" {
		t.Errorf("serial 60: %s", got) // Lotus's phantom day, shown as Excel shows it
	}
	if got, _ := serialDate(61, false); got != "1900-03-01" {
		t.Errorf("serial 61: %s", got)
	}
}

// TestZipCaps: a 10,000-entry zip, a part that expands past the cap (a
// zip bomb), a file over the size cap, a truncated archive, an encrypted
// (OLE) document: each refused with a one-line error naming it, without
// inflating it.
func TestZipCaps(t *testing.T) {
	var many bytes.Buffer // 10,000 entries
	zw := zip.NewWriter(&many)
	for i := range 10000 {
		w, _ := zw.Create(fmt.Sprintf("word/media/%d.txt", i))
		w.Write([]byte("x"))
	}
	zw.Close()
	_, err := lines(t, src(many.Bytes(), "many.docx"), DOCX, Selection{}, Limits{})
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "many.docx: the archive holds 10000 entries, over the cap of 5000") {
		t.Errorf("10,000 entries: %v", err)
	}

	// document.xml of 16 MiB of one repeated paragraph: some 100 KB
	// compressed, refused at a 4 MiB part cap before it is inflated.
	bomb := docstest.Zip(t, docstest.ContentTypes, docstest.Part{Name: "word/document.xml", Body: repeatWriter{
		head: `<w:document ` + docstest.NsW + `><w:body>`, unit: `<w:p><w:r><w:t>lol lol lol lol</w:t></w:r></w:p>`, size: 16 << 20}})
	lim := Limits{MaxPart: 4 << 20}
	_, err = lines(t, src(bomb, "bomb.docx"), DOCX, Selection{}, lim)
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "bomb.docx: the part word/document.xml expands past 4 MiB") {
		t.Errorf("bomb: %v", err)
	}
	// The same bomb with a size field that lies (0): stopped while reading.
	// (archive/zip itself stops reading past a declared size; either way
	// the bomb is not inflated.)
	_, err = lines(t, src(lyingSize(t, bomb), "liar.docx"), DOCX, Selection{}, lim)
	if !(errors.Is(err, ErrTooLarge) || errors.Is(err, ErrDamaged)) || !strings.Contains(err.Error(), "liar.docx: the part word/document.xml") {
		t.Errorf("bomb with a lying size: %v", err)
	}

	doc := docstest.DOCX(t, []string{"a"}, [2][2]string{})
	if _, err := lines(t, src(doc, "big.docx"), DOCX, Selection{}, Limits{MaxFileSize: 100}); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "over the 0 MiB cap") {
		t.Errorf("size cap: %v", err)
	}
	if _, err := lines(t, src(doc[:len(doc)/2], "cut.docx"), DOCX, Selection{}, Limits{}); !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), "cut.docx: not a readable document archive") {
		t.Errorf("truncated: %v", err)
	}
	ole := append([]byte("\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"), make([]byte, 4096)...)
	if _, err := lines(t, src(ole, "secret.docx"), DOCX, Selection{}, Limits{}); !errors.Is(err, ErrEncrypted) || !strings.Contains(err.Error(), "secret.docx: an OLE compound file: a password-protected (encrypted) Office document") {
		t.Errorf("an OLE (encrypted Office) file: %v", err)
	}
	notXML := docstest.Zip(t, docstest.ContentTypes, docstest.Part{Name: "word/document.xml", Text: `<w:document ` + docstest.NsW + `><w:body><w:p>&lol9;</w:p></w:body></w:document>`})
	if _, err := lines(t, src(notXML, "ent.docx"), DOCX, Selection{}, Limits{}); !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), "not valid XML") {
		t.Errorf("an undefined entity: %v", err)
	}
	for _, e := range []error{err} {
		if strings.Contains(e.Error(), "\n") {
			t.Errorf("not one line: %q", e)
		}
	}
}

// repeatWriter writes head, then unit until size bytes, then closes the
// elements head opened.
type repeatWriter struct {
	head, unit string
	size       int
}

func (r repeatWriter) WriteTo(w io.Writer) (int64, error) {
	n, _ := io.WriteString(w, r.head)
	chunk := strings.Repeat(r.unit, 1<<16/len(r.unit))
	for n < r.size {
		m, err := io.WriteString(w, chunk)
		if err != nil {
			return int64(n), err
		}
		n += m
	}
	m, err := io.WriteString(w, `</w:body></w:document>`)
	return int64(n + m), err
}

// lyingSize rewrites the declared uncompressed sizes of a zip's entries
// to 0 (central directory and local headers), as a hostile archive would.
func lyingSize(t *testing.T, data []byte) []byte {
	out := bytes.Clone(data)
	for _, sig := range []struct {
		magic string
		at    int
	}{{"PK\x01\x02", 24}, {"PK\x03\x04", 22}} {
		for i := 0; ; {
			j := bytes.Index(out[i:], []byte(sig.magic))
			if j < 0 {
				break
			}
			copy(out[i+j+sig.at:], []byte{0, 0, 0, 0})
			i += j + 4
		}
	}
	return out
}

// TestMillionRowSheet: a 1,000,000-row sheet is streamed: a table of its
// first rows reads a sliver of it, stat reads its dimension only, and a
// grep-like walk is stopped by its caller.
func TestMillionRowSheet(t *testing.T) {
	const rows = 1000000
	sheet := docstest.Part{Name: "xl/worksheets/sheet1.xml", Body: sheetRows{rows}}
	data := docstest.Zip(t, docstest.ContentTypes,
		docstest.Part{Name: "_rels/.rels", Text: docstest.Rels("officeDocument", "xl/workbook.xml")},
		docstest.Part{Name: "xl/workbook.xml", Text: `<workbook ` + docstest.NsS + ` ` + docstest.NsR + `><sheets><sheet name="big" sheetId="1" r:id="rId1"/></sheets></workbook>`},
		docstest.Part{Name: "xl/_rels/workbook.xml.rels", Text: docstest.Rels("worksheet", "worksheets/sheet1.xml", "sharedStrings", "sharedStrings.xml")},
		docstest.Part{Name: "xl/sharedStrings.xml", Text: `<sst ` + docstest.NsS + `><si><t>r</t></si></sst>`},
		sheet)
	ctx := context.Background()
	s := src(data, "big.xlsx")
	p, _ := openPackage(s, Limits{})
	wb, err := openWorkbook(p)
	if err != nil {
		t.Fatal(err)
	}
	var read int64
	tab, err := SheetTable(ctx, s, "big", Range{}, 1000, 1<<20, Limits{})
	if err != nil || len(tab.Rows) != 1000 || !tab.Truncated || tab.Rows[999][0] != int64(1000) || tab.Rows[999][1] != int64(1000) || tab.Rows[999][2] != "r" {
		t.Fatalf("first 1000 rows: %d rows, truncated %v, err %v", len(tab.Rows), tab.Truncated, err)
	}
	// How much of the sheet a 1000-row table inflates: through the budget.
	before := p.left
	wb.cells(ctx, 0, func(row, _ int, _ string, _ any) (bool, error) { return row > 1000, nil })
	read = before - p.left
	if total := p.files["xl/worksheets/sheet1.xml"].UncompressedSize64; read > int64(total)/100 {
		t.Errorf("a 1000-row table inflated %d of the sheet's %d bytes", read, total)
	}
	info, err := Stat(ctx, s, XLSX, Limits{})
	if err != nil || info.Sheets[0].Rows != rows || info.Sheets[0].Cols != 2 {
		t.Errorf("stat: %+v %v", info, err)
	}
	n := 0
	stop := errors.New("enough")
	err = Lines(ctx, s, XLSX, Selection{}, Limits{}, func(Ref, string) error {
		if n++; n == 5000 {
			return stop
		}
		return nil
	})
	if err != stop {
		t.Errorf("a walk stopped by its caller: %v", err)
	}
	tctx, cancel := context.WithTimeout(ctx, time.Millisecond)
	defer cancel()
	time.Sleep(2 * time.Millisecond)
	if err := Lines(tctx, s, XLSX, Selection{}, Limits{}, func(Ref, string) error { return nil }); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a walk past its time limit: %v", err)
	}
}

// sheetRows writes a sheet of n rows: A is the row number, B the shared
// string 0 ("r"); cells without references, as some writers do.
type sheetRows struct{ n int }

func (s sheetRows) WriteTo(w io.Writer) (int64, error) {
	var total int64
	b := []byte(`<worksheet ` + docstest.NsS + `><dimension ref="A1:B` + strconv.Itoa(s.n) + `"/><sheetData>`)
	for r := 1; r <= s.n; r++ {
		b = append(b, `<row r="`...)
		b = strconv.AppendInt(b, int64(r), 10)
		b = append(b, `"><c><v>`...)
		b = strconv.AppendInt(b, int64(r), 10)
		b = append(b, `</v></c><c t="s"><v>0</v></c></row>`...)
		if len(b) > 1<<16 {
			m, err := w.Write(b)
			total += int64(m)
			if err != nil {
				return total, err
			}
			b = b[:0]
		}
	}
	b = append(b, `</sheetData></worksheet>`...)
	m, err := w.Write(b)
	return total + int64(m), err
}
