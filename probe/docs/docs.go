// Package docs reads the text of office and PDF documents for the files
// probe: PDF (through PDFium compiled to WebAssembly, run sandboxed by
// wazero, no cgo: the engine is probe/docs/pdfwasm, which the program
// installs with UsePDFEngine), and DOCX, PPTX and XLSX (Office Open XML, streamed with
// archive/zip and encoding/xml). Every line comes with where it is: a
// page, a slide or its notes, a paragraph, a sheet's cell.
//
// Everything is bounded: the file's size, a zip's entry count, the bytes
// its parts expand to (a zip bomb is refused, not inflated), a PDF's page
// count and the memory its engine may use. Damage, encryption, a PDF with
// no text layer and each cap are errors of one line (ErrDamaged,
// ErrEncrypted, ErrNoText, ErrTooLarge).
//
// It reads from an io.ReaderAt the caller opened (the files probe opens
// it through its os.Root), never a path, and imports nothing of memreview.
// Linking it does not link wazero or the PDFium module.
package docs

import (
	"errors"
	"fmt"
	"io"
	"path"
	"strings"
)

// Format is a document format.
type Format string

// The formats this package reads.
const (
	PDF  Format = "pdf"
	DOCX Format = "docx"
	XLSX Format = "xlsx"
	PPTX Format = "pptx"
)

// FormatOf says which format a file name is, by its extension; ok is false
// for anything else.
func FormatOf(name string) (Format, bool) {
	switch strings.ToLower(path.Ext(name)) {
	case ".pdf":
		return PDF, true
	case ".docx", ".docm":
		return DOCX, true
	case ".xlsx", ".xlsm":
		return XLSX, true
	case ".pptx", ".pptm":
		return PPTX, true
	}
	return "", false
}

// Limits bound what reading one document may cost. A zero field means its
// default (DefaultLimits).
type Limits struct {
	MaxFileSize int64 // bytes of the file itself
	MaxEntries  int   // entries in an OOXML zip
	MaxPart     int64 // bytes one zip part may expand to
	MaxUnzipped int64 // bytes all parts read may expand to, together
	MaxPages    int   // pages of a PDF
	MaxMemory   int   // MiB the PDF engine may use
}

// DefaultLimits: a 128 MiB file, 5,000 zip entries, 256 MiB a part and
// 512 MiB in all, 10,000 PDF pages, 512 MiB for the PDF engine.
func DefaultLimits() Limits {
	return Limits{MaxFileSize: 128 << 20, MaxEntries: 5000, MaxPart: 256 << 20, MaxUnzipped: 512 << 20, MaxPages: 10000, MaxMemory: 512}
}

func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	if l.MaxFileSize <= 0 {
		l.MaxFileSize = d.MaxFileSize
	}
	if l.MaxEntries <= 0 {
		l.MaxEntries = d.MaxEntries
	}
	if l.MaxPart <= 0 {
		l.MaxPart = d.MaxPart
	}
	if l.MaxUnzipped <= 0 {
		l.MaxUnzipped = d.MaxUnzipped
	}
	if l.MaxPages <= 0 {
		l.MaxPages = d.MaxPages
	}
	if l.MaxMemory <= 0 {
		l.MaxMemory = d.MaxMemory
	}
	return l
}

// The kinds of error a document can give; each error wraps one of them
// and says, in one line, what and where.
var (
	ErrDamaged   = errors.New("damaged")
	ErrEncrypted = errors.New("encrypted")
	ErrNoText    = errors.New("no text layer")
	ErrTooLarge  = errors.New("over a cap")
	ErrNotFound  = errors.New("not found") // a page, slide or sheet that is not there
)

// Source is an opened document: its bytes and its name (for messages).
type Source struct {
	R    io.ReaderAt
	Size int64
	Name string
}

func (s Source) errorf(kind error, format string, args ...any) error {
	return &docError{kind: kind, msg: s.Name + ": " + fmt.Sprintf(format, args...)}
}

type docError struct {
	kind error
	msg  string
}

func (e *docError) Error() string { return e.msg }
func (e *docError) Unwrap() error { return e.kind }

// Ref is where a line of text is.
type Ref struct {
	Kind  string // "page", "slide", "notes", "paragraph" or "cell"
	N     int    // the page, slide or paragraph number (1-based); for a cell, its row
	Line  int    // the line within a page, slide or notes (1-based)
	Sheet string // for a cell
	Cell  string // for a cell: B7
}

// String is the reference as grep shows it: p3:12 (page 3, line 12),
// slide 2:4, notes 2:1, ¶7, Q3!B7.
func (r Ref) String() string {
	switch r.Kind {
	case "page":
		return fmt.Sprintf("p%d:%d", r.N, r.Line)
	case "slide", "notes":
		return fmt.Sprintf("%s %d:%d", r.Kind, r.N, r.Line)
	case "paragraph":
		return fmt.Sprintf("¶%d", r.N)
	case "cell":
		return quoteSheet(r.Sheet) + "!" + r.Cell
	}
	return r.Kind
}

// quoteSheet writes a sheet name as a spreadsheet would in a reference.
func quoteSheet(s string) string {
	if strings.ContainsAny(s, " !'-") {
		return "'" + strings.ReplaceAll(s, "'", "''") + "'"
	}
	return s
}

// Selection narrows Lines to one page, slide (with its notes) or sheet;
// the zero Selection is the whole document.
type Selection struct {
	Page  int
	Slide int
	Sheet string
}

// Info is what stat tells of a document.
type Info struct {
	Format     Format
	Pages      int         // PDF pages; DOCX pages as Word last counted them (docProps/app.xml), 0 if unknown
	Slides     int         // PPTX
	Paragraphs int         // DOCX
	Words      int         // DOCX, PPTX: words of text
	Sheets     []SheetInfo // XLSX, in workbook order
	Encrypted  bool        // a PDF that is encrypted (and opened with no password)
}

// SheetInfo is one sheet's name and size.
type SheetInfo struct {
	Name      string
	Dimension string // as the file declares it (A1:D21), or as scanned
	Rows      int
	Cols      int
}
