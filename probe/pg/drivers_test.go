package pg_test

// BenchmarkProbeKinds and BenchmarkKeptVsStateless probe an mcp
// environment through probe.Runner beside postgres; the mcp driver
// registers itself with probe when it is linked in, as the service links
// it in for the program.
import _ "github.com/memreview/memreview/probe/mcpenv"
