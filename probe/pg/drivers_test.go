package pg_test

import (
	"github.com/memreview/memreview/probe/docs"
	"github.com/memreview/memreview/probe/docs/pdfwasm"
	_ "github.com/memreview/memreview/probe/mcpenv"
)

// BenchmarkProbeKinds and BenchmarkKeptVsStateless probe an mcp
// environment through probe.Runner beside postgres, and the first reads a
// PDF: the mcp driver registers itself with probe when it is linked in,
// and the PDF engine is installed, as the service does for the program.
func init() { docs.UsePDFEngine(pdfwasm.Pool) }
