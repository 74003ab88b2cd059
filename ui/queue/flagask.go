package queue

import (
	"errors"
	"fmt"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/ui/common"
)

// A flagged proposal is applied (accept, narrow, merge, edit) only after
// the operator has said y to its findings. Every accept-like verb goes to
// the service as it always did; the service refuses one that would write
// flagged text with a *review.FlaggedError naming the findings (for an
// edited record it screens the record as edited, so an edit that removed
// the poison is not asked about), and the screen then asks
// "accept despite: instruction — '…' at lemma 0–31? y/n". y sends the
// same request with AckFindings (the decision's note then says what was
// acknowledged); n leaves the proposal pending and says so.

// flaggedQuestion is that y/n, holding the refused request.
type flaggedQuestion struct {
	common.Question
	req      review.DecideRequest
	findings []review.Finding
	quote    string // the first finding's span as the pane shows it
}

// flaggedRefused opens the question when msg is the service refusing
// to apply a flagged proposal without an acknowledgement; ok is false
// for any other outcome (decided handles those).
func (m *Model) flaggedRefused(msg decided) (tea.Cmd, bool) {
	var fe *review.FlaggedError
	if !errors.As(msg.err, &fe) || msg.req.AckFindings || len(fe.Findings) == 0 {
		return nil, false
	}
	m.busy = ""
	q := &flaggedQuestion{req: msg.req, findings: fe.Findings}
	switch {
	case msg.req.Record != nil: // the findings are in the record as edited
		q.quote = findingQuote(msg.req.Record.Texts(), fe.Findings[0])
	case m.ready() && m.cur.P.ID == msg.pid:
		q.quote = findingQuote(m.cur.P.Texts(), fe.Findings[0])
	}
	m.overlay = q
	return common.Notify(fmt.Sprintf("%s is flagged: y %ss it anyway, n leaves it pending", msg.pid, msg.req.Verb)), true
}

// findingQuote is f's span in texts as the pane shows it (a secret's
// marker, hidden text escaped), cut to 60 runes; "" when f's field is
// not among them.
func findingQuote(texts []review.Text, f review.Finding) string {
	text, ok := fieldText(texts, f.Field)
	if !ok {
		return ""
	}
	rs := regions(text, []review.Finding{f})
	if len(rs) == 0 {
		return ""
	}
	return cutMiddle(spanShown(text[rs[0].start:rs[0].end], rs[0]), 60)
}

// question is the y/n's text.
func (q *flaggedQuestion) question() string {
	f := q.findings[0]
	s := fmt.Sprintf("%s %s despite: %s", verbTitle(q.req.Verb), q.req.Proposal, f.Kind)
	if q.quote != "" {
		s += " — '" + q.quote + "'"
	}
	s += " at " + spanText(f)
	if n := len(q.findings) - 1; n > 0 {
		s += fmt.Sprintf(" (and %d more finding%s)", n, plural(n))
	}
	return s + "? y/n"
}

func verbTitle(v review.Verb) string {
	switch v {
	case review.Narrow:
		return "Narrow and accept"
	case review.Merge:
		return "Merge"
	case review.Edit:
		return "Edit and accept"
	}
	return "Accept"
}

func (q *flaggedQuestion) Update(m *Model, msg tea.KeyMsg) (overlay, tea.Cmd) {
	k := m.Keys
	switch {
	case key.Matches(msg, k.Yes):
		if m.busy != "" {
			return q, nil
		}
		req := q.req
		req.AckFindings = true
		return nil, m.decide(req)
	case key.Matches(msg, k.No), key.Matches(msg, k.Cancel):
		if m.note == "" {
			m.note = q.req.Note // the N note rides on the next verb instead
		}
		return nil, common.Notify(fmt.Sprintf("not %s: %s stays pending (flagged: %s)", verbDone[q.req.Verb], q.req.Proposal, q.findings[0].Kind))
	}
	return q, nil
}

func (q *flaggedQuestion) View(m *Model, w, h int) string {
	st := m.Styles
	inner := common.OverlayInner(st, w)
	lines := st.Title.Render(m.wrapped(q.question(), inner)) + "\n\n"
	for i, f := range q.findings {
		if i == 5 {
			lines += st.Subtle.Render(fmt.Sprintf("… %d more on the candidate pane", len(q.findings)-i)) + "\n"
			break
		}
		lines += common.Indent(st.Warn.Render(fmt.Sprintf("%s · %s · %s", f.Kind, spanText(f), findingBy(f)))+" ", common.PrintableLine(f.Reason), inner, 2) + "\n"
	}
	return common.OverlayBox(m.Styles, lines+"\n"+st.Subtle.Render(m.wrapped("y applies it and the decision's note records what you acknowledged; n leaves it pending.", inner)), w, h)
}

// acked is what the footer adds to a decision that acknowledged
// findings.
func acked(req review.DecideRequest) string {
	if !req.AckFindings {
		return ""
	}
	return " · despite the screen's findings (the decision's note names them)"
}
