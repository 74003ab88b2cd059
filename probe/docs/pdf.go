package docs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/klippa-app/go-pdfium"
	pdfiumerrors "github.com/klippa-app/go-pdfium/errors"
	"github.com/klippa-app/go-pdfium/requests"
)

// The PDF engine is PDFium compiled to WebAssembly (go-pdfium), run by
// wazero: no cgo, and a hostile PDF runs in a sandbox with a memory cap
// whose run can be stopped at the probe's time limit. The program
// installs it (UsePDFEngine with probe/docs/pdfwasm.Pool), so that a
// program or test binary that reads no PDF does not link it. Compiling the
// module takes about 15 s on a 2-core machine, once per machine: the
// result is kept in the user's cache folder, after which the engine starts
// in about 0.2 s. One engine serves the process, one document at a time.
type pdfEngine struct {
	once    sync.Once
	started atomic.Bool   // once has run
	ready   chan struct{} // closed when pool (or err) is set
	pool    pdfium.Pool
	err     error

	mu   sync.Mutex // one document at a time; guards inst
	inst pdfium.Pdfium
}

var engine = &pdfEngine{ready: make(chan struct{})}

// engineMemoryMiB is the memory the engine's WebAssembly instance may use.
const engineMemoryMiB = 512

// StartPDF starts preparing the PDF engine in the background, if it is
// not prepared yet; a program that will read PDFs can call it early.
func StartPDF() {
	engine.once.Do(func() {
		engine.started.Store(true)
		go func() {
			engine.pool, engine.err = newPool()
			close(engine.ready)
		}()
	})
}

// PDFStarted reports whether the engine has been asked for (StartPDF, or
// a PDF read); PDFReady whether it is prepared (or failed to be), so that a
// PDF read no longer waits for it.
func PDFStarted() bool { return engine.started.Load() }

// PDFReady: see PDFStarted.
func PDFReady() bool {
	select {
	case <-engine.ready:
		return true
	default:
		return false
	}
}

// PreparingError is a PDF read that ended while the engine was still
// being prepared: its one-time compile outlasted the probe's time limit.
type PreparingError struct{ Dir string }

func (e *PreparingError) Error() string {
	return fmt.Sprintf("the PDF engine is still being prepared (compiled once per machine into %s, about 15 s; the probe's time limit ran out first); run the probe again shortly", e.Dir)
}

// PreparePDF starts the engine and waits until it is ready or ctx ends.
func PreparePDF(ctx context.Context) error {
	StartPDF()
	select {
	case <-engine.ready:
		return engine.err
	case <-ctx.Done():
		return &PreparingError{Dir: cacheDir()}
	}
}

func cacheDir() string {
	d, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(d, "memreview", "pdfium-wasm")
}

// PoolFunc starts a PDF engine's pool, its instance's memory capped at
// memoryMiB and its compiled module kept in cacheDir: pdfwasm.Pool.
type PoolFunc func(cacheDir string, memoryMiB int) (pdfium.Pool, error)

var (
	poolMu   sync.Mutex
	poolFunc PoolFunc
)

// UsePDFEngine installs the PDF engine; a program that reads PDFs calls
// it once, before its first probe: docs.UsePDFEngine(pdfwasm.Pool).
// Without it every PDF read fails with a sentence saying so.
func UsePDFEngine(f PoolFunc) {
	poolMu.Lock()
	defer poolMu.Unlock()
	poolFunc = f
}

// errNoEngine is every PDF read's error in a program that installed no
// engine.
var errNoEngine = errors.New("PDF files cannot be read: this program was built without the PDF engine (nothing installed github.com/memreview/memreview/probe/docs/pdfwasm with docs.UsePDFEngine)")

func newPool() (pdfium.Pool, error) {
	poolMu.Lock()
	f := poolFunc
	poolMu.Unlock()
	if f == nil {
		return nil, errNoEngine
	}
	return f(cacheDir(), engineMemoryMiB)
}

// withPDF runs fn with the engine's instance, holding it for one
// document; when ctx ends first the instance is killed (stopping the
// WebAssembly run) and the next call gets a new one.
func withPDF(ctx context.Context, fn func(pdfium.Pdfium) error) error {
	if err := PreparePDF(ctx); err != nil {
		return err
	}
	engine.mu.Lock()
	defer engine.mu.Unlock()
	if engine.inst == nil {
		inst, err := engine.pool.GetInstance(30 * time.Second)
		if err != nil {
			return fmt.Errorf("cannot start the PDF engine: %v", err)
		}
		engine.inst = inst
	}
	inst := engine.inst
	// Kill the instance if ctx ends while fn runs (and only then: a
	// context canceled after fn returned must not kill a good instance).
	var mu sync.Mutex
	finished, killed := false, false
	stop := context.AfterFunc(ctx, func() {
		mu.Lock()
		defer mu.Unlock()
		if !finished {
			killed = true
			inst.Kill()
		}
	})
	err := fn(inst)
	stop()
	mu.Lock()
	finished = true
	mu.Unlock()
	if killed {
		engine.inst = nil
		if ctx.Err() != nil && err != nil {
			return ctx.Err()
		}
	}
	return err
}

