package console

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/memreview/memreview/probe"
	"github.com/memreview/memreview/ui/common"
	"github.com/memreview/memreview/ui/uitest"
)

// TestSwitcherAndPlaceholderFollowTheKind: the switcher names each
// environment's kind, and the empty input shows the chosen kind's probe
// grammar, whole, wrapped at spaces within the width.
func TestSwitcherAndPlaceholderFollowTheKind(t *testing.T) {
	t.Parallel()
	m := New(common.NewCommon(), common.Deps{}).(*Model)
	m.SetSize(80, 24)
	m.Update(loaded{envs: []probe.Env{
		{Name: "wh", Kind: probe.KindPostgres}, {Name: "shop", Kind: probe.KindSQL},
		{Name: "docs", Kind: probe.KindFiles}, {Name: "tk", Kind: probe.KindMCP},
	}})
	v := ansi.Strip(m.View())
	if !strings.Contains(v, "wh postgres") || !strings.Contains(v, "[shop sql]") || !strings.Contains(v, "docs files") || !strings.Contains(v, "tk mcp") {
		t.Fatalf("the switcher does not name each kind:\n%s", v)
	}
	for _, want := range []probe.Kind{probe.KindSQL, probe.KindFiles, probe.KindMCP, probe.KindPostgres} {
		if e, _ := m.current(); e.Kind != want {
			t.Fatalf("chose %s, want %s", e.Kind, want)
		}
		v := ansi.Strip(m.View())
		shown := strings.Join(strings.Fields(strings.ReplaceAll(v, "›", "")), " ")
		if !strings.Contains(shown, string(want)+": "+probe.Usage(want)) {
			t.Errorf("%s: the placeholder is not the kind's grammar:\n%s", want, v)
		}
		if strings.Contains(v, "\n  --\n") || strings.Contains(v, "|\n  --\n") {
			t.Errorf("%s: the grammar is broken at a dash:\n%s", want, v)
		}
		uitest.CheckFits(t, string(want), m.View(), 80, 24)
		m.Update(uitest.Key("tab"))
	}
}

// TestAllowListNoteShown: a result of an MCP tool called through the
// allow-list says so under the output.
func TestAllowListNoteShown(t *testing.T) {
	t.Parallel()
	m := New(common.NewCommon(), common.Deps{}).(*Model)
	m.SetSize(80, 24)
	m.Update(loaded{envs: []probe.Env{{Name: "tk", Kind: probe.KindMCP}}})
	m.runSeq = 1
	m.Update(ran{seq: 1, res: probe.Result{Env: "tk", Kind: probe.KindMCP, Input: "count_words {}", Text: "3", Note: "read-only by your allow-list, not by the server"}})
	if v := ansi.Strip(m.View()); !strings.Contains(v, "(read-only by your allow-list, not by the server)") {
		t.Errorf("the allow-list note is not shown:\n%s", v)
	}
}

// TestPDFProbeSaysTheEngineIsPrepared: a probe that names a PDF, or a grep
// while the engine is being prepared, says it may wait for the PDF
// engine's one-time preparation while it runs; others do not.
func TestPDFProbeSaysTheEngineIsPrepared(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		kind  probe.Kind
		input string
		state probe.PDFEngine
		want  bool
	}{
		{probe.KindFiles, "read q3.PDF --page 2", probe.PDFIdle, true},
		{probe.KindFiles, "read q3.pdf", probe.PDFPreparing, true},
		{probe.KindFiles, "grep -i revenue .", probe.PDFPreparing, true},
		{probe.KindFiles, "grep -i revenue .", probe.PDFIdle, false}, // no PDF in any files environment
		{probe.KindFiles, "read q3.pdf", probe.PDFReady, false},
		{probe.KindSQL, "SELECT 'x.pdf'", probe.PDFPreparing, false},
	} {
		if got := mayWaitForPDF(c.kind, c.input, c.state); got != c.want {
			t.Errorf("%s %q in state %d: %v, want %v", c.kind, c.input, c.state, got, c.want)
		}
	}
	m := New(common.NewCommon(), common.Deps{}).(*Model)
	m.SetSize(80, 24)
	m.running, m.pdfWait = true, true
	if v := ansi.Strip(m.View()); !strings.Contains(v, "running… preparing the PDF engine (once per machine, about 15 s)") {
		t.Errorf("a probe waiting for the PDF engine does not say so:\n%s", v)
	}
}
