package queue

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/ui/common"
)

// The queue list (L on the review screen): every open proposal, one a row,
// with its op, category, env, age, source and whoever else holds a claim
// on it; filters by op, env, category and text (x clears them); marks
// (space, * for every row shown); bulk reject and defer of the marked
// rows after a y/n that gives the count; enter reviews the row's proposal
// in the panes. a accepts the marked rows in bulk, leaving out those the
// poisoning screen flagged; F shows only those (listflagged.go). The list
// is a component of its own (Update, View, SetSize); the screen owns the
// store and runs what the list asks for (queuebulk.go).

// listRow is one open proposal as the list shows it.
type listRow struct {
	p      review.Proposal
	holder string // another operator's live claim on it; "" for none
	env    string
	cat    string
	source string
	age    string   // how old it was at the load: 5m, 3h, 2d
	text   string   // what the text filter searches, lower-cased
	flag   listFlag // what the poisoning screen found (listflagged.go)
}

// listAction is what a key in the list asks the screen to do.
type listAction struct {
	kind listKind
	id   string      // listOpen: the proposal to review
	verb review.Verb // listBulk: reject or defer
	ids  []string    // listBulk: the marked proposals, in queue order
	// listBulk: the marked proposals skipped because others hold them,
	// as "id (who)"
	claimed []string
	flagged []string // listBulk: marked, left out of a bulk accept (flagged)
}

type listKind int

const (
	listNone  listKind = iota
	listClose          // back to the panes
	listOpen           // review id in the panes
	listBulk           // decide verb on ids (the operator said y)
)

// bulkAsk is the y/n question before a bulk decision.
type bulkAsk struct {
	verb    review.Verb
	ids     []string // the marked proposals the verb would decide
	claimed []string // marked, but another operator holds them: skipped
	flagged []string // marked, but flagged by the screen: left out of an accept
}

// queueList is the list component.
type queueList struct {
	common.Common
	rows   []listRow // the open queue, in queue order
	shown  []int     // the rows that pass the filters
	cursor int       // index into shown
	top    int       // the first shown row on screen

	marks        map[string]bool
	op, env, cat string // "" = any
	text         textinput.Model
	typing       bool // the text filter takes the keys
	ask          *bulkAsk
	opts         [3][]string // the values o, e and c cycle through ("" first)
	onlyFlagged  bool        // F: only the proposals the screen flagged
	flaggedRows  int         // rows the screen flagged

	// Set with the rows, so that a View does not walk them all:
	base    listColumns // the columns' widths to fit the rows, lemma aside
	claimed int         // rows another operator holds
}

func newQueueList(c common.Common) *queueList {
	l := &queueList{Common: c, marks: map[string]bool{}}
	l.text = textinput.New()
	l.text.Prompt = "/"
	l.text.Placeholder = "text in id, lemma, rationale, source"
	l.text.CharLimit = 200
	return l
}

// SetSize sets the width and height the list draws in.
func (l *queueList) SetSize(w, h int) {
	l.Width, l.Height = w, h
	l.fitText()
	l.scroll()
}

// Capturing reports whether the text filter takes typed text.
func (l *queueList) Capturing() bool { return l.typing }

// SetRows replaces the rows with a fresh load of the open queue, keeping
// the marks on proposals still open, the filters and the cursor's row;
// holders names who else holds a live claim on each proposal, envs the env
// of each proposal without a record (proposalEnvs), now is the store's
// clock (the ages).
func (l *queueList) SetRows(queue []review.Proposal, holders, envs map[string]string, now time.Time) {
	cur := l.cursorID()
	l.rows = l.rows[:0:0]
	open := map[string]bool{}
	var seen [3]map[string]bool
	for i := range seen {
		seen[i] = map[string]bool{}
		l.opts[i] = []string{""}
	}
	for _, p := range queue {
		r := listRow{p: p, holder: holders[p.ID], env: proposalEnv(&p, envs), source: proposalSource(&p), age: age(now, p.Created), flag: rowFlag(&p)}
		if p.Record != nil {
			r.cat = string(p.Record.Category)
		}
		lemma := ""
		if p.Record != nil {
			lemma = redactedView(&p).Record.Lemma
		}
		r.text = strings.ToLower(strings.Join([]string{p.ID, string(p.Op), r.env, r.cat, r.source, r.holder, lemma, p.Rationale}, " "))
		l.rows = append(l.rows, r)
		open[p.ID] = true
		for i, v := range [3]string{string(p.Op), r.env, r.cat} {
			if v != "" && !seen[i][v] {
				seen[i][v] = true
				l.opts[i] = append(l.opts[i], v)
			}
		}
	}
	for i := range l.opts {
		slices.Sort(l.opts[i][1:])
	}
	l.base = fitRows(l.rows)
	l.claimed, l.flaggedRows = 0, 0
	for _, r := range l.rows {
		if r.holder != "" {
			l.claimed++
		}
		if r.flag.kinds != "" {
			l.flaggedRows++
		}
	}
	for id := range l.marks {
		if !open[id] {
			delete(l.marks, id)
		}
	}
	l.filter(cur)
}

