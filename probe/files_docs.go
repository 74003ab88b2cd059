package probe

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/memreview/memreview/probe/docs"
)

// The files probe reads PDF, DOCX, XLSX and PPTX through probe/docs, from
// a file opened through the environment's os.Root (never a path).

// openDocument opens rel (a regular file reached through no link) as a
// document source.
func openDocument(root *os.Root, rel string) (docs.Source, func(), error) {
	f, info, err := openRegular(root, rel)
	if err != nil {
		return docs.Source{}, nil, err
	}
	return docs.Source{R: f, Size: info.Size(), Name: rel}, func() { f.Close() }, nil
}

func selection(op filesOp) docs.Selection {
	return docs.Selection{Page: op.Page, Slide: op.Slide, Sheet: op.Sheet}
}

// readDocument is read on a document: its text with a marker line at each
// page, slide, notes or sheet ("=== page 3 ==="); a DOCX's paragraphs one
// a line (line N is paragraph N, as grep's ¶N says); an XLSX's cells as
// "B7: value". --page, --slide and --sheet keep one.
func readDocument(ctx context.Context, root *os.Root, rel string, f docs.Format, op filesOp, lim Limits, r *Result) error {
	if op.Offset != 0 || op.Limit != 0 {
		return fmt.Errorf("read: --offset and --limit are for text files; %s is a %s document: use --page, --slide or --sheet", rel, strings.ToUpper(string(f)))
	}
	s, done, err := openDocument(root, rel)
	if err != nil {
		return err
	}
	defer done()
	var b strings.Builder
	unit := ""
	err = docs.Lines(ctx, s, f, selection(op), docs.Limits{}, func(ref docs.Ref, text string) error {
		var head string
		switch ref.Kind {
		case "page", "slide", "notes":
			head = fmt.Sprintf("=== %s %d ===\n", ref.Kind, ref.N)
		case "cell":
			head = fmt.Sprintf("=== sheet %s ===\n", ref.Sheet)
			text = ref.Cell + ": " + text
		}
		if head != unit {
			unit = head
			text = head + text
		}
		if b.Len()+len(text)+1 > lim.MaxBytes {
			r.Truncated = true
			return errCapReached
		}
		b.WriteString(text)
		b.WriteByte('\n')
		return nil
	})
	if err != nil && !errors.Is(err, errCapReached) {
		return err
	}
	r.Text = b.String()
	return nil
}

// statDocument is stat on a document: the file's row with its format,
// pages (PDF; DOCX as Word last counted them), slides, words, and each
// sheet with its dimension.
func statDocument(ctx context.Context, root *os.Root, rel string, f docs.Format, r *Result) error {
	if err := statPath(root, rel, r); err != nil {
		return err
	}
	s, done, err := openDocument(root, rel)
	if err != nil {
		return err
	}
	defer done()
	info, err := docs.Stat(ctx, s, f, docs.Limits{})
	if err != nil {
		return err
	}
	orNil := func(n int) any {
		if n == 0 {
			return nil
		}
		return int64(n)
	}
	var sheets []string
	for _, sh := range info.Sheets {
		sheets = append(sheets, fmt.Sprintf("%s %s (%d rows, %d columns)", sh.Name, sh.Dimension, sh.Rows, sh.Cols))
	}
	var sheetCol any
	if len(sheets) > 0 {
		sheetCol = strings.Join(sheets, "; ")
	}
	r.Columns = append(r.Columns, "format", "pages", "slides", "words", "sheets")
	r.Rows[0] = append(r.Rows[0], string(info.Format), orNil(info.Pages), orNil(info.Slides), orNil(info.Words), sheetCol)
	return nil
}

// sheetTable is the sheet request: an XLSX range as a table.
func sheetTable(ctx context.Context, root *os.Root, rel string, op filesOp, lim Limits, r *Result) error {
	f, ok := docs.FormatOf(rel)
	if !ok || f != docs.XLSX {
		return fmt.Errorf("sheet reads XLSX workbooks; %s is not one (use read or csv)", rel)
	}
	rng, err := docs.ParseRange(op.Range)
	if err != nil {
		return fmt.Errorf("sheet: %v", err)
	}
	s, done, err := openDocument(root, rel)
	if err != nil {
		return err
	}
	defer done()
	t, err := docs.SheetTable(ctx, s, op.Sheet, rng, lim.MaxRows, lim.MaxBytes, docs.Limits{})
	if errors.Is(err, docs.ErrNotFound) && op.Range == "" && looksLikeRange(op.Sheet) {
		// sheet FILE B2:D9: no sheet of that name, so a range of the first sheet
		rng, _ = docs.ParseRange(op.Sheet)
		t, err = docs.SheetTable(ctx, s, "", rng, lim.MaxRows, lim.MaxBytes, docs.Limits{})
	}
	if err != nil {
		return err
	}
	r.Columns, r.Rows, r.Truncated = t.Columns, t.Rows, t.Truncated
	return nil
}

// grepDocument searches a document's lines and writes
// "path:REF: text" for each match (p3:12, slide 2:1, ¶7, Q3!B7).
func (g *grepper) document(p string, f docs.Format) error {
	s, done, err := openDocument(g.root, p)
	if err != nil {
		return err
	}
	defer done()
	return docs.Lines(g.ctx, s, f, docs.Selection{}, docs.Limits{}, func(ref docs.Ref, text string) error {
		if !g.re.MatchString(text) {
			return nil
		}
		line := fmt.Sprintf("%s:%s: %s\n", p, ref, longLine([]byte(text), g.re))
		if g.lines >= g.lim.MaxRows || g.out.Len()+len(line) > g.lim.MaxBytes {
			return errCapReached
		}
		g.out.WriteString(line)
		g.lines++
		return nil
	})
}
