// Package pdfwasm is the PDF engine of probe/docs: PDFium compiled to
// WebAssembly (go-pdfium), run by wazero — no cgo, and a hostile PDF runs
// in a sandbox with a memory cap whose run can be stopped.
//
// It is the only package that links wazero and the PDFium module (several
// MB), so it is installed, not imported by docs: a program that reads
// PDFs calls docs.UsePDFEngine(pdfwasm.Pool) before its first probe, as
// the service (review/app) does. A test binary that reads no PDF (the
// domain's, the index's) links neither.
//
// It imports nothing of memreview.
package pdfwasm

import (
	"fmt"
	"io"
	"os"

	"github.com/klippa-app/go-pdfium"
	"github.com/klippa-app/go-pdfium/webassembly"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
)

// Pool starts the engine: a pool of one instance whose memory is capped
// at memoryMiB, with the compiled module kept in cacheDir (when it is not
// empty and can be made), so that only the first start on a machine
// compiles it.
func Pool(cacheDir string, memoryMiB int) (pdfium.Pool, error) {
	rc := wazero.NewRuntimeConfig().
		WithCoreFeatures(api.CoreFeaturesV2 | experimental.CoreFeaturesExceptionHandling).
		WithCloseOnContextDone(true).
		WithMemoryLimitPages(uint32(memoryMiB) * 16) // 64 KiB pages
	if cacheDir != "" {
		if err := os.MkdirAll(cacheDir, 0o755); err == nil {
			if cache, err := wazero.NewCompilationCacheWithDir(cacheDir); err == nil {
				rc = rc.WithCompilationCache(cache)
			}
		}
	}
	p, err := webassembly.Init(webassembly.Config{MinIdle: 0, MaxIdle: 1, MaxTotal: 1, RuntimeConfig: rc,
		Stdout: io.Discard, Stderr: io.Discard})
	if err != nil {
		return nil, fmt.Errorf("cannot start the PDF engine: %v", err)
	}
	return p, nil
}