// proposalSource says what made p: its source (hygiene, an MCP client),
// else the curator run or the trajectory it came from.
func proposalSource(p *review.Proposal) string {
	switch {
	case p.Source != "":
		return p.Source
	case p.CuratorRun != "" && p.Trajectory != "":
		return "curator: " + common.ShortID(p.Trajectory, 18)
	case p.CuratorRun != "":
		return "curator " + p.CuratorRun
	case p.Trajectory != "":
		return "trajectory " + common.ShortID(p.Trajectory, 18)
	}
	return "import"
}

// filter rebuilds shown from the filters, keeping the cursor on keep
// when it is still shown.
func (l *queueList) filter(keep string) {
	l.shown = l.shown[:0:0]
	text := strings.ToLower(strings.TrimSpace(l.text.Value()))
	for i, r := range l.rows {
		if (l.op == "" || string(r.p.Op) == l.op) && (l.env == "" || r.env == l.env) &&
			(l.cat == "" || r.cat == l.cat) && (text == "" || strings.Contains(r.text, text)) &&
			(!l.onlyFlagged || r.flag.kinds != "") {
			l.shown = append(l.shown, i)
		}
	}
	for i, ri := range l.shown {
		if l.rows[ri].p.ID == keep {
			l.cursor = i
		}
	}
	l.cursor = min(max(l.cursor, 0), max(len(l.shown)-1, 0))
	l.fitText()
	l.scroll()
}

// Select puts the cursor on proposal id when the filters show it.
func (l *queueList) Select(id string) { l.filter(id) }

func (l *queueList) cursorID() string {
	if l.cursor < 0 || l.cursor >= len(l.shown) {
		return ""
	}
	return l.rows[l.shown[l.cursor]].p.ID
}

// marked returns the marked proposals, in queue order.
func (l *queueList) marked() []listRow {
	var out []listRow
	for _, r := range l.rows {
		if l.marks[r.p.ID] {
			out = append(out, r)
		}
	}
	return out
}

// Update handles one key and says what the screen should do.
func (l *queueList) Update(msg tea.KeyMsg) (listAction, tea.Cmd) {
	k, q := l.Keys, l.Keys.Queue
	if l.ask != nil {
		switch {
		case key.Matches(msg, k.Yes):
			a := listAction{kind: listBulk, verb: l.ask.verb, ids: l.ask.ids, claimed: l.ask.claimed, flagged: l.ask.flagged}
			l.ask = nil
			return a, nil
		case key.Matches(msg, k.No), key.Matches(msg, k.Cancel):
			l.ask = nil
		}
		return listAction{}, nil
	}
	if l.typing {
		switch msg.Type {
		case tea.KeyEnter, tea.KeyEsc, tea.KeyTab:
			l.typing = false
			l.text.Blur()
			return listAction{}, nil
		}
		var cmd tea.Cmd
		l.text, cmd = l.text.Update(msg)
		l.filter(l.cursorID())
		return listAction{}, cmd
	}
	step, moves := common.MoveStep(k, msg, l.rowsHigh(), len(l.shown))
	switch {
	case key.Matches(msg, q.Close):
		return listAction{kind: listClose}, nil
	case key.Matches(msg, q.Open):
		if id := l.cursorID(); id != "" {
			return listAction{kind: listOpen, id: id}, nil
		}
	case moves:
		l.move(step)
	case key.Matches(msg, q.Mark):
		if id := l.cursorID(); id != "" {
			l.marks[id] = !l.marks[id] // in place: j moves on
			if !l.marks[id] {
				delete(l.marks, id)
			}
		}
	case key.Matches(msg, q.MarkAll):
		l.markAll()
	case key.Matches(msg, q.Op):
		l.op = cycle(l.opts[0], l.op)
		l.filter(l.cursorID())
	case key.Matches(msg, q.Env):
		l.env = cycle(l.opts[1], l.env)
		l.filter(l.cursorID())
	case key.Matches(msg, q.Category):
		l.cat = cycle(l.opts[2], l.cat)
		l.filter(l.cursorID())
	case key.Matches(msg, q.Text):
		l.typing = true
		return listAction{}, l.text.Focus()
	case key.Matches(msg, q.Flagged):
		l.onlyFlagged = !l.onlyFlagged
		l.filter(l.cursorID())
	case key.Matches(msg, q.Clear):
		l.op, l.env, l.cat, l.onlyFlagged = "", "", "", false
		l.text.SetValue("")
		l.filter(l.cursorID())
	case key.Matches(msg, q.Reject):
		l.askBulk(review.Reject)
	case key.Matches(msg, q.Defer):
		l.askBulk(review.Defer)
	case key.Matches(msg, q.Accept):
		l.askBulk(review.Accept)
	}
	return listAction{}, nil
}

