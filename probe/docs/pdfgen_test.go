package docs

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/memreview/memreview/probe/docs/docstest"
)

// The testdata PDFs: simple.pdf (two pages of known text), scanned.pdf
// (two pages, no text), truncated.pdf (simple.pdf cut in half) and
// encrypted.pdf (simple.pdf encrypted by qpdf, AES-256, user password
// "secret"). They are made by this test when MEMREVIEW_WRITE_TESTDATA=1,
// the last with qpdf:
//
//	qpdf --encrypt secret owner 256 -- testdata/simple.pdf testdata/encrypted.pdf
var simplePages = []string{
	"Quarterly report Q3\nRevenue rose 12% to 4.2 million\nReviews join items on ref_id",
	"Second page\nThe warehouse is in Leeds",
}

func TestWriteTestdata(t *testing.T) {
	if os.Getenv("MEMREVIEW_WRITE_TESTDATA") != "1" {
		t.Skip("writes testdata/*.pdf; set MEMREVIEW_WRITE_TESTDATA=1 to run")
	}
	simple := docstest.PDF(simplePages)
	for name, data := range map[string][]byte{
		"simple.pdf":    simple,
		"scanned.pdf":   docstest.PDF([]string{"", ""}),
		"truncated.pdf": simple[:len(simple)/2],
	} {
		if err := os.WriteFile(filepath.Join("testdata", name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
