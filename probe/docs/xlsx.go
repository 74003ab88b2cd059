package docs

import (
	"context"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"
)

// workbook is what every sheet read needs: the sheets in order, the
// shared strings, which cell styles are dates, and the date system.
type workbook struct {
	p        *pkg
	sheets   []wbSheet
	shared   []string
	isDate   []bool // by cell style index (c/@s)
	date1904 bool
}

type wbSheet struct{ name, part string }

// openWorkbook reads the workbook part, its relationships, the shared
// strings and the styles.
func openWorkbook(p *pkg) (*workbook, error) {
	main := "xl/workbook.xml"
	if root, err := p.rels(""); err == nil {
		for _, r := range root {
			if strings.HasSuffix(r.typ, "/officeDocument") {
				main = r.target
			}
		}
	}
	if !p.has(main) {
		return nil, p.src.errorf(ErrDamaged, "not an Excel workbook (no %s)", main)
	}
	rels, err := p.rels(main)
	if err != nil {
		return nil, err
	}
	wb := &workbook{p: p}
	rc, err := p.open(main)
	if err != nil {
		return nil, err
	}
	d := decoder(rc)
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			rc.Close()
			return nil, p.xmlErr(main, err)
		}
		se, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		switch se.Name.Local {
		case "workbookPr":
			v := attr(se, "date1904")
			wb.date1904 = v == "1" || v == "true"
		case "sheet":
			r, ok := rels[relID(se)]
			if !ok || !p.has(r.target) {
				continue // a chart sheet or a missing part: not a worksheet
			}
			if strings.HasSuffix(r.typ, "/worksheet") {
				wb.sheets = append(wb.sheets, wbSheet{name: attr(se, "name"), part: r.target})
			}
		}
	}
	rc.Close()
	for _, r := range rels {
		switch {
		case strings.HasSuffix(r.typ, "/sharedStrings") && p.has(r.target):
			if wb.shared, err = readShared(p, r.target); err != nil {
				return nil, err
			}
		case strings.HasSuffix(r.typ, "/styles") && p.has(r.target):
			if wb.isDate, err = readDateStyles(p, r.target); err != nil {
				return nil, err
			}
		}
	}
	return wb, nil
}

// readShared reads the shared string table (rich text runs joined,
// phonetic runs left out).
func readShared(p *pkg, part string) ([]string, error) {
	rc, err := p.open(part)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	d := decoder(rc)
	var out []string
	var b strings.Builder
	inT := false
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, p.xmlErr(part, err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "si":
				b.Reset()
			case "t":
				inT = true
			case "rPh":
				if err := d.Skip(); err != nil {
					return nil, p.xmlErr(part, err)
				}
			}
		case xml.EndElement:
			switch t.Name.Local {
			case "t":
				inT = false
			case "si":
				out = append(out, b.String())
			}
		case xml.CharData:
			if inT {
				b.Write(t)
			}
		}
	}
}

// readDateStyles says, for each cell style (cellXfs/xf), whether its
// number format shows a date or time.
func readDateStyles(p *pkg, part string) ([]bool, error) {
	rc, err := p.open(part)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	d := decoder(rc)
	custom := map[int]string{}
	var out []bool
	inXfs := false
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, p.xmlErr(part, err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "numFmt":
				id, _ := strconv.Atoi(attr(t, "numFmtId"))
				custom[id] = attr(t, "formatCode")
			case "cellXfs":
				inXfs = true
			case "xf":
				if inXfs {
					id, _ := strconv.Atoi(attr(t, "numFmtId"))
					out = append(out, isDateFormat(id, custom[id]))
				}
			}
		case xml.EndElement:
			if t.Name.Local == "cellXfs" {
				inXfs = false
			}
		}
	}
}

// isDateFormat: the built-in date and time formats (14-22, 27-36, 45-47,
// 50-58), or a custom format code with date or time parts outside quotes
// and brackets.
func isDateFormat(id int, code string) bool {
	switch {
	case id >= 14 && id <= 22, id >= 27 && id <= 36, id >= 45 && id <= 47, id >= 50 && id <= 58:
		return true
	case code == "":
		return false
	}
	var b strings.Builder
	for i := 0; i < len(code); i++ {
		switch c := code[i]; c {
		case '"':
			j := strings.IndexByte(code[i+1:], '"')
			if j < 0 {
				i = len(code)
			} else {
				i += j + 1
			}
		case '[':
			j := strings.IndexByte(code[i+1:], ']')
			if j < 0 {
				i = len(code)
			} else {
				i += j + 1
			}
		case '\\', '_', '*':
			i++
		default:
			b.WriteByte(c)
		}
	}
	s := strings.ToLower(b.String())
	if strings.Contains(s, "general") {
		return false
	}
	return strings.ContainsAny(s, "ydhs") || strings.Contains(s, "mm")
}

