package docs

import (
	"strings"
	"testing"

	"github.com/memreview/memreview/probe/docs/pdfwasm"
)

// The tests read PDFs: the engine is installed as a program installs it.
func init() { UsePDFEngine(pdfwasm.Pool) }

// TestNoPDFEngine: a program that installed no engine gets a sentence
// naming the engine's package, not a nil call.
func TestNoPDFEngine(t *testing.T) {
	UsePDFEngine(nil)
	defer UsePDFEngine(pdfwasm.Pool)
	if p, err := newPool(); p != nil || err != errNoEngine || !strings.Contains(err.Error(), "probe/docs/pdfwasm") {
		t.Errorf("newPool without an engine: %v, %v", p, err)
	}
}