// markAll marks every row shown, or unmarks them when all are marked.
func (l *queueList) markAll() {
	all := len(l.shown) > 0
	for _, ri := range l.shown {
		all = all && l.marks[l.rows[ri].p.ID]
	}
	for _, ri := range l.shown {
		if id := l.rows[ri].p.ID; all {
			delete(l.marks, id)
		} else {
			l.marks[id] = true
		}
	}
}

// askBulk opens the y/n for verb on the marked rows (nothing marked:
// nothing to ask). Defer skips those already deferred.
func (l *queueList) askBulk(verb review.Verb) {
	a := &bulkAsk{verb: verb}
	for _, r := range l.marked() {
		switch {
		case r.holder != "":
			a.claimed = append(a.claimed, r.p.ID+" ("+r.holder+")")
		case verb == review.Defer && r.p.Status == review.Deferred:
		case verb == review.Accept && r.flag.blocks:
			a.flagged = append(a.flagged, r.p.ID)
		default:
			a.ids = append(a.ids, r.p.ID)
		}
	}
	if len(a.ids) > 0 || len(a.claimed) > 0 || len(a.flagged) > 0 {
		l.ask = a
	}
}

// cycle returns the value after cur in opts, wrapping to opts[0] ("").
func cycle(opts []string, cur string) string {
	i := slices.Index(opts, cur)
	return opts[(i+1)%len(opts)]
}

func (l *queueList) move(d int) {
	l.cursor = min(max(l.cursor+d, 0), max(len(l.shown)-1, 0))
	l.scroll()
}

// headLines is the lines above the rows: the summary, the filters and the
// column names.
const headLines = 3

// rowsHigh is the number of rows on screen.
func (l *queueList) rowsHigh() int {
	h := l.Height - headLines - 1 // the question or hint line below
	return max(h, 1)
}

// scroll keeps the cursor's row on screen.
func (l *queueList) scroll() {
	n := l.rowsHigh()
	if l.cursor < l.top {
		l.top = l.cursor
	}
	if l.cursor >= l.top+n {
		l.top = l.cursor - n + 1
	}
	l.top = min(max(l.top, 0), max(len(l.shown)-n, 0))
}

// View draws the list at its size.
func (l *queueList) View() string {
	if l.Width <= 0 || l.Height <= 0 {
		return ""
	}
	st := l.Styles
	out := []string{l.summary(), l.filtersLine()}
	cols := l.columns()
	out = append(out, st.Label.Render(common.FitLine(cols.line("", "id", "op", "category", "env", "age", "source", "claimed by", "lemma"), l.Width)))
	n := l.rowsHigh()
	for i := l.top; i < len(l.shown) && i < l.top+n; i++ {
		out = append(out, l.rowLine(cols, i))
	}
	if len(l.shown) == 0 {
		msg := "No open proposal."
		if len(l.rows) > 0 {
			msg = fmt.Sprintf("No open proposal matches these filters (%d open in all); x clears them.", len(l.rows))
		}
		out = append(out, st.Subtle.Render(common.FitLine(msg, l.Width)))
	}
	for len(out) < l.Height-1 {
		out = append(out, "")
	}
	out = append(out, l.bottomLine())
	return strings.Join(out[:min(len(out), l.Height)], "\n")
}

