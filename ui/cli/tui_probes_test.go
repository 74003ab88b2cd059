package cli

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memreview/memreview/probe/docs/docstest"
)

// TestConsoleProbesInTmux runs the built binary in a real terminal (tmux,
// a server of its own) at 80x24 and 200x60, and in the probe console runs
// a PostgreSQL query, an MCP tool call and a grep over a PDF, reading each
// result back from the screen.
func TestConsoleProbesInTmux(t *testing.T) {
	t.Parallel()
	needTmux(t)
	_, readOnly := pgWarehouse(t)
	cmd, mcpVars := mcpServer(t)
	bank := newCLIBank(t)
	docs := filepath.Join(t.TempDir(), "pdfs")
	if err := os.MkdirAll(docs, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(docs, "report.pdf"), docstest.PDF([]string{"Quarterly report\nRevenue grew 4% in Q3", "Headcount stayed flat"}), 0o644); err != nil {
		t.Fatal(err)
	}
	must(t, mrEnv(t, mcpVars, "--bank", bank, "env", "add", "wh", "--postgres", readOnly))
	must(t, mrEnv(t, mcpVars, "--bank", bank, "env", "add", "tk", "--mcp-command", cmd, "--pass-env", "MCPTEST_SERVER,MCPTEST_LOG"))
	must(t, mrEnv(t, mcpVars, "--bank", bank, "env", "add", "pdfs", "--files", docs))

	for _, size := range [][2]int{{80, 24}, {200, 60}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			t.Parallel()
			tm := startTUI(t, bank, size[0], size[1], mcpVars)
			tm.waitFor("Review", 10*time.Second)
			tm.keys("3")
			tm.waitFor("[wh postgres]", 10*time.Second)
			tm.waitFor("postgres: one reading statement", 5*time.Second) // the placeholder is the kind's grammar

			tm.probe("SELECT name FROM items ORDER BY id")
			tm.waitFor("✔ 3 rows · wh", 20*time.Second, "fig")

			tm.keys("C-u", "Tab")
			tm.waitFor("[tk mcp]", 5*time.Second, "mcp: TOOL {json arguments}")
			tm.probe(`lookup {"id": 7}`)
			s := tm.waitFor("✔ 1 line · tk", 30*time.Second, "item 7: apple")
			if !strings.Contains(s, `apple\x1b[31m`) {
				t.Errorf("the server's escape sequence is not shown escaped:\n%s", s)
			}

			tm.keys("C-u", "Tab")
			tm.waitFor("[pdfs files]", 5*time.Second)
			// The PDF engine's one-time compile (about 15 s on a machine
			// that has never run it) may come first.
			tm.probe("grep -i revenue .")
			tm.waitFor("report.pdf:p1:2: Revenue grew 4% in Q3", 60*time.Second)
			tm.quit()
		})
	}
}

// tuiTerm is the TUI running in a tmux server of its own.
type tuiTerm struct {
	t            *testing.T
	server       string
	w            int
	errlog, bank string
}

func startTUI(t *testing.T, bank string, w, h int, env []string) *tuiTerm {
	tm := &tuiTerm{t: t, server: fmt.Sprintf("memreview-probes-%d-%d", os.Getpid(), time.Now().UnixNano()), w: w,
		errlog: filepath.Join(t.TempDir(), "tui.stderr"), bank: bank}
	args := []string{"new-session", "-d", "-s", "tui", "-x", fmt.Sprint(w), "-y", fmt.Sprint(h),
		"sh", "-c", `"$@" 2>>"$0"; echo "exit status $?" >>"$0"`, tm.errlog, "env", "TERM=xterm-256color", "NO_COLOR=1", "MEMREVIEW_OPERATOR=e2e"}
	args = append(append(args, env...), bin, "--bank", bank)
	tm.tmux(args...)
	t.Cleanup(func() { exec.Command("tmux", "-L", tm.server, "kill-server").Run() })
	return tm
}

func (tm *tuiTerm) tmux(args ...string) string {
	tm.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-L", tm.server}, args...)...).CombinedOutput()
	if err != nil {
		b, _ := os.ReadFile(tm.errlog)
		tm.t.Fatalf("tmux %v: %v\n%s\nthe TUI's stderr: %s", args, err, out, b)
	}
	return string(out)
}

func (tm *tuiTerm) screen() string { return tm.tmux("capture-pane", "-p", "-t", "tui") }

func (tm *tuiTerm) keys(keys ...string) {
	tm.tmux(append([]string{"send-keys", "-t", "tui"}, keys...)...)
}

// probe types input literally and runs it.
func (tm *tuiTerm) probe(input string) {
	tm.tmux("send-keys", "-t", "tui", "-l", input)
	tm.keys("Enter")
}

// waitFor waits until the screen shows every one of what and also, and
// checks that no line is wider than the terminal.
func (tm *tuiTerm) waitFor(what string, within time.Duration, also ...string) string {
	tm.t.Helper()
	deadline := time.Now().Add(within)
	for {
		s := tm.screen()
		found := strings.Contains(s, what)
		for _, a := range also {
			found = found && strings.Contains(s, a)
		}
		if found {
			for _, line := range strings.Split(s, "\n") {
				if n := len([]rune(line)); n > tm.w {
					tm.t.Errorf("a line wider than the terminal (%d > %d): %q", n, tm.w, line)
				}
			}
			tm.t.Logf("the screen showing %q:\n%s", what, s)
			return s
		}
		if time.Now().After(deadline) {
			tm.t.Fatalf("the screen never showed %q %q within %s:\n%s", what, also, within, s)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// quit presses q and waits for the TUI to end with status 0 and nothing on
// stderr.
func (tm *tuiTerm) quit() {
	tm.t.Helper()
	tm.keys("C-u") // an empty input lets q through
	tm.keys("q")
	deadline := time.Now().Add(10 * time.Second)
	for exec.Command("tmux", "-L", tm.server, "has-session", "-t", "tui").Run() == nil {
		if time.Now().After(deadline) {
			tm.t.Fatalf("the TUI did not end within 10 s of q:\n%s", tm.screen())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if b, _ := os.ReadFile(tm.errlog); strings.TrimSpace(string(b)) != "exit status 0" {
		tm.t.Fatalf("the TUI's stderr and exit status after q: %q, want only \"exit status 0\"", b)
	}
}
