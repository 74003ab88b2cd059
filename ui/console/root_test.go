package console

import (
	"bytes"
	"io"
	"log"
	"os"
	"path/filepath"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest"
	"github.com/muesli/termenv"

	"github.com/memreview/memreview/index"
	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/sample"
	"github.com/memreview/memreview/ui/common"
)

func TestMain(m *testing.M) {
	lipgloss.SetColorProfile(termenv.Ascii)
	lipgloss.SetHasDarkBackground(true)
	os.Exit(m.Run())
}

// openSample generates the sample world and opens it as the program does.
func openSample(tb testing.TB) common.Deps {
	tb.Helper()
	dir := tb.TempDir()
	if err := sample.Generate(dir, sample.Seed); err != nil {
		tb.Fatalf("generate the sample world: %v", err)
	}
	s, err := review.Open(dir, review.Options{})
	if err != nil {
		tb.Fatalf("open the bank: %v", err)
	}
	ix, err := index.Open(filepath.Join(dir, review.IndexDir), s)
	if err != nil {
		s.Close()
		tb.Fatalf("open the index: %v", err)
	}
	tb.Cleanup(func() { ix.Close(); s.Close() })
	return common.Deps{Store: s, Index: ix, BankName: "sample", IsSample: true,
		Operator: "tester", Log: log.New(io.Discard, "", 0)}
}

// root is a tiny stand-in for ui.Model: it hosts screens, sizes them,
// shows the footer status, and routes the navigation messages: ShowRecord
// to screen 0, ShowTrajectory to screen 1 (when there is one).
type root struct {
	screens []common.Screen
	active  int
	status  string
}

func (r *root) Init() tea.Cmd {
	var cmds []tea.Cmd
	for _, s := range r.screens {
		cmds = append(cmds, s.Init())
	}
	return tea.Batch(cmds...)
}

func (r *root) forward(i int, msg tea.Msg) tea.Cmd {
	s, cmd := r.screens[i].Update(msg)
	r.screens[i] = s
	return cmd
}

func (r *root) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		for _, s := range r.screens {
			s.SetSize(msg.Width, msg.Height-1)
		}
		return r, nil
	case common.Status:
		r.status = msg.Text
		return r, nil
	case common.ShowRecord:
		r.active = 0
		return r, r.forward(0, msg)
	case common.ShowTrajectory:
		if len(r.screens) > 1 {
			r.active = 1
			return r, r.forward(1, msg)
		}
		r.status = "open " + msg.ID
		return r, nil
	case tea.KeyMsg, tea.MouseMsg:
		return r, r.forward(r.active, msg)
	}
	var cmds []tea.Cmd
	for i := range r.screens {
		cmds = append(cmds, r.forward(i, msg))
	}
	return r, tea.Batch(cmds...)
}

func (r *root) View() string { return r.screens[r.active].View() + "\n" + r.status }

// waitFor waits until the program has printed every one of texts (since
// the last wait).
func waitFor(t *testing.T, tm *teatest.TestModel, texts ...string) {
	t.Helper()
	var seen []byte
	buf := make([]byte, 64<<10)
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		n, _ := tm.Output().Read(buf)
		seen = append(seen, buf[:n]...)
		all := true
		for _, s := range texts {
			all = all && bytes.Contains(seen, []byte(s))
		}
		if all {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	tail := ansi.Strip(string(seen))
	if len(tail) > 4000 {
		tail = tail[len(tail)-4000:]
	}
	t.Fatalf("the program did not print %q within 15s; it printed:\n%s", texts, tail)
}

func quit(t *testing.T, tm *teatest.TestModel) {
	t.Helper()
	if err := tm.Quit(); err != nil {
		t.Fatal(err)
	}
	tm.WaitFinished(t, teatest.WithFinalTimeout(5*time.Second))
}
