package queue

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/memreview/memreview/probe"
	"github.com/memreview/memreview/ui/common"
	"github.com/memreview/memreview/ui/widget"
)

// enter on the focused probes pane: every probe of the proposal in full
// over the panes — its input, its error, and every row with each cell on
// a "column: value" line, wrapped, never cut — and the live result under
// it. The movement keys scroll it; esc (or enter) closes it.

type probeOutput struct {
	body  widget.Detail
	width int    // the width body's content was rendered at; 0: render again
	pid   string // the proposal it was rendered for
}

func newProbeOutput(m *Model) *probeOutput {
	o := &probeOutput{body: widget.NewDetail()}
	o.SetWidth(m.overlayInner())
	return o
}

func (o *probeOutput) SetWidth(inner int) {
	o.body.SetSize(inner, o.body.Height())
}

func (o *probeOutput) Update(m *Model, msg tea.KeyMsg) (overlay, tea.Cmd) {
	if key.Matches(msg, m.Keys.Probes.Close) {
		return nil, nil
	}
	o.body.Update(m.Keys, msg)
	return o, nil
}

func (o *probeOutput) View(m *Model, w, h int) string {
	st := m.Styles
	inner := common.OverlayInner(st, w)
	title, pid := "Probes", ""
	if m.ready() {
		pid = m.cur.P.ID
		title = "Probes of " + pid + " in full"
	}
	o.body.SetSize(inner, max(h-st.Overlay.GetVerticalFrameSize()-2, 1)) // less the title and a blank line
	if o.width != inner || o.pid != pid {
		if o.pid != pid {
			o.body.GotoTop()
		}
		o.width, o.pid = inner, pid
		o.body.SetContent(m.probesFull(inner))
	}
	head := st.Title.Render(common.FitLine(title+o.body.ScrollPercent(), inner))
	return common.OverlayBox(m.Styles, head+"\n\n"+o.body.View(), w, h)
}

func (o *probeOutput) Help(k common.KeyMap) []key.Binding {
	return []key.Binding{k.Probes.Close, k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom}
}

func (o *probeOutput) Capturing() bool { return false }

// probesFull is the full text of every probe of the shown proposal at
// width w.
func (m *Model) probesFull(w int) string {
	st := m.Styles
	probes := m.probeList()
	if len(probes) == 0 {
		return st.Subtle.Render(common.Wrap("No probe runs or checks back this proposal.", w))
	}
	var b strings.Builder
	for i, it := range probes {
		r := it.Expect
		if i > 0 {
			b.WriteString("\n")
		}
		head := fmt.Sprintf("%d %s %s · %s · %s", i+1, r.Kind, r.Env, duration(r.DurationMS), it.Run)
		if it.Check > 0 {
			head = fmt.Sprintf("%d check %d of the record · %s %s · expects", i+1, it.Check, r.Kind, r.Env)
		}
		b.WriteString(st.Title.Render(common.Wrap(head, w)) + "\n")
		b.WriteString(st.Subtle.Render(common.Indent("$ ", common.Printable(r.Input), w, 2)) + "\n")
		b.WriteString(resultFull(st, r, w))
		var live *liveProbe
		switch {
		case i < len(m.probes) && m.probes[i].done:
			live = &m.probes[i]
		case i >= len(m.probes) && it.Last != nil:
			lp := savedLive(it)
			live = &lp
		}
		if live != nil {
			b.WriteString("\n" + common.Wrap(m.liveLabel(*live), w) + "\n")
			b.WriteString(resultFull(st, live.now, w))
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// resultFull is a probe result in full: the error, every row as one
// "column: value" line per cell (a value's own line breaks kept), or every
// line of its text, all wrapped at w.
func resultFull(st *common.Styles, r probe.Result, w int) string {
	var b strings.Builder
	if r.Error != "" {
		b.WriteString(st.Bad.Render(common.Indent("error: ", common.Printable(r.Error), w, 7)) + "\n")
	}
	switch {
	case len(r.Columns) > 0:
		fmt.Fprintf(&b, "%s\n", st.Subtle.Render(common.Wrap(fmt.Sprintf("%s · columns: %s", count(len(r.Rows), "row"), strings.Join(cellTexts(r.Columns), ", ")), w)))
		b.WriteString(common.FullRows(st, r.Columns, r.Rows, w))
	case r.Text != "":
		b.WriteString(common.Wrap(strings.TrimRight(common.Printable(r.Text), "\n"), w) + "\n")
	}
	if r.Truncated {
		b.WriteString(st.Subtle.Render("(output truncated by the probe's limits)") + "\n")
	}
	return b.String()
}

func cellTexts(cols []string) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = common.CellText(c)
	}
	return out
}

// count is "1 row", "3 rows".
func count(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
