// Package cli is memreview's command line, a front end like the TUI and
// the MCP server: it parses the arguments, calls the application service
// (review/app) and prints what it answers — tables for people, exact JSON
// with --json. With no command it opens the TUI (on the embedded sample
// world when no bank is configured); 'memreview help' lists the commands.
//
// Each command is declared once (command.go's command: name, summary,
// flags, run) in the file named for it. The package may import the
// service, the TUI, the MCP server and the domain's types; never a store,
// a format or the index.
package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"sync/atomic"

	"github.com/memreview/memreview/review/app"
	"github.com/memreview/memreview/review/printable"
)

// call is what every command gets: the global flags, the output streams
// and what its own flags said that every command shares (--json).
type call struct {
	bank     string // --bank, $MEMREVIEW_BANK or ./.memreview
	explicit bool   // bank named by flag or environment
	operator string
	ctx      context.Context
	stdin    io.Reader
	// stdout and stderr escape control characters (printable); rawOut is
	// stdout untouched, for exact output (JSON, export).
	stdout, stderr, rawOut io.Writer
	json                   bool         // --json was given
	svc                    *app.Service // the bank, once a command opened it (service)
	holdsIndex             bool         // the index command: no catch-up to hand off
	// muteProgress stops the index progress line (the TUI's screen is up).
	muteProgress atomic.Bool
	// tuiProgress, once set, receives the index progress instead (the TUI
	// shows it in its footer).
	tuiProgress atomic.Pointer[func(done, total int)]
}

// Run runs memreview with args (without the program name) and returns its
// exit status: 0 done, 1 failed, 2 a usage error. With no command it opens
// the TUI.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	// Human-readable output is escaped (printable): text from the bank, an
	// import or the curator never reaches the terminal as raw control
	// characters. Exact output (JSON, export) goes to stdout untouched.
	safeOut, safeErr := printable.NewWriter(stdout), printable.NewWriter(stderr)
	defer safeOut.Flush()
	defer safeErr.Flush()
	c := &call{ctx: ctx, stdin: stdin, stdout: safeOut, stderr: safeErr, rawOut: stdout}
	global := flag.NewFlagSet("memreview", flag.ContinueOnError)
	global.SetOutput(safeErr)
	global.StringVar(&c.bank, "bank", "", "bank directory or postgres://USER@HOST/DB (default $MEMREVIEW_BANK, else ./.memreview)")
	global.StringVar(&c.operator, "operator", "", "who is deciding (default $MEMREVIEW_OPERATOR, else the OS user)")
	global.Usage = func() { printUsage(safeErr) }
	if err := global.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	c.explicit = c.bank != ""
	if c.bank == "" {
		if v := os.Getenv("MEMREVIEW_BANK"); v != "" {
			c.bank, c.explicit = v, true
		} else {
			c.bank = ".memreview"
		}
	}
	if err := app.CheckBankName(c.bank); err != nil {
		return exit(safeErr, usageError{"--bank: " + err.Error()})
	}
	c.operator = app.OperatorName(c.operator)
	rest := global.Args()
	switch {
	case len(rest) == 0:
		return exit(safeErr, runTUI(c, false))
	case rest[0] == "help":
		return help(c, rest[1:])
	}
	return exit(safeErr, dispatch(c, rest))
}

// help prints the command list, or one command's usage and flags.
func help(c *call, args []string) int {
	if len(args) == 0 {
		printUsage(c.stdout)
		return 0
	}
	cmd, ok := lookup(args[0])
	if !ok {
		fmt.Fprintf(c.stderr, "memreview: no command %q\n", args[0])
		return 2
	}
	printCommandHelp(c.stdout, cmd.name, cmd)
	return 0
}

func exit(stderr io.Writer, err error) int {
	if err == nil {
		return 0
	}
	fmt.Fprintf(stderr, "memreview: %v\n", err)
	var ue usageError
	if errors.As(err, &ue) {
		return 2
	}
	return 1
}

// service opens the bank as a service on a command's first call, and
// returns that one after; dispatch closes it when the command's run
// returns, so no command closes it itself. A command opens the bank only
// once its arguments are checked: bad input opens nothing. The index
// opens on first use: a command that only writes never waits for it, and
// one that searches while another process (the TUI) holds the index asks
// that process. A command answers while the index catches up (the newest
// changes searched from the bank directly), and a catch-up it started and
// did not finish goes on in a process of its own (handOffIndex): no
// command waits for one.
func (c *call) service() (*app.Service, error) {
	if c.svc != nil {
		return c.svc, nil
	}
	svc, err := app.Open(c.ctx, c.bank, app.Options{Operator: c.operator, Warnf: c.warnf, IndexProgress: c.indexProgress(),
		HandOffIndex: c.handOffIndex, HandOffAfter: handOffAfter()})
	if err != nil {
		return nil, err
	}
	c.svc = svc
	return svc, nil
}

// closeService closes the service a command opened, if it did.
func (c *call) closeService() {
	if c.svc != nil {
		c.svc.Close()
		c.svc = nil
	}
}

// warnf prints a warning on stderr: something went wrong after a write
// committed (the command still succeeds).
func (c *call) warnf(format string, args ...any) {
	fmt.Fprintf(c.stderr, "memreview: warning: "+format+"\n", args...)
}

// openInput opens a named file, or stdin for "-".
func (c *call) openInput(name string) (io.ReadCloser, string, error) {
	if name == "-" {
		return io.NopCloser(c.stdin), "<stdin>", nil
	}
	f, err := os.Open(name)
	return f, name, err
}

// nonNil returns s, or an empty slice for nil, so that an empty list
// prints as [] rather than null.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// printJSON writes v as indented JSON whose unsafe runes are \u escapes
// (printable.JSON): exact JSON, and never a raw control character on a
// terminal, whether w is the escaping stdout or the raw one (--json).
func printJSON(w io.Writer, v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(printable.JSON(b.Bytes()))
	return err
}

func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > max {
		return string(r[:max-1]) + "…"
	}
	return s
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
