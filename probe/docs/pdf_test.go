package docs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/memreview/memreview/probe/docs/docstest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// needPDF waits for the PDF engine: its first start on a machine compiles
// it (about 15 s), later ones load it from the cache.
func needPDF(t testing.TB) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if err := PreparePDF(ctx); err != nil {
		t.Fatal(err)
	}
}

func testdata(t testing.TB, name string) Source {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return src(data, name)
}

func TestPDF(t *testing.T) {
	needPDF(t)
	s := testdata(t, "simple.pdf")
	got, err := lines(t, s, PDF, Selection{}, Limits{})
	want := []line{{"p1:1", "Quarterly report Q3"}, {"p1:2", "Revenue rose 12% to 4.2 million"}, {"p1:3", "Reviews join items on ref_id"},
		{"p2:1", "Second page"}, {"p2:2", "The warehouse is in Leeds"}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("got %q (%v)\nwant %q", got, err, want)
	}
	got, err = lines(t, s, PDF, Selection{Page: 2}, Limits{})
	if err != nil || !reflect.DeepEqual(got, want[3:]) {
		t.Errorf("page 2: %q %v", got, err)
	}
	if _, err := lines(t, s, PDF, Selection{Page: 3}, Limits{}); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "there is no page 3; the PDF has 2") {
		t.Errorf("page 3: %v", err)
	}
	if info, err := Stat(context.Background(), s, PDF, Limits{}); err != nil || info.Pages != 2 || info.Encrypted {
		t.Errorf("stat: %+v %v", info, err)
	}
}

// TestPDFFaults: encrypted, scanned (no text layer), truncated, not a
// PDF, over the size and page caps: one-line errors that say which.
func TestPDFFaults(t *testing.T) {
	needPDF(t)
	cases := []struct {
		s    Source
		lim  Limits
		kind error
		want string
	}{
		{testdata(t, "encrypted.pdf"), Limits{}, ErrEncrypted, "encrypted.pdf: the PDF is encrypted with a password"},
		{testdata(t, "scanned.pdf"), Limits{}, ErrNoText, "scanned.pdf: the PDF has no text layer (a scanned document?): none of its 2 pages holds text"},
		{testdata(t, "truncated.pdf"), Limits{}, ErrDamaged, "truncated.pdf: the PDF is truncated or damaged (it does not end with %%EOF)"},
		{src([]byte("hello, not a pdf %%EOF"), "fake.pdf"), Limits{}, ErrDamaged, "fake.pdf: not a PDF"},
		{testdata(t, "simple.pdf"), Limits{MaxFileSize: 100}, ErrTooLarge, "over the 0 MiB cap"},
		{testdata(t, "simple.pdf"), Limits{MaxPages: 1}, ErrTooLarge, "simple.pdf: the PDF has 2 pages, over the cap of 1"},
	}
	for _, c := range cases {
		_, err := lines(t, c.s, PDF, Selection{}, c.lim)
		if !errors.Is(err, c.kind) || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want %q", c.s.Name, err, c.want)
		}
	}
	// A damaged body with an intact end: the engine's own error.
	simple := testdata(t, "simple.pdf")
	data, _ := readAll(simple)
	broken := append([]byte("%PDF-1.4\n"), bytes.Repeat([]byte("garbage "), 64)...)
	broken = append(broken, data[len(data)-40:]...)
	if _, err := lines(t, src(broken, "broken.pdf"), PDF, Selection{}, Limits{}); err == nil || !(errors.Is(err, ErrDamaged) || errors.Is(err, ErrNoText)) {
		t.Errorf("broken.pdf: %v", err)
	}
}

func readAll(s Source) ([]byte, error) {
	b := make([]byte, s.Size)
	_, err := s.R.ReadAt(b, 0)
	return b, err
}

// TestPDF5000Pages: a 5,000-page PDF is read page by page: one page at
// the end, stat, and a walk its caller stops.
func TestPDF5000Pages(t *testing.T) {
	needPDF(t)
	pages := make([]string, 5000)
	for i := range pages {
		pages[i] = fmt.Sprintf("page %d of the long report", i+1)
	}
	s := src(docstest.PDF(pages), "long.pdf")
	got, err := lines(t, s, PDF, Selection{Page: 4999}, Limits{})
	if err != nil || len(got) != 1 || got[0] != (line{"p4999:1", "page 4999 of the long report"}) {
		t.Errorf("page 4999: %q %v", got, err)
	}
	if info, err := Stat(context.Background(), s, PDF, Limits{}); err != nil || info.Pages != 5000 {
		t.Errorf("stat: %+v %v", info, err)
	}
	n, stop := 0, errors.New("enough")
	err = Lines(context.Background(), s, PDF, Selection{}, Limits{}, func(Ref, string) error {
		if n++; n == 100 {
			return stop
		}
		return nil
	})
	if err != stop || n != 100 {
		t.Errorf("a stopped walk: %d lines, %v", n, err)
	}
}
