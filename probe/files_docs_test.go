package probe

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/memreview/memreview/probe/docs"
	"github.com/memreview/memreview/probe/docs/docstest"
)

// docsFolder writes a folder of documents: a PDF, a DOCX, a PPTX and an
// XLSX built here, the encrypted PDF of probe/docs/testdata, a text file,
// and a link to a document outside the folder.
func docsFolder(t *testing.T) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if err := docs.PreparePDF(ctx); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	outside := t.TempDir()
	enc, err := os.ReadFile("docs/testdata/encrypted.pdf")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{
		"report.pdf": docstest.PDF([]string{"Quarterly report\nRevenue rose 12%", "Outlook\nRevenue flat in Q4"}),
		"memo.docx":  docstest.DOCX(t, []string{"Revenue is booked monthly", "Ask finance"}, [2][2]string{{"a", "b"}, {"c", "revenue d"}}),
		"deck.pptx":  docstest.PPTX(t, []string{"Plan\nRevenue targets", "Risks"}, []string{"revenue notes", ""}),
		"book.xlsx": docstest.XLSX(t, false, []string{"region", "North"}, []string{"Q3"}, map[string][]docstest.Cell{
			"Q3": {{Ref: "A1", T: "s", V: "0"}, {Ref: "B1", T: "inlineStr", Inline: "revenue"}, {Ref: "A2", T: "s", V: "1"}, {Ref: "B2", V: "42"}, {Ref: "C2", S: "1", V: "45292"}},
		}),
		"sub/locked.pdf": enc,
		"notes.txt":      []byte("revenue in text\n"),
	}
	for name, data := range files {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(outside, "secret.docx"), docstest.DOCX(t, []string{"outside secret"}, [2][2]string{}), 0o644)
	if err := os.Symlink(filepath.Join(outside, "secret.docx"), filepath.Join(dir, "link.docx")); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestFilesDocuments(t *testing.T) {
	t.Parallel()
	dir := docsFolder(t)
	env := Env{Name: "docs", Kind: KindFiles, Path: dir}
	ctx := context.Background()
	run := func(in string) Result { return Run(ctx, env, in, Limits{Timeout: 20 * time.Second}) }

	cases := []struct{ in, text string }{
		{"read report.pdf", "=== page 1 ===\nQuarterly report\nRevenue rose 12%\n=== page 2 ===\nOutlook\nRevenue flat in Q4\n"},
		{"read report.pdf --page 2", "=== page 2 ===\nOutlook\nRevenue flat in Q4\n"},
		{"read memo.docx", "Revenue is booked monthly\nAsk finance\na\nb\nc\nrevenue d\n"},
		{"read deck.pptx --slide 1", "=== slide 1 ===\nPlan\nRevenue targets\n=== notes 1 ===\nrevenue notes\n"},
		{"read book.xlsx --sheet q3", "=== sheet Q3 ===\nA1: region\nB1: revenue\nA2: North\nB2: 42\nC2: 2024-01-01\n"},
		{"grep -i revenue", strings.Join([]string{
			"book.xlsx:Q3!B1: revenue", "deck.pptx:slide 1:2: Revenue targets", "deck.pptx:notes 1:1: revenue notes",
			"memo.docx:¶1: Revenue is booked monthly", "memo.docx:¶6: revenue d", "notes.txt:1: revenue in text",
			"report.pdf:p1:2: Revenue rose 12%", "report.pdf:p2:2: Revenue flat in Q4",
			"(skipped 1 documents that cannot be read, such as sub/locked.pdf: the PDF is encrypted with a password; memreview cannot read it)", ""}, "\n")},
		{"grep Q4 report.pdf", "report.pdf:p2:2: Revenue flat in Q4\n"},
	}
	for _, c := range cases {
		if res := run(c.in); !res.OK() || res.Text != c.text {
			t.Errorf("%s:\n%q (%s)\nwant\n%q", c.in, res.Text, res.Error, c.text)
		}
	}
	res := run("sheet book.xlsx Q3 A1:C2")
	if !res.OK() || !reflect.DeepEqual(res.Columns, []string{"row", "A", "B", "C"}) ||
		!reflect.DeepEqual(res.Rows, [][]any{{int64(1), "region", "revenue", nil}, {int64(2), "North", int64(42), "2024-01-01"}}) {
		t.Errorf("sheet: %+v", res)
	}
	if res := run("sheet book.xlsx B2"); !res.OK() || !reflect.DeepEqual(res.Rows, [][]any{{int64(2), int64(42)}}) {
		t.Errorf("sheet with a range only: %+v", res)
	}
	if res := run("sheet book.xlsx Q3"); !res.OK() || len(res.Rows) != 2 {
		t.Errorf("sheet Q3, a sheet name that reads as a cell: %+v", res)
	}
	res = run("stat book.xlsx")
	if !res.OK() || res.Columns[5] != "format" || res.Rows[0][5] != "xlsx" || res.Rows[0][9] != "Q3 A1:C2 (2 rows, 3 columns)" {
		t.Errorf("stat book.xlsx: %+v", res)
	}
	if res := run("stat report.pdf"); !res.OK() || res.Rows[0][6] != int64(2) {
		t.Errorf("stat report.pdf: %+v", res)
	}
	if res := run("stat deck.pptx"); !res.OK() || res.Rows[0][7] != int64(2) {
		t.Errorf("stat deck.pptx: %+v", res)
	}
	for _, c := range []struct{ in, want string }{
		{"read sub/locked.pdf", "sub/locked.pdf: the PDF is encrypted with a password; memreview cannot read it"},
		{"grep x sub/locked.pdf", "sub/locked.pdf: the PDF is encrypted"},
		{"read link.docx", "refused: link.docx is a symbolic link; the files probe does not follow links"},
		{"stat link.docx", "refused: link.docx is a symbolic link"},
		{"read report.pdf --page 9", "report.pdf: there is no page 9; the PDF has 2"},
		{"read memo.docx --slide 1", "memo.docx: --slide is for PPTX files"},
		{"read notes.txt --page 1", "read: --page, --slide and --sheet are for PDF, PPTX and XLSX files"},
		{"read report.pdf --offset 10", "read: --offset and --limit are for text files"},
		{"read report.pdf --page 1 --slide 1", "read takes one of --page, --slide and --sheet"},
		{"sheet memo.docx", "sheet reads XLSX workbooks"},
		{"sheet book.xlsx Sales", `book.xlsx: there is no sheet "Sales"; the sheets are Q3`},
		{"sheet book.xlsx Q3 A1:B", `sheet: the range "A1:B" is not like A1:C10`},
	} {
		if res := run(c.in); !strings.Contains(res.Error, c.want) {
			t.Errorf("%s: %q, want %q", c.in, res.Error, c.want)
		}
	}
	// Nothing outside the folder was read: the link's target has a word
	// no result shows.
	if res := run("grep -i secret"); strings.Contains(res.Text, "outside secret") {
		t.Errorf("grep followed the link out of the folder: %q", res.Text)
	}
	// The byte cap cuts a document's text.
	if res := Run(ctx, env, "read report.pdf", Limits{MaxBytes: 30}); !res.Truncated || len(res.Text) > 30 {
		t.Errorf("capped read: %+v", res)
	}
}

// TestRealDocumentsThroughFiles: the real documents, through the files
// probe, give their reference text.
func TestRealDocumentsThroughFiles(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("..", "..", "shared", "realdata", "documents")
	if _, err := os.Stat(dir); err != nil {
		needRealData(t, "the real documents", dir, err)
	}
	env := Env{Name: "real", Kind: KindFiles, Path: dir}
	res := Run(context.Background(), env, "read docling-word_tables.docx", Limits{Timeout: 30 * time.Second})
	want, _ := os.ReadFile(filepath.Join(dir, "docling-word_tables.docx.txt"))
	if !res.OK() || res.Text != string(want) {
		t.Errorf("docx: %q\nwant %q", res.Text, want)
	}
	res = Run(context.Background(), env, "grep -i 'grand total' markitdown-REPAIR-2022-INV-001_multipage.pdf", Limits{Timeout: 30 * time.Second})
	if !res.OK() || !strings.Contains(res.Text, "markitdown-REPAIR-2022-INV-001_multipage.pdf:p1:") {
		t.Errorf("pdf grep: %+v", res)
	}
}