func (l *queueList) summary() string {
	st := l.Styles
	s := fmt.Sprintf("Queue: %d open · %d shown · %d marked", len(l.rows), len(l.shown), len(l.marks))
	if l.flaggedRows > 0 {
		s += fmt.Sprintf(" · %d flagged", l.flaggedRows)
	}
	if l.claimed > 0 {
		s += fmt.Sprintf(" · %d being reviewed by others", l.claimed)
	}
	return st.Title.Render(common.FitLine(s, l.Width))
}

// filtersHead is the filters line up to the text filter.
func (l *queueList) filtersHead() string {
	any := func(v string) string {
		if v == "" {
			return "any"
		}
		return v
	}
	flagged := "any"
	if l.onlyFlagged {
		flagged = "only"
	}
	return fmt.Sprintf("op %s · env %s · category %s · flagged %s · ", any(l.op), any(l.env), any(l.cat), flagged)
}

// fitText gives the text filter the rest of the filters line.
func (l *queueList) fitText() {
	l.text.Width = max(l.Width-ansi.StringWidth(l.filtersHead())-ansi.StringWidth(l.text.Prompt)-1, 1)
}

func (l *queueList) filtersLine() string {
	st := l.Styles
	s := l.filtersHead()
	if l.typing {
		return common.FitLine(st.Label.Render(s)+l.text.View(), l.Width)
	}
	if t := l.text.Value(); t != "" {
		s += "text /" + common.PrintableLine(t)
	} else {
		s += "text any"
	}
	return st.Label.Render(common.FitLine(s, l.Width))
}

func (l *queueList) bottomLine() string {
	st := l.Styles
	if a := l.ask; a != nil {
		verb := "Reject"
		switch a.verb {
		case review.Defer:
			verb = "Defer"
		case review.Accept:
			verb = "Accept"
		}
		q := fmt.Sprintf("%s %d marked proposal%s?", verb, len(a.ids), plural(len(a.ids)))
		if n := l.hiddenMarks(); n > 0 {
			q += fmt.Sprintf(" (%d of them not shown by the filters)", n)
		}
		if len(a.claimed) > 0 {
			q += fmt.Sprintf(" %d skipped, being reviewed by others: %s.", len(a.claimed), strings.Join(a.claimed, ", "))
		}
		q += flaggedLeftOut(a.flagged)
		return st.Warn.Render(common.FitLine(q+" y/n", l.Width))
	}
	return ""
}

