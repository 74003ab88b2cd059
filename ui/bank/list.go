package bank

import (
	"fmt"
	"sort"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/app"
	"github.com/memreview/memreview/ui/common"
)

// list is the windowed result list: the hits of the current query paged in
// from the index as rows come on screen, never all of them at once.
type list struct {
	total   int
	pages   map[int][]app.Hit // page number → its hits
	pending map[int]bool      // pages requested, not yet back
	cursor  int               // the selected row
	top     int               // the first row on screen
	height  int               // rows on screen
	stale   bool              // the pages are of an older query; page 0 of the new one is on its way
}

// keepPages caps the pages held; pages far from the window are dropped.
const keepPages = 8

func newList() list {
	return list{pages: map[int][]app.Hit{}, pending: map[int]bool{}}
}

// hit returns row i when its page has loaded.
func (l *list) hit(i int) (app.Hit, bool) {
	if i < 0 || i >= l.total {
		return app.Hit{}, false
	}
	p, ok := l.pages[i/pageSize]
	if !ok || i%pageSize >= len(p) {
		return app.Hit{}, false
	}
	return p[i%pageSize], true
}

// move puts the cursor at row i (clamped) and scrolls it into view.
func (l *list) move(i int) {
	l.cursor = min(max(i, 0), max(l.total-1, 0))
	h := max(l.height, 1)
	if l.cursor < l.top {
		l.top = l.cursor
	}
	if l.cursor >= l.top+h {
		l.top = l.cursor - h + 1
	}
	l.top = min(max(l.top, 0), max(l.total-h, 0))
}

// window returns the pages the rows on screen need.
func (l *list) window() []int {
	if l.total == 0 {
		return nil
	}
	last := min(l.top+max(l.height, 1), l.total) - 1
	var ps []int
	for p := l.top / pageSize; p <= last/pageSize; p++ {
		ps = append(ps, p)
	}
	return ps
}

// trim drops pages far from the window so memory stays bounded however far
// the operator scrolls.
func (l *list) trim() {
	if len(l.pages) <= keepPages {
		return
	}
	mid := l.top / pageSize
	var ps []int
	for p := range l.pages {
		ps = append(ps, p)
	}
	sort.Slice(ps, func(i, j int) bool { return abs(ps[i]-mid) > abs(ps[j]-mid) })
	for _, p := range ps[:len(ps)-keepPages] {
		delete(l.pages, p)
	}
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// visibleIDs lists the record ids of the loaded rows on screen.
func (m *Model) visibleIDs() []string {
	var ids []string
	for i := m.list.top; i < min(m.list.top+m.list.height, m.list.total); i++ {
		if h, ok := m.list.hit(i); ok {
			ids = append(ids, h.ID)
		}
	}
	return ids
}

// columns are the widths of a row's fixed columns, each the widest value
// among the rows on screen, so the lemma takes all the width left.
// (category and env at most maxMetaWidth, cut with … beyond it).
type columns struct{ id, category, env int }

const maxMetaWidth = 12

// rowText renders row i at width w: cursor and merge marks, id, category,
// env and the lemma, with the query's matches highlighted.
func (m *Model) rowText(i int, cols columns, w int) string {
	st := m.Styles
	h, ok := m.list.hit(i)
	if !ok {
		return st.Subtle.Render(ansi.Truncate(fmt.Sprintf("  %*s loading…", cols.id, ""), w, "…"))
	}
	lead := "  "
	if _, ok := m.marks[h.ID]; ok {
		lead = "* "
	}
	if i == m.list.cursor {
		lead = "▸" + lead[1:]
	}
	id := pad(h.ID, cols.id)
	rec, have := m.recs[h.ID]
	meta, text := "", ""
	switch {
	case have && rec == nil:
		text = st.Subtle.Render("(no longer in the bank)")
	case have:
		meta = st.Subtle.Render(cell(string(rec.Category), cols.category) + " " + cell(orDash(rec.Scope.Env), cols.env) + " ")
		if rec.Status != review.Active {
			meta += st.Warn.Render(string(rec.Status) + " ")
		}
		if rec.Suspect {
			meta += st.Bad.Render("suspect ")
		}
		meta += m.worthMark(h.ID)
		text = common.PrintableLine(rec.Lemma)
	default:
		text = st.Subtle.Render("…")
	}
	if fr := fragment(h, "lemma"); fr != "" {
		text = m.highlight(fr)
	} else if f, fr := otherFragment(h); fr != "" {
		text += st.Subtle.Render(" · "+f+": ") + m.highlight(fr)
	}
	head := lead + id + " "
	if i == m.list.cursor {
		head = st.Selected.Render(head)
	}
	return ansi.Truncate(head+meta+text, w, "…")
}

// fragment returns the first highlighted fragment of field, on one line
// and Printable.
func fragment(h app.Hit, field string) string {
	if fs := h.Fragments[field]; len(fs) > 0 {
		return common.PrintableLine(strings.Join(strings.Fields(fs[0]), " "))
	}
	return ""
}

// otherFragment returns a matched field other than the lemma and its first
// fragment, preferring trigger then steps.
func otherFragment(h app.Hit) (string, string) {
	for _, f := range []string{"trigger", "steps"} {
		if fr := fragment(h, f); fr != "" {
			return f, fr
		}
	}
	return "", ""
}

// highlight styles the index's match markers with the Marked style.
func (m *Model) highlight(s string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, app.MarkStart)
		if i < 0 {
			break
		}
		j := strings.Index(s[i:], app.MarkEnd)
		if j < 0 {
			break
		}
		b.WriteString(s[:i])
		b.WriteString(m.Styles.Marked.Render(s[i+len(app.MarkStart) : i+j]))
		s = s[i+j+len(app.MarkEnd):]
	}
	b.WriteString(s)
	return b.String()
}

// pad fills s with spaces to width w (cells, not bytes).
func pad(s string, w int) string {
	return s + strings.Repeat(" ", max(w-ansi.StringWidth(s), 0))
}

// cell cuts s to width w and pads it to w.
func cell(s string, w int) string {
	return pad(ansi.Truncate(common.PrintableLine(s), w, "…"), w)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// listView renders exactly the rows on screen.
func (m *Model) listView(w int) string {
	st := m.Styles
	switch {
	case m.src == nil:
		return st.Error.Render(common.Wrap("The bank has no open index: reopen it (memreview reindex rebuilds the index).", w))
	case m.searchErr != "":
		return st.Error.Render(common.Wrap(m.searchErr, w))
	case !m.searched:
		return st.Subtle.Render("searching…")
	case m.list.total == 0:
		return st.Subtle.Render(common.Wrap("No record matches. Change the query (/) or the facets (f).", w))
	}
	end := min(m.list.top+m.list.height, m.list.total)
	var cols columns
	for i := m.list.top; i < end; i++ {
		h, ok := m.list.hit(i)
		if !ok {
			continue
		}
		cols.id = max(cols.id, ansi.StringWidth(h.ID))
		if r := m.recs[h.ID]; r != nil {
			cols.category = min(max(cols.category, ansi.StringWidth(string(r.Category))), maxMetaWidth)
			cols.env = min(max(cols.env, ansi.StringWidth(orDash(r.Scope.Env))), maxMetaWidth)
		}
	}
	rows := make([]string, 0, end-m.list.top)
	for i := m.list.top; i < end; i++ {
		rows = append(rows, m.rowText(i, cols, w))
	}
	return strings.Join(rows, "\n")
}
