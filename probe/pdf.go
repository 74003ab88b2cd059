package probe

import "github.com/memreview/memreview/probe/docs"

// PDFEngine is the state of the engine that reads PDFs in files
// environments (PDFium compiled to WebAssembly): compiling it takes about
// 15 s once per machine (the result is cached), starting it after that a
// fraction of a second.
type PDFEngine int

// The states of the PDF engine.
const (
	PDFIdle      PDFEngine = iota // not asked for yet
	PDFPreparing                  // being compiled or started: a PDF probe waits for it
	PDFReady                      // ready (or failed, which each PDF probe then says)
)

// StartPDF starts preparing the PDF engine in the background, if it is
// not prepared yet: a program that will read PDFs calls it early, so the
// first PDF probe does not wait for the one-time compile.
func StartPDF() { docs.StartPDF() }

// PDFState says where the PDF engine is.
func PDFState() PDFEngine {
	switch {
	case docs.PDFReady():
		return PDFReady
	case docs.PDFStarted():
		return PDFPreparing
	}
	return PDFIdle
}