// openPDF opens src in inst after the checks that need no engine: the
// size cap, the PDF header, and a %%EOF at the end (a truncated file has
// none).
func openPDF(inst pdfium.Pdfium, src Source, lim Limits) (*requests.FPDF_CloseDocument, int, error) {
	if src.Size > lim.MaxFileSize {
		return nil, 0, src.errorf(ErrTooLarge, "the file is %d MiB, over the %d MiB cap for documents", src.Size>>20, lim.MaxFileSize>>20)
	}
	head := make([]byte, min(src.Size, 1024))
	src.R.ReadAt(head, 0)
	if !bytes.Contains(head, []byte("%PDF-")) {
		return nil, 0, src.errorf(ErrDamaged, "not a PDF (no %%PDF- header)")
	}
	tail := make([]byte, min(src.Size, 2048))
	src.R.ReadAt(tail, src.Size-int64(len(tail)))
	if !bytes.Contains(tail, []byte("%%EOF")) {
		return nil, 0, src.errorf(ErrDamaged, "the PDF is truncated or damaged (it does not end with %%%%EOF)")
	}
	// Up to pdfInMemory the file is handed over whole (one copy into the
	// sandbox); a larger one is read on demand through the reader.
	req := &requests.OpenDocument{FileReader: io.NewSectionReader(src.R, 0, src.Size), FileReaderSize: src.Size}
	if src.Size <= pdfInMemory {
		data := make([]byte, src.Size)
		if _, err := src.R.ReadAt(data, 0); err != nil && err != io.EOF {
			return nil, 0, src.errorf(ErrDamaged, "cannot read the file (%v)", err)
		}
		req = &requests.OpenDocument{File: &data}
	}
	doc, err := inst.OpenDocument(req)
	switch {
	case errors.Is(err, pdfiumerrors.ErrPassword):
		return nil, 0, src.errorf(ErrEncrypted, "the PDF is encrypted with a password; memreview cannot read it")
	case err != nil:
		return nil, 0, src.errorf(ErrDamaged, "the PDF is damaged and cannot be read (%s)", oneLineErr(err))
	}
	closer := &requests.FPDF_CloseDocument{Document: doc.Document}
	pc, err := inst.FPDF_GetPageCount(&requests.FPDF_GetPageCount{Document: doc.Document})
	if err != nil {
		inst.FPDF_CloseDocument(closer)
		return nil, 0, src.errorf(ErrDamaged, "the PDF's pages cannot be read (%s)", oneLineErr(err))
	}
	if pc.PageCount > lim.MaxPages {
		inst.FPDF_CloseDocument(closer)
		return nil, 0, src.errorf(ErrTooLarge, "the PDF has %d pages, over the cap of %d", pc.PageCount, lim.MaxPages)
	}
	return closer, pc.PageCount, nil
}

// pdfInMemory is the largest PDF handed to the engine whole.
const pdfInMemory = 32 << 20

func oneLineErr(err error) string { return strings.Join(strings.Fields(err.Error()), " ") }

// pdfLines calls fn with each line of each page's text (or of sel.Page).
// A PDF whose pages hold no text at all is ErrNoText: a scanned document
// with no text layer.
func pdfLines(ctx context.Context, src Source, sel Selection, lim Limits, fn func(Ref, string) error) error {
	return withPDF(ctx, func(inst pdfium.Pdfium) error {
		closer, pages, err := openPDF(inst, src, lim)
		if err != nil {
			return err
		}
		defer inst.FPDF_CloseDocument(closer)
		if sel.Page > pages {
			return src.errorf(ErrNotFound, "there is no page %d; the PDF has %d", sel.Page, pages)
		}
		chars := 0
		for i := 0; i < pages; i++ {
			if sel.Page != 0 && i+1 != sel.Page {
				continue
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			t, err := inst.GetPageText(&requests.GetPageText{Page: requests.Page{ByIndex: &requests.PageByIndex{Document: closer.Document, Index: i}}})
			if err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				return src.errorf(ErrDamaged, "page %d cannot be read (%s)", i+1, oneLineErr(err))
			}
			text := strings.ReplaceAll(strings.ReplaceAll(t.Text, "\r\n", "\n"), "\r", "\n")
			chars += len(strings.TrimSpace(text))
			for j, line := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
				if err := fn(Ref{Kind: "page", N: i + 1, Line: j + 1}, line); err != nil {
					return err
				}
			}
		}
		if chars == 0 && pages > 0 {
			if sel.Page != 0 {
				return src.errorf(ErrNoText, "page %d has no text layer (a scanned image?)", sel.Page)
			}
			return src.errorf(ErrNoText, "the PDF has no text layer (a scanned document?): none of its %d pages holds text", pages)
		}
		return nil
	})
}

func pdfInfo(ctx context.Context, src Source, lim Limits) (Info, error) {
	info := Info{Format: PDF}
	err := withPDF(ctx, func(inst pdfium.Pdfium) error {
		closer, pages, err := openPDF(inst, src, lim)
		if err != nil {
			return err
		}
		defer inst.FPDF_CloseDocument(closer)
		info.Pages = pages
		if rev, err := inst.FPDF_GetSecurityHandlerRevision(&requests.FPDF_GetSecurityHandlerRevision{Document: closer.Document}); err == nil && rev.SecurityHandlerRevision != -1 {
			info.Encrypted = true
		}
		return nil
	})
	return info, err
}
