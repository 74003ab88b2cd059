package docs

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	dslipak "github.com/dslipak/pdf"
	ledongthuc "github.com/ledongthuc/pdf"
)

// benchPDF is one PDF of the extraction comparison with its pdftotext
// -layout reference.
type benchPDF struct {
	name string
	data []byte
	ref  string
}

// benchPDFs are the real PDFs of ../shared/realdata/documents (with their
// references), and, when pdftotext (poppler-utils) is installed, the PDF
// manuals Debian ships under /usr/share/doc, referenced by running it.
func benchPDFs(b *testing.B) []benchPDF {
	var out []benchPDF
	real, _ := filepath.Glob(filepath.Join(realDocs, "*.pdf"))
	for _, p := range real {
		data, err1 := os.ReadFile(p)
		ref, err2 := os.ReadFile(p + ".txt")
		if err1 == nil && err2 == nil {
			out = append(out, benchPDF{filepath.Base(p), data, string(ref)})
		}
	}
	if len(out) == 0 {
		b.Skip("the real PDFs are not at " + realDocs)
	}
	if _, err := exec.LookPath("pdftotext"); err == nil {
		for _, p := range []string{"/usr/share/doc/libtasn1-doc/libtasn1.pdf", "/usr/share/doc/shared-mime-info/shared-mime-info-spec.pdf"} {
			data, err := os.ReadFile(p)
			if err != nil {
				continue
			}
			ref, err := exec.Command("pdftotext", "-layout", p, "-").Output()
			if err == nil {
				out = append(out, benchPDF{filepath.Base(p), data, string(ref)})
			}
		}
	}
	return out
}

// pdfExtractors are the candidates, each returning a document's text and
// page count.
var pdfExtractors = []struct {
	name string
	fn   func([]byte) (string, int, error)
}{
	{"pdfium-wasm", func(data []byte) (string, int, error) {
		var b strings.Builder
		pages := 0
		err := Lines(context.Background(), Source{R: bytes.NewReader(data), Size: int64(len(data)), Name: "x.pdf"}, PDF, Selection{}, Limits{},
			func(r Ref, s string) error {
				pages = max(pages, r.N)
				b.WriteString(s + "\n")
				return nil
			})
		return b.String(), pages, err
	}},
	{"ledongthuc-plain", func(data []byte) (string, int, error) {
		r, err := ledongthuc.NewReader(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			return "", 0, err
		}
		var b strings.Builder
		fonts := map[string]*ledongthuc.Font{}
		for i := 1; i <= r.NumPage(); i++ {
			p := r.Page(i)
			for _, name := range p.Fonts() {
				if _, ok := fonts[name]; !ok {
					f := p.Font(name)
					fonts[name] = &f
				}
			}
			s, err := p.GetPlainText(fonts)
			if err != nil {
				return "", 0, err
			}
			b.WriteString(s + "\n")
		}
		return b.String(), r.NumPage(), nil
	}},
	{"dslipak-rows", func(data []byte) (string, int, error) {
		r, err := dslipak.NewReader(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			return "", 0, err
		}
		var b strings.Builder
		for i := 1; i <= r.NumPage(); i++ {
			p := r.Page(i)
			if p.V.IsNull() {
				continue
			}
			rows, err := p.GetTextByRow()
			if err != nil {
				return "", 0, err
			}
			for _, row := range rows {
				for _, w := range row.Content {
					b.WriteString(w.S)
				}
				b.WriteByte('\n')
			}
		}
		return b.String(), r.NumPage(), nil
	}},
}

// BenchmarkPDFText compares the PDF text extractors side by side on the
// same files: pages/s and MB/s of whole-document extraction (the engine
// already started), and agreement with pdftotext as word F1 (WordF1).
//
//	go test ./probe/docs/ -run '^$' -bench PDFText -benchtime 2s
func BenchmarkPDFText(b *testing.B) {
	needPDF(b)
	for _, f := range benchPDFs(b) {
		for _, x := range pdfExtractors {
			b.Run("file="+f.name+"/engine="+x.name, func(b *testing.B) {
				text, pages, err := x.fn(f.data)
				if err != nil {
					b.Skipf("%s cannot read %s: %v", x.name, f.name, err)
				}
				f1 := WordF1(f.ref, text)
				b.ResetTimer()
				for b.Loop() {
					if _, _, err := x.fn(f.data); err != nil {
						b.Fatal(err)
					}
				}
				s := b.Elapsed().Seconds()
				b.ReportMetric(float64(pages*b.N)/s, "pages/s")
				b.ReportMetric(float64(len(f.data)*b.N)/s/1e6, "MB/s")
				b.ReportMetric(f1, "wordF1")
			})
		}
	}
}

// BenchmarkOOXMLText: text extraction from the real DOCX, PPTX and XLSX
// files (MB/s of the file).
//
//	go test ./probe/docs/ -run '^$' -bench OOXMLText
func BenchmarkOOXMLText(b *testing.B) {
	files, _ := filepath.Glob(filepath.Join(realDocs, "*.*x"))
	if len(files) == 0 {
		b.Skip("the real documents are not at " + realDocs)
	}
	for _, p := range files {
		data, _ := os.ReadFile(p)
		f, _ := FormatOf(p)
		b.Run(filepath.Base(p), func(b *testing.B) {
			for b.Loop() {
				if err := Lines(context.Background(), Source{R: bytes.NewReader(data), Size: int64(len(data)), Name: p}, f, Selection{}, Limits{},
					func(Ref, string) error { return nil }); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(data)*b.N)/b.Elapsed().Seconds()/1e6, "MB/s")
		})
	}
}