// sheetIndex finds a sheet by name (any case); "" is the first sheet.
func (wb *workbook) sheetIndex(name string) (int, error) {
	if len(wb.sheets) == 0 {
		return 0, wb.p.src.errorf(ErrNotFound, "the workbook has no worksheets")
	}
	if name == "" {
		return 0, nil
	}
	for i, s := range wb.sheets {
		if strings.EqualFold(s.name, name) {
			return i, nil
		}
	}
	var names []string
	for _, s := range wb.sheets {
		names = append(names, s.name)
	}
	return 0, wb.p.src.errorf(ErrNotFound, "there is no sheet %q; the sheets are %s", name, strings.Join(names, ", "))
}

// cellFn receives one cell: its row and column (1-based), its reference
// and value. It returns stop to end the sheet early.
type cellFn func(row, col int, ref string, v any) (stop bool, err error)

// cells streams the sheet's cells in file order, without holding the
// sheet: a million-row sheet costs what is read of it.
func (wb *workbook) cells(ctx context.Context, idx int, fn cellFn) error {
	sh := wb.sheets[idx]
	rc, err := wb.p.open(sh.part)
	if err != nil {
		return err
	}
	defer rc.Close()
	d := decoder(rc)
	var ref, typ, style, v, inline string
	var inV, inIs, inIsT, inC bool
	row, col, n := 0, 0, 0
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return wb.p.xmlErr(sh.part, err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "row":
				if r, err := strconv.Atoi(attr(t, "r")); err == nil {
					row = r
				} else {
					row++
				}
				col = 0
				if n++; n%1024 == 0 && ctx.Err() != nil {
					return ctx.Err()
				}
			case "c":
				inC, ref, typ, style, v, inline = true, attr(t, "r"), attr(t, "t"), attr(t, "s"), "", ""
				if r, c, ok := parseCell(ref); ok {
					row, col = r, c
				} else {
					col++
					ref = colName(col) + strconv.Itoa(row)
				}
			case "v":
				inV = inC
			case "is":
				inIs = inC
			case "t":
				inIsT = inIs
			case "rPh":
				if err := d.Skip(); err != nil {
					return wb.p.xmlErr(sh.part, err)
				}
			}
		case xml.EndElement:
			switch t.Name.Local {
			case "v":
				inV = false
			case "t":
				inIsT = false
			case "is":
				inIs = false
			case "c":
				inC = false
				val, ok := wb.value(typ, style, v, inline)
				if !ok {
					continue
				}
				stop, err := fn(row, col, ref, val)
				if err != nil || stop {
					return err
				}
			}
		case xml.CharData:
			switch {
			case inV:
				v += string(t)
			case inIsT:
				inline += string(t)
			}
		}
	}
}

// value is a cell's value as the file stores it: shared and inline
// strings, numbers (int64 when whole), dates as dates, booleans as TRUE
// or FALSE, errors as #DIV/0! and the like; a formula's cached value.
func (wb *workbook) value(typ, style, v, inline string) (any, bool) {
	switch typ {
	case "inlineStr":
		return inline, true
	case "s":
		i, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || i < 0 || i >= len(wb.shared) {
			return nil, v != ""
		}
		return wb.shared[i], true
	case "str", "e", "d":
		return v, v != ""
	case "b":
		if v == "" {
			return nil, false
		}
		if v == "1" {
			return "TRUE", true
		}
		return "FALSE", true
	}
	if v == "" {
		return nil, false
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil {
		return v, true
	}
	if s, err := strconv.Atoi(style); err == nil && s >= 0 && s < len(wb.isDate) && wb.isDate[s] {
		if d, ok := serialDate(f, wb.date1904); ok {
			return d, true
		}
	}
	if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
		return int64(f), true
	}
	return f, true
}

// serialDate turns a spreadsheet date serial into "2006-01-02" or
// "2006-01-02 15:04:05" (1900 system with its phantom 29 February, or
// 1904).
func serialDate(f float64, date1904 bool) (string, bool) {
	if f < 0 || f > 2958465 { // after 9999-12-31
		return "", false
	}
	base := time.Date(1899, 12, 30, 0, 0, 0, 0, time.UTC)
	if date1904 {
		base = time.Date(1904, 1, 1, 0, 0, 0, 0, time.UTC)
	} else if f < 61 {
		base = base.AddDate(0, 0, 1) // serials before 1900-03-01 skip the phantom 1900-02-29
	}
	if f >= 60 && f < 61 && !date1904 {
		return "1900-02-29", true // Lotus 1-2-3's phantom day, as Excel shows it
	}
	days := math.Floor(f)
	secs := math.Round((f - days) * 86400)
	t := base.AddDate(0, 0, int(days)).Add(time.Duration(secs) * time.Second)
	if secs == 0 {
		return t.Format("2006-01-02"), true
	}
	if days == 0 && !date1904 {
		return t.Format("15:04:05"), true
	}
	return t.Format("2006-01-02 15:04:05"), true
}

