package probe

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/memreview/memreview/probe/docs"
	"github.com/memreview/memreview/probe/docs/docstest"
)

// officeFolder writes 200 office documents, 50 each of DOCX, PPTX, XLSX
// and PDF, each with some 40 lines of text (30 paragraphs, 10 slides of
// 4 lines, 40 rows of 3 cells, 4 pages of 10 lines); one line in each
// document names its number ("ticket T0042").
func officeFolder(b *testing.B) (dir string, bytes int64) {
	dir = b.TempDir()
	line := func(d, i int) string {
		if i == 7 {
			return fmt.Sprintf("escalated as ticket T%04d by the on-call engineer", d)
		}
		return fmt.Sprintf("line %d of document %d: the warehouse ships orders from Leeds every weekday morning", i, d)
	}
	for d := range 200 {
		var data []byte
		var name string
		switch d % 4 {
		case 0:
			var paras []string
			for i := range 30 {
				paras = append(paras, line(d, i))
			}
			data, name = docstest.DOCX(b, paras, [2][2]string{{"a", "b"}, {"c", "d"}}), fmt.Sprintf("memo%03d.docx", d)
		case 1:
			var slides []string
			for s := range 10 {
				slides = append(slides, strings.Join([]string{line(d, s*4), line(d, s*4+1), line(d, s*4+2), line(d, s*4+3)}, "\n"))
			}
			data, name = docstest.PPTX(b, slides, nil), fmt.Sprintf("deck%03d.pptx", d)
		case 2:
			var cells []docstest.Cell
			for r := 1; r <= 40; r++ {
				cells = append(cells, docstest.Cell{Ref: fmt.Sprintf("A%d", r), V: strconv.Itoa(r)},
					docstest.Cell{Ref: fmt.Sprintf("B%d", r), T: "inlineStr", Inline: line(d, r)},
					docstest.Cell{Ref: fmt.Sprintf("C%d", r), V: strconv.Itoa(r * 7)})
			}
			data, name = docstest.XLSX(b, false, nil, []string{"Orders"}, map[string][]docstest.Cell{"Orders": cells}), fmt.Sprintf("book%03d.xlsx", d)
		case 3:
			var pages []string
			for p := range 4 {
				var ls []string
				for i := range 10 {
					ls = append(ls, line(d, p*10+i))
				}
				pages = append(pages, strings.Join(ls, "\n"))
			}
			data, name = docstest.PDF(pages), fmt.Sprintf("report%03d.pdf", d)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			b.Fatal(err)
		}
		bytes += int64(len(data))
	}
	return dir, bytes
}

const officeGrep = "grep T0042|T0199"

// maybeGrepOnce is BenchmarkGrepOffice's cold run: when the benchmark
// starts the test binary again with MEMREVIEW_GREP_ONCE=DIR, TestMain
// calls this before any test, and the process greps DIR once, prints how
// long the probe took and exits.
func maybeGrepOnce() {
	dir := os.Getenv("MEMREVIEW_GREP_ONCE")
	if dir == "" {
		return
	}
	start := time.Now()
	res := Run(context.Background(), Env{Name: "office", Kind: KindFiles, Path: dir}, officeGrep, Limits{Timeout: time.Minute})
	if !res.OK() || strings.Count(res.Text, "\n") != 2 {
		fmt.Fprintf(os.Stderr, "grep once: %+v\n", res)
		os.Exit(1)
	}
	fmt.Printf("grep_ns=%d\n", time.Since(start).Nanoseconds())
	os.Exit(0)
}

// BenchmarkGrepOffice greps 200 office documents (BenchmarkGrepOffice's
// folder, 2 matches) through the files probe. cold: a fresh process (the
// test binary again), whose first PDF starts the engine from its compiled
// cache; the op is the whole process, grep-ms the probe inside it. warm:
// the same grep again and again in one process. memreview keeps no text
// between probes, so warm differs from cold by the engine's start only;
// the files are in the OS page cache in both.
//
//	go test ./probe/ -run '^$' -bench GrepOffice -benchtime 5x
func BenchmarkGrepOffice(b *testing.B) {
	dir, size := officeFolder(b)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if err := docs.PreparePDF(ctx); err != nil { // compiled once per machine, not timed
		b.Fatal(err)
	}
	b.Run("cold", func(b *testing.B) {
		var inner time.Duration
		for b.Loop() {
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), "MEMREVIEW_GREP_ONCE="+dir)
			out, err := cmd.CombinedOutput()
			if err != nil {
				b.Fatalf("%v\n%s", err, out)
			}
			_, v, _ := strings.Cut(string(out), "grep_ns=")
			ns, _ := strconv.ParseInt(strings.Fields(v)[0], 10, 64)
			inner += time.Duration(ns)
		}
		b.ReportMetric(float64(inner.Milliseconds())/float64(b.N), "grep-ms")
	})
	b.Run("warm", func(b *testing.B) {
		env := Env{Name: "office", Kind: KindFiles, Path: dir}
		for b.Loop() {
			if res := Run(context.Background(), env, officeGrep, Limits{Timeout: time.Minute}); !res.OK() {
				b.Fatal(res.Error)
			}
		}
		b.ReportMetric(float64(200*b.N)/b.Elapsed().Seconds(), "docs/s")
		b.ReportMetric(float64(size*int64(b.N))/b.Elapsed().Seconds()/1e6, "MB/s")
	})
}
