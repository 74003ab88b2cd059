package probe

import (
	"bufio"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/memreview/memreview/probe/docs"
)

// grepFileCap is the largest file grep reads; bigger files are skipped and
// counted in a closing note. Lines of any length within it are searched; a
// matching line longer than grepLineCap is shown cut around its first
// match, and says so.
const (
	grepFileCap = 64 << 20
	grepLineCap = 1 << 20
)

// grep searches regular text files at or under rel, without following
// links, and writes "path:line: text" lines to r.Text up to the caps.
func grep(ctx context.Context, root *os.Root, rel string, op filesOp, lim Limits, r *Result) error {
	pat := op.Pattern
	if op.IgnoreCase {
		pat = "(?i)" + pat
	}
	re, err := regexp.Compile(pat)
	if err != nil {
		return fmt.Errorf("grep: the pattern %q is not a valid Go regular expression: %v", op.Pattern, err)
	}
	info, err := lstatNoLinks(root, rel)
	if err != nil {
		return err
	}
	g := grepper{ctx: ctx, root: root, re: re, lim: lim}
	switch {
	case info.Mode().IsRegular():
		g.single = true
		err = g.file(rel)
	case info.IsDir():
		err = fs.WalkDir(root.FS(), rel, func(p string, de fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if de.Type().IsRegular() {
				return g.file(p)
			}
			return nil
		})
	default:
		return refusedf("%s is a %s; grep reads regular files and folders", rel, entryType(info.Mode()))
	}
	if errors.Is(err, errCapReached) {
		err = nil
		r.Truncated = true
	}
	if err != nil {
		return err
	}
	if g.skipped > 0 {
		fmt.Fprintf(&g.out, "(skipped %d files larger than %d MiB)\n", g.skipped, grepFileCap>>20)
	}
	if g.unreadable > 0 {
		fmt.Fprintf(&g.out, "(skipped %d documents that cannot be read, such as %s)\n", g.unreadable, g.firstBad)
	}
	r.Text = g.out.String()
	return nil
}

var errCapReached = errors.New("output cap reached")

type grepper struct {
	ctx     context.Context
	root    *os.Root
	re      *regexp.Regexp
	lim     Limits
	out     strings.Builder
	lines   int
	skipped int
	single  bool // grep of one file: a document's error is the result

	unreadable int    // documents skipped in a folder: encrypted, damaged, no text…
	firstBad   string // the first one's error
}

func (g *grepper) file(p string) error {
	if err := g.ctx.Err(); err != nil {
		return err
	}
	f, info, err := openRegular(g.root, p)
	if err != nil {
		return err
	}
	defer f.Close()
	if info.Size() > grepFileCap {
		g.skipped++
		return nil
	}
	if df, ok := docs.FormatOf(p); ok {
		f.Close()
		err := g.document(p, df)
		if err == nil || errors.Is(err, errCapReached) || g.single || g.ctx.Err() != nil {
			return err
		}
		if g.unreadable++; g.firstBad == "" {
			g.firstBad = err.Error()
		}
		return nil
	}
	if bin, err := isBinary(f); err != nil || bin {
		return nil // like grep -I: binary files are not searched
	}
	sc := bufio.NewScanner(io.LimitReader(f, grepFileCap))
	sc.Buffer(make([]byte, 64<<10), grepFileCap+1)
	for n := 1; sc.Scan(); n++ {
		if n%1024 == 0 {
			if err := g.ctx.Err(); err != nil {
				return err
			}
		}
		line := sc.Bytes()
		if !g.re.Match(line) {
			continue
		}
		s := fmt.Sprintf("%s:%d: %s\n", p, n, longLine(line, g.re))
		if g.lines >= g.lim.MaxRows || g.out.Len()+len(s) > g.lim.MaxBytes {
			return errCapReached
		}
		g.out.WriteString(s)
		g.lines++
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("grep: reading %s: %w", p, err)
	}
	return nil
}

// longLine is a matched line as grep shows it: whole up to grepLineCap
// bytes, else an excerpt around the match with a note of the cut.
func longLine(line []byte, re *regexp.Regexp) string {
	if len(line) <= grepLineCap {
		return string(line)
	}
	loc := re.FindIndex(line)
	const around = 256
	from, to := max(loc[0]-around, 0), min(max(loc[1], loc[0]+1)+around, len(line), loc[0]+grepLineCap/2)
	for from > 0 && !utf8.RuneStart(line[from]) {
		from++
	}
	for to < len(line) && !utf8.RuneStart(line[to]) {
		to--
	}
	return fmt.Sprintf("(line of %d bytes, cut to bytes %d-%d around the match) %s", len(line), from+1, to, line[from:to])
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// readCSV shows a CSV file as a table: the first record is the header.
// Reading stops at the byte cap, so a huge file or a single endless line is
// bounded; a record cut by the cap is dropped.
func readCSV(root *os.Root, rel string, lim Limits, r *Result) error {
	f, _, err := openRegular(root, rel)
	if err != nil {
		return err
	}
	defer f.Close()
	if bin, err := isBinary(f); err != nil {
		return notFound(rel, err)
	} else if bin {
		return fmt.Errorf("%s is a binary file, not CSV", rel)
	}
	cr := &countingReader{r: io.LimitReader(f, int64(lim.MaxBytes)+1)}
	rd := csv.NewReader(cr)
	rd.FieldsPerRecord = -1
	rd.ReuseRecord = false
	over := func() bool { return cr.n > int64(lim.MaxBytes) }
	for {
		rec, err := rd.Read()
		if err == io.EOF {
			if over() {
				r.Truncated = true
			}
			return nil
		}
		if err != nil || over() {
			if over() {
				r.Truncated = true
				return nil
			}
			return fmt.Errorf("%s is not valid CSV: %v", rel, err)
		}
		if r.Columns == nil {
			r.Columns = rec
			continue
		}
		if len(r.Rows) >= lim.MaxRows {
			r.Truncated = true
			return nil
		}
		row := make([]any, len(rec))
		for i, v := range rec {
			row[i] = v
		}
		r.Rows = append(r.Rows, row)
	}
}