// parseCell splits B7 into row 7, column 2.
func parseCell(ref string) (row, col int, ok bool) {
	i := 0
	for i < len(ref) && ref[i] >= 'A' && ref[i] <= 'Z' {
		col = col*26 + int(ref[i]-'A'+1)
		i++
	}
	if i == 0 || i == len(ref) || i > 3 {
		return 0, 0, false
	}
	r, err := strconv.Atoi(ref[i:])
	if err != nil || r < 1 {
		return 0, 0, false
	}
	return r, col, true
}

// colName is the letters of column n (1 → A, 27 → AA).
func colName(n int) string {
	var b []byte
	for n > 0 {
		n--
		b = append([]byte{byte('A' + n%26)}, b...)
		n /= 26
	}
	return string(b)
}

// Range is a rectangle of a sheet; a zero bound is open.
type Range struct{ Row1, Col1, Row2, Col2 int }

// ParseRange reads A1:C10, B7, A:C (columns) or 3:10 (rows); "" is the
// whole sheet.
func ParseRange(s string) (Range, error) {
	s = strings.ToUpper(strings.ReplaceAll(strings.TrimSpace(s), "$", ""))
	if s == "" {
		return Range{}, nil
	}
	a, b, two := strings.Cut(s, ":")
	if !two {
		b = a
	}
	r1, c1, err1 := rangeEnd(a)
	r2, c2, err2 := rangeEnd(b)
	if err1 != nil || err2 != nil || (r1 == 0) != (r2 == 0) || (c1 == 0) != (c2 == 0) {
		return Range{}, fmt.Errorf("the range %q is not like A1:C10, B7, A:C or 3:10", s)
	}
	return Range{min(r1, r2), min(c1, c2), max(r1, r2), max(c1, c2)}, nil
}

func rangeEnd(s string) (row, col int, err error) {
	i := 0
	for i < len(s) && s[i] >= 'A' && s[i] <= 'Z' {
		col = col*26 + int(s[i]-'A'+1)
		i++
	}
	if i > 3 || (i == 0 && i == len(s)) {
		return 0, 0, fmt.Errorf("bad range end %q", s)
	}
	if i < len(s) {
		if row, err = strconv.Atoi(s[i:]); err != nil || row < 1 || row > 1<<20 {
			return 0, 0, fmt.Errorf("bad range end %q", s)
		}
	}
	if col > 16384 {
		return 0, 0, fmt.Errorf("bad range end %q", s)
	}
	return row, col, nil
}

func (r Range) holds(row, col int) bool {
	return (r.Row1 == 0 || (row >= r.Row1 && row <= r.Row2)) && (r.Col1 == 0 || (col >= r.Col1 && col <= r.Col2))
}

// past reports whether row is below the range (rows come in order).
func (r Range) past(row int) bool { return r.Row2 != 0 && row > r.Row2 }

// Table is a sheet range as rows: the first column is the row number,
// then one column per sheet column (A, B, …) up to the last one with a
// value.
type Table struct {
	Sheet     string
	Columns   []string
	Rows      [][]any
	Truncated bool
}

// maxTableCols bounds the columns of a sheet table.
const maxTableCols = 256

