// Command memreview is a terminal tool for the human in the loop of an LLM
// agent's long-term memory: it reviews curator proposals against the
// trajectory and live probes, searches the bank, runs probes and the
// curator, and serves the bank to agents. The commands live in ui/cli.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/memreview/memreview/ui/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
