package probe

import (
	"os"
	"testing"

	"github.com/memreview/memreview/probe/docs"
	"github.com/memreview/memreview/probe/docs/pdfwasm"
	"github.com/memreview/memreview/probe/mcpenv/mcptest"
	"github.com/memreview/memreview/sample/testenv"
)

func TestMain(m *testing.M) {
	testenv.LessGC()
	docs.UsePDFEngine(pdfwasm.Pool) // the files tests read PDFs
	mcptest.MaybeServe()            // the test binary doubles as the MCP test server
	maybeGrepOnce()                 // and as BenchmarkGrepOffice's cold process
	os.Exit(m.Run())
}