// hiddenMarks counts the marked rows the filters hide.
func (l *queueList) hiddenMarks() int {
	n := len(l.marks)
	for _, ri := range l.shown {
		if l.marks[l.rows[ri].p.ID] {
			n--
		}
	}
	return n
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// listColumns are the widths of the list's columns.
type listColumns struct{ id, op, cat, env, age, src, claim, lemma int }

// fitRows sizes the columns to the rows' content, capped.
func fitRows(rows []listRow) listColumns {
	c := listColumns{id: 2, op: 2, cat: 8, env: 3, age: 3, src: 6, claim: 10}
	for _, r := range rows {
		c.id = max(c.id, len(r.p.ID))
		c.op = max(c.op, len(r.p.Op))
		c.cat = max(c.cat, len(r.cat))
		c.env = max(c.env, len(r.env))
		c.src = max(c.src, len(r.source))
		c.claim = max(c.claim, len(r.holder))
		c.age = max(c.age, len(r.age))
	}
	c.id, c.cat, c.env, c.src, c.claim = min(c.id, 16), min(c.cat, 12), min(c.env, 10), min(c.src, 22), min(c.claim, 12)
	return c
}

// minLemma is the lemma's width the other columns give way to.
const minLemma = 24

// columns fits the rows' columns to the width: the "claimed by" column
// shows only while someone else holds a proposal; the lemma takes what is
// left, and to leave it minLemma cells the source, then the category,
// then the claim column give way (down to 6 cells each). When even that
// leaves the lemma under 12 cells there is none, the source alone gives
// way to fit the line, and it is cut.
func (l *queueList) columns() listColumns {
	c := l.base
	if l.claimed == 0 {
		c.claim = 0
	}
	least := c
	least.src, least.cat, least.claim = min(c.src, 6), min(c.cat, 6), min(c.claim, 6)
	if l.Width-least.width()-1 < 12 {
		if over := c.width() - l.Width; over > 0 {
			c.src -= min(over, c.src-6)
		}
		return c
	}
	for _, w := range []*int{&c.src, &c.cat, &c.claim} {
		over := c.width() + 1 + minLemma - l.Width // the lemma's gap
		if over <= 0 {
			break
		}
		if *w > 6 {
			*w -= min(over, *w-6)
		}
	}
	if rest := l.Width - c.width() - 1; rest >= 12 {
		c.lemma = rest
	}
	return c
}

// width is the columns' width but the lemma's: "▸[x] ", each column and
// the gaps between them.
func (c listColumns) width() int {
	n := leadWidth + c.id + c.op + c.cat + c.env + c.age + c.src + 5
	if c.claim > 0 {
		n += c.claim + 1
	}
	return n
}

func (c listColumns) line(lead, id, op, cat, env, age, src, claim, lemma string) string {
	parts := []string{common.FitLine(lead, leadWidth) + common.FitLine(id, c.id), common.FitLine(op, c.op),
		common.FitLine(cat, c.cat), common.FitLine(env, c.env), common.FitLine(age, c.age),
		common.FitLine(src, c.src)}
	if c.claim > 0 {
		parts = append(parts, common.FitLine(claim, c.claim))
	}
	if c.lemma > 0 {
		parts = append(parts, common.FitLine(lemma, c.lemma))
	}
	return strings.Join(parts, " ")
}

func (l *queueList) rowLine(c listColumns, i int) string {
	st := l.Styles
	r := l.rows[l.shown[i]]
	lead := " [ ]"
	if l.marks[r.p.ID] {
		lead = " [x]"
	}
	if i == l.cursor {
		lead = "▸" + lead[1:]
	}
	lead += r.flag.mark()
	lemma := ""
	if r.p.Record != nil {
		lemma = common.PrintableLine(redactedView(&r.p).Record.Lemma)
	} else if r.p.Op == review.OpDelete {
		lemma = "retire " + strings.Join(r.p.TargetIDs(), ", ")
	} else if r.p.Op == review.OpSkip {
		lemma = "no change: " + common.PrintableLine(r.p.Rationale)
	}
	if r.flag.kinds != "" {
		lemma = "(flagged: " + r.flag.kinds + ") " + lemma
	}
	if r.p.Status == review.Deferred {
		lemma = "(deferred) " + lemma
	}
	claim := "—"
	if r.holder != "" {
		claim = r.holder
	}
	line := common.FitLine(c.line(lead, r.p.ID, string(r.p.Op), r.cat, r.env, r.age,
		common.PrintableLine(r.source), common.PrintableLine(claim), lemma), l.Width)
	switch {
	case i == l.cursor:
		return st.Selected.Render(line)
	case r.holder != "":
		return st.Subtle.Render(line)
	}
	return line
}

// age says how long ago t was, in its largest unit: 40s, 12m, 5h, 3d.
func age(now, t time.Time) string {
	d := now.Sub(t)
	switch {
	case t.IsZero():
		return "?"
	case d < time.Minute:
		return fmt.Sprintf("%ds", max(int(d.Seconds()), 0))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	}
	return fmt.Sprintf("%dd", int(d.Hours()/24))
}

// help lists the list's keys that apply now.
func (l *queueList) help() []key.Binding {
	k, q := l.Keys, l.Keys.Queue
	switch {
	case l.ask != nil:
		return []key.Binding{k.Yes, k.No}
	case l.typing:
		return []key.Binding{key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter/esc", "done typing"))}
	}
	return []key.Binding{q.Mark, q.MarkAll, q.Accept, q.Reject, q.Defer, q.Open, q.Close, q.Op, q.Env, q.Category, q.Flagged, q.Text, q.Clear, k.Note}
}

// fullHelp lists every key of the list for ?.
func (l *queueList) fullHelp() [][]key.Binding {
	k, q := l.Keys, l.Keys.Queue
	return [][]key.Binding{
		{q.Mark, q.MarkAll, q.Accept, q.Reject, q.Defer, k.Yes, k.No},
		{q.Open, q.Close, k.Note},
		{q.Op, q.Env, q.Category, q.Flagged, q.Text, q.Clear},
		{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom},
	}
}
