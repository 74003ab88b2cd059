package docs

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/memreview/memreview/probe/docs/docstest"
)

// The testdata PDFs: simple.pdf (two pages of known text), scanned.pdf
// (two pages, no text), truncated.pdf (simple.pdf cut in half) and
// encrypted.pdf (simple.pdf encrypted by qpdf, AES-256, user password
// "secret"). TestTestdataPDFs checks that the first three are what
// docstest.PDF makes of their pages today, and writes them again when
// MEMREVIEW_WRITE_TESTDATA=1; the last is made with qpdf:
//
//	qpdf --encrypt secret owner 256 -- testdata/simple.pdf testdata/encrypted.pdf
var simplePages = []string{
	"Quarterly report Q3\nRevenue rose 12% to 4.2 million\nReviews join items on ref_id",
	"Second page\nThe warehouse is in Leeds",
}

func TestTestdataPDFs(t *testing.T) {
	write := os.Getenv("MEMREVIEW_WRITE_TESTDATA") == "1"
	simple := docstest.PDF(simplePages)
	for name, data := range map[string][]byte{
		"simple.pdf":    simple,
		"scanned.pdf":   docstest.PDF([]string{"", ""}),
		"truncated.pdf": simple[:len(simple)/2],
	} {
		path := filepath.Join("testdata", name)
		if write {
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, data) {
			t.Errorf("%s is not what docstest.PDF makes of its pages (%d bytes, want %d): run MEMREVIEW_WRITE_TESTDATA=1 go test -run TestTestdataPDFs ./probe/docs/", path, len(got), len(data))
		}
	}
}