// SheetTable reads a range of a sheet (the first sheet when sheet is "")
// as a table of at most maxRows rows and about maxBytes bytes, stopping
// there (or below the range) without reading the rest of the sheet.
func SheetTable(ctx context.Context, src Source, sheet string, rng Range, maxRows, maxBytes int, lim Limits) (Table, error) {
	p, err := openPackage(src, lim)
	if err != nil {
		return Table{}, err
	}
	wb, err := openWorkbook(p)
	if err != nil {
		return Table{}, err
	}
	idx, err := wb.sheetIndex(sheet)
	if err != nil {
		return Table{}, err
	}
	t := Table{Sheet: wb.sheets[idx].name}
	type rowVals struct {
		n    int
		vals map[int]any
	}
	var rows []rowVals
	maxCol, used := 0, 0
	err = wb.cells(ctx, idx, func(row, col int, _ string, v any) (bool, error) {
		if rng.past(row) {
			return true, nil
		}
		if !rng.holds(row, col) || col > maxTableCols+rng.Col1 {
			return false, nil
		}
		if len(rows) == 0 || rows[len(rows)-1].n != row {
			if len(rows) == maxRows {
				t.Truncated = true
				return true, nil
			}
			rows = append(rows, rowVals{n: row, vals: map[int]any{}})
		}
		if s, ok := v.(string); ok {
			used += len(s) + 1
		} else {
			used += 8
		}
		if used > maxBytes {
			t.Truncated = true
			rows = rows[:len(rows)-1]
			return true, nil
		}
		rows[len(rows)-1].vals[col] = v
		maxCol = max(maxCol, col)
		return false, nil
	})
	if err != nil {
		return Table{}, err
	}
	first := 1
	if rng.Col1 > 0 {
		first = rng.Col1
		if rng.Col2 > 0 && rng.Col2-rng.Col1 < maxTableCols {
			maxCol = rng.Col2
		}
	}
	t.Columns = []string{"row"}
	for c := first; c <= maxCol && c < first+maxTableCols; c++ {
		t.Columns = append(t.Columns, colName(c))
	}
	for _, r := range rows {
		out := make([]any, len(t.Columns))
		out[0] = int64(r.n)
		for c, v := range r.vals {
			if i := c - first + 1; i >= 1 && i < len(out) {
				out[i] = v
			}
		}
		t.Rows = append(t.Rows, out)
	}
	return t, nil
}

// xlsxLines calls fn with every non-empty cell of every sheet (or of
// sel.Sheet), as text.
func xlsxLines(ctx context.Context, p *pkg, sel Selection, fn func(Ref, string) error) error {
	wb, err := openWorkbook(p)
	if err != nil {
		return err
	}
	for i, sh := range wb.sheets {
		if sel.Sheet != "" && !strings.EqualFold(sh.name, sel.Sheet) {
			continue
		}
		err := wb.cells(ctx, i, func(row, _ int, ref string, v any) (bool, error) {
			return false, fn(Ref{Kind: "cell", N: row, Sheet: sh.name, Cell: ref}, CellString(v))
		})
		if err != nil {
			return err
		}
	}
	if sel.Sheet != "" {
		if _, err := wb.sheetIndex(sel.Sheet); err != nil {
			return err
		}
	}
	return nil
}

// CellString is a cell value as text.
func CellString(v any) string {
	switch t := v.(type) {
	case nil:
		return ""
	case string:
		return t
	case int64:
		return strconv.FormatInt(t, 10)
	case float64:
		if a := math.Abs(t); a >= 1e-6 && a < 1e15 {
			return strconv.FormatFloat(t, 'f', -1, 64)
		}
		return strconv.FormatFloat(t, 'g', -1, 64)
	}
	return fmt.Sprint(v)
}

// xlsxInfo gives each sheet's name and size: its declared dimension, or,
// when it declares none, what a scan finds.
func xlsxInfo(ctx context.Context, p *pkg) (Info, error) {
	wb, err := openWorkbook(p)
	if err != nil {
		return Info{}, err
	}
	info := Info{Format: XLSX}
	for i, sh := range wb.sheets {
		si := SheetInfo{Name: sh.name}
		dim, err := sheetDimension(p, sh.part)
		if err != nil {
			return Info{}, err
		}
		if r, err := ParseRange(dim); err == nil && dim != "" && r.Row2 > 0 {
			si.Dimension, si.Rows, si.Cols = dim, r.Row2-r.Row1+1, r.Col2-r.Col1+1
		} else {
			maxR, maxC := 0, 0
			if err := wb.cells(ctx, i, func(row, col int, _ string, _ any) (bool, error) {
				maxR, maxC = max(maxR, row), max(maxC, col)
				return false, nil
			}); err != nil {
				return Info{}, err
			}
			si.Rows, si.Cols = maxR, maxC
			if maxR > 0 {
				si.Dimension = "A1:" + colName(maxC) + strconv.Itoa(maxR)
			}
		}
		info.Sheets = append(info.Sheets, si)
	}
	return info, nil
}

// sheetDimension reads <dimension ref> from the top of a sheet, stopping
// at the sheet data.
func sheetDimension(p *pkg, part string) (string, error) {
	rc, err := p.open(part)
	if err != nil {
		return "", err
	}
	defer rc.Close()
	d := decoder(rc)
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return "", nil
		}
		if err != nil {
			return "", p.xmlErr(part, err)
		}
		if se, ok := tok.(xml.StartElement); ok {
			switch se.Name.Local {
			case "dimension":
				return attr(se, "ref"), nil
			case "sheetData":
				return "", nil
			}
		}
	}
}
