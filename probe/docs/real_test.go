package docs

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/memreview/memreview/sample/testenv"
)

// realDocs is the shared real documents folder (../shared/realdata from
// the checkout root).
const realDocs = "../../../shared/realdata/documents"

func real(t *testing.T, name string) (Source, []byte) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(realDocs, name))
	if err != nil {
		testenv.Missing(t, "the real document "+name+" is not available ("+err.Error()+"); put the shared real data at ../shared/realdata beside the repository to run this test")
	}
	return src(data, name), data
}

func reference(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(realDocs, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func texts(ls []line) []string {
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = l.text
	}
	return out
}

// TestRealDOCX: every paragraph of the real DOCX files, in order, as the
// reference has them (one line per paragraph of word/document.xml).
func TestRealDOCX(t *testing.T) {
	for _, name := range []string{"markitdown-test.docx", "docling-word_tables.docx"} {
		s, _ := real(t, name)
		got, err := lines(t, s, DOCX, Selection{}, Limits{})
		if err != nil {
			t.Fatal(err)
		}
		want := strings.Split(strings.TrimSuffix(reference(t, name+".txt"), "\n"), "\n")
		if !reflect.DeepEqual(texts(got), want) {
			t.Errorf("%s: %d paragraphs, the reference %d; first difference: %s", name, len(got), len(want), firstDiff(texts(got), want))
		}
	}
}

// TestRealPPTX: each slide's and each notes page's lines, as the
// reference has them ("# slide N (part)", "# notes N (part)").
func TestRealPPTX(t *testing.T) {
	for _, name := range []string{"markitdown-test.pptx", "docling-powerpoint_sample.pptx"} {
		s, _ := real(t, name)
		got, err := lines(t, s, PPTX, Selection{}, Limits{})
		if err != nil {
			t.Fatal(err)
		}
		units := map[string][]string{}
		var order []string
		for _, l := range got {
			unit, _, _ := strings.Cut(l.ref, ":")
			if len(order) == 0 || order[len(order)-1] != unit {
				order = append(order, unit)
			}
			units[unit] = append(units[unit], l.text)
		}
		wantUnits := map[string][]string{}
		var wantOrder []string
		cur := ""
		for _, ln := range strings.Split(strings.TrimSuffix(reference(t, name+".txt"), "\n"), "\n") {
			if strings.HasPrefix(ln, "# slide ") || strings.HasPrefix(ln, "# notes ") {
				f := strings.Fields(ln)
				cur = f[1] + " " + f[2]
				wantOrder = append(wantOrder, cur)
				wantUnits[cur] = []string{}
				continue
			}
			wantUnits[cur] = append(wantUnits[cur], ln)
		}
		if !reflect.DeepEqual(order, wantOrder) {
			t.Errorf("%s: units %v, reference %v", name, order, wantOrder)
		}
		for _, u := range wantOrder {
			g, w := units[u], wantUnits[u]
			// The reference separates units with a blank line that is not
			// a paragraph: compare without trailing blank lines.
			for len(g) > 0 && g[len(g)-1] == "" {
				g = g[:len(g)-1]
			}
			for len(w) > 0 && w[len(w)-1] == "" {
				w = w[:len(w)-1]
			}
			if !reflect.DeepEqual(g, w) {
				t.Errorf("%s %s: first difference: %s", name, u, firstDiff(g, w))
			}
		}
	}
}

// TestRealXLSX: the sheet names, and every cell of the reference (shared
// strings resolved, numbers as stored; the reference keeps dates as
// serial numbers, which memreview shows as dates).
func TestRealXLSX(t *testing.T) {
	for _, name := range []string{"excelize-Book1.xlsx", "markitdown-test.xlsx"} {
		s, _ := real(t, name)
		info, err := Stat(context.Background(), s, XLSX, Limits{})
		if err != nil {
			t.Fatal(err)
		}
		var sheets []string
		for _, si := range info.Sheets {
			sheets = append(sheets, si.Name)
		}
		if want := strings.Fields(reference(t, name+".sheets.txt")); !reflect.DeepEqual(sheets, want) {
			t.Errorf("%s: sheets %v, reference %v", name, sheets, want)
		}
		got := map[string]string{}
		if err := Lines(context.Background(), s, XLSX, Selection{}, Limits{}, func(r Ref, text string) error {
			got[r.Sheet+"\t"+r.Cell] = text
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		rows := strings.Split(strings.TrimSuffix(reference(t, name+".cells.tsv"), "\n"), "\n")[1:]
		for _, row := range rows {
			f := strings.SplitN(row, "\t", 3)
			key, want := f[0]+"\t"+f[1], f[2]
			g, ok := got[key]
			if !ok {
				t.Errorf("%s %s: missing, reference %q", name, key, want)
				continue
			}
			if !sameCell(g, want) {
				t.Errorf("%s %s: %q, reference %q", name, key, g, want)
			}
		}
		if len(got) != len(rows) {
			t.Errorf("%s: %d cells, the reference %d", name, len(got), len(rows))
		}
	}
}

// sameCell: equal text, equal numbers, or a date that is the reference's
// serial number.
func sameCell(got, want string) bool {
	if got == want {
		return true
	}
	wf, err := strconv.ParseFloat(want, 64)
	if err != nil {
		return false
	}
	if gf, err := strconv.ParseFloat(got, 64); err == nil {
		return gf == wf
	}
	d, ok := serialDate(wf, false)
	return ok && d == got
}

// TestRealPDF: the text of the real PDFs agrees with pdftotext (poppler)
// word for word: F1 of the word multisets at least 0.99.
func TestRealPDF(t *testing.T) {
	needPDF(t)
	for _, name := range []string{"markitdown-test.pdf", "markitdown-REPAIR-2022-INV-001_multipage.pdf"} {
		s, _ := real(t, name)
		var b strings.Builder
		if err := Lines(context.Background(), s, PDF, Selection{}, Limits{}, func(_ Ref, text string) error {
			b.WriteString(text + "\n")
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if f1 := WordF1(reference(t, name+".txt"), b.String()); f1 < 0.99 {
			t.Errorf("%s: word F1 against pdftotext %.3f, want at least 0.99", name, f1)
		}
	}
}

// WordF1 is the text agreement BENCHMARKS.md reports: the F1 score of the
// multisets of lower-cased words (runs of letters and digits) of a
// reference text and an extraction.
func WordF1(ref, got string) float64 {
	split := func(s string) []string {
		return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) })
	}
	rw, gw := split(ref), split(got)
	if len(rw)+len(gw) == 0 {
		return 1
	}
	count := map[string]int{}
	for _, w := range rw {
		count[w]++
	}
	match := 0
	for _, w := range gw {
		if count[w] > 0 {
			count[w]--
			match++
		}
	}
	return 2 * float64(match) / float64(len(rw)+len(gw))
}

func firstDiff(got, want []string) string {
	for i := range max(len(got), len(want)) {
		var g, w string
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if g != w {
			return "line " + strconv.Itoa(i+1) + ": " + strconv.Quote(g) + " vs " + strconv.Quote(w)
		}
	}
	return "none"
}
