package queue

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/ui/common"
	"github.com/memreview/memreview/ui/uitest"
)

var listNow = time.Date(2026, 4, 10, 12, 0, 0, 0, time.UTC)

func listRows() []review.Proposal {
	rec := func(env string, cat review.Category, lemma string) *review.Record {
		return &review.Record{Lemma: lemma, Category: cat, Scope: review.Scope{Env: env}}
	}
	return []review.Proposal{
		{ID: "p1", Op: review.OpCreate, Record: rec("shop", "fact", "stars are 1 to 5"), CuratorRun: "cur_1", Trajectory: "traj_1", Status: review.Pending, Created: listNow.Add(-3 * time.Hour)},
		{ID: "p2", Op: review.OpUpdate, Record: rec("docs", "convention", "money is GBP"), Source: "mcp:claude", Status: review.Pending, Created: listNow.Add(-50 * time.Hour)},
		{ID: "p3", Op: review.OpCreate, Record: rec("docs", "fact", "revenue per head"), Source: "hygiene", Status: review.Deferred, Created: listNow.Add(-90 * time.Second)},
		{ID: "p4", Op: review.OpDelete, Targets: []review.Target{{ID: "mem_1", Version: 1}}, Status: review.Pending, Created: listNow.Add(-5 * time.Minute)},
	}
}

func shownIDs(l *queueList) []string {
	var ids []string
	for _, i := range l.shown {
		ids = append(ids, l.rows[i].p.ID)
	}
	return ids
}

func listPress(l *queueList, keys ...string) listAction {
	var a listAction
	for _, k := range keys {
		a, _ = l.Update(uitest.Key(k))
	}
	return a
}

// The list's filters: o, e and c cycle through the values the queue holds
// (then back to any), / filters by text, x clears all; * marks every row
// shown and, pressed again, unmarks them; marks on proposals that left the
// queue go at the next load.
func TestQueueListFiltersAndMarks(t *testing.T) {
	t.Parallel()
	l := newQueueList(common.NewCommon())
	l.SetSize(120, 20)
	l.SetRows(listRows(), map[string]string{"p2": "alice"}, map[string]string{"p4": "shop"}, listNow)
	if got := shownIDs(l); !slices.Equal(got, []string{"p1", "p2", "p3", "p4"}) {
		t.Fatalf("shown %v", got)
	}
	listPress(l, "e") // docs
	if got := shownIDs(l); !slices.Equal(got, []string{"p2", "p3"}) {
		t.Errorf("env docs shows %v", got)
	}
	listPress(l, "c", "c") // convention, then fact
	if got := shownIDs(l); !slices.Equal(got, []string{"p3"}) || l.cat != "fact" {
		t.Errorf("env docs, category %s shows %v", l.cat, got)
	}
	listPress(l, "x", "o") // op create
	if got := shownIDs(l); !slices.Equal(got, []string{"p1", "p3"}) {
		t.Errorf("op create shows %v", got)
	}
	listPress(l, "o", "o", "o") // delete, update, any
	if l.op != "" || len(l.shown) != 4 {
		t.Errorf("cycling op back: %q, %d shown", l.op, len(l.shown))
	}
	listPress(l, "/", "G", "B", "P", "enter")
	if got := shownIDs(l); !slices.Equal(got, []string{"p2"}) || l.Capturing() {
		t.Errorf("text gbp shows %v (typing %v)", got, l.Capturing())
	}
	listPress(l, "x", "e", "*")
	if len(l.marks) != 2 || !l.marks["p2"] || !l.marks["p3"] {
		t.Errorf("* on env docs marked %v", l.marks)
	}
	listPress(l, "*")
	if len(l.marks) != 0 {
		t.Errorf("* again left %v marked", l.marks)
	}
	listPress(l, "x", "g", " ") // marks p1 in place (issue 23 item 10)
	if !l.marks["p1"] || l.cursorID() != "p1" {
		t.Errorf("space: marks %v, cursor on %s; want p1 marked, the cursor on it", l.marks, l.cursorID())
	}
	listPress(l, " ", " ", "j", " ", "j") // unmark, mark again; p2
	if !l.marks["p1"] || !l.marks["p2"] || len(l.marks) != 2 || l.cursorID() != "p3" {
		t.Errorf("space, space, j, space, j: marks %v, cursor on %s", l.marks, l.cursorID())
	}
	listPress(l, "e", "e") // shop: p1 and the delete of a shop record
	if got := shownIDs(l); !slices.Equal(got, []string{"p1", "p4"}) {
		t.Errorf("env shop shows %v; the delete proposal takes its target's env", got)
	}
	listPress(l, "x", "g", "j", "j")
	l.SetRows(listRows()[1:], nil, map[string]string{"p4": "shop"}, listNow) // p1 was decided elsewhere
	if l.marks["p1"] || !l.marks["p2"] || l.cursorID() != "p3" {
		t.Errorf("after a reload without p1: marks %v, cursor on %s", l.marks, l.cursorID())
	}
}

// s and r ask before deciding, with the count; others' claims are left
// out and named, defer leaves out the already deferred; n drops the
// question, y hands the screen the ids to decide.
func TestQueueListBulkAsk(t *testing.T) {
	t.Parallel()
	l := newQueueList(common.NewCommon())
	l.SetSize(200, 20)
	l.SetRows(listRows(), map[string]string{"p2": "alice"}, map[string]string{"p4": "shop"}, listNow)
	listPress(l, "*", "e") // all marked; then env docs shows two of them
	listPress(l, "s")
	if l.ask == nil || !slices.Equal(l.ask.ids, []string{"p1", "p4"}) || !slices.Equal(l.ask.claimed, []string{"p2 (alice)"}) {
		t.Fatalf("defer asks %+v", l.ask)
	}
	q := ansi.Strip(l.bottomLine())
	if !strings.Contains(q, "Defer 2 marked proposals? (2 of them not shown by the filters) 1 skipped, being reviewed by others: p2 (alice). y/n") {
		t.Errorf("the question reads %q", q)
	}
	if a := listPress(l, "n"); a.kind != listNone || l.ask != nil {
		t.Errorf("n: %+v, ask %+v", a, l.ask)
	}
	a := listPress(l, "r", "y")
	if a.kind != listBulk || a.verb != review.Reject || !slices.Equal(a.ids, []string{"p1", "p3", "p4"}) || !slices.Equal(a.claimed, []string{"p2 (alice)"}) {
		t.Errorf("r then y: %+v", a)
	}
	if a := listPress(l, "x", "enter"); a.kind != listOpen || a.id != l.cursorID() {
		t.Errorf("enter: %+v", a)
	}
}

// Every line of the list fits the width and the list fills its height,
// at the narrowest and a wide size; ages read in their largest unit.
func TestQueueListView(t *testing.T) {
	t.Parallel()
	for _, sz := range [][2]int{{60, 10}, {80, 22}, {200, 58}} {
		l := newQueueList(common.NewCommon())
		l.SetSize(sz[0], sz[1])
		l.SetRows(listRows(), map[string]string{"p2": "alice"}, map[string]string{"p4": "shop"}, listNow)
		lines := strings.Split(l.View(), "\n")
		if len(lines) != sz[1] {
			t.Errorf("%dx%d: %d lines", sz[0], sz[1], len(lines))
		}
		for i, ln := range lines {
			if w := ansi.StringWidth(ln); w > sz[0] {
				t.Errorf("%dx%d: line %d is %d wide: %q", sz[0], sz[1], i, w, ansi.Strip(ln))
			}
		}
		v := ansi.Strip(l.View())
		for _, want := range []string{"p2", "alice", "mcp:c", "hygie", "curat", "import", "2d", "3h", "1m", "5m"} {
			if !strings.Contains(v, want) {
				t.Errorf("%dx%d lacks %q:\n%s", sz[0], sz[1], want, v)
			}
		}
		if sz[0] >= 80 && (!strings.Contains(v, "stars are 1 to 5") || !strings.Contains(v, "(deferred) revenue per") || !strings.Contains(v, "retire mem_1")) {
			t.Errorf("at %d the lemmas and the deferred mark do not show (issue 23 item 10):\n%s", sz[0], v)
		}
	}
}

// While the list shows, its keys and the global ones do not clash, and ?
// lists every key the footer shows.
func TestQueueListKeys(t *testing.T) {
	t.Parallel()
	m := New(common.NewCommon(), uitest.OpenSample(t)).(*Model)
	m.SetSize(120, 40)
	settle(t, m, m.Init())
	settle(t, m, func() tea.Msg { return uitest.Key("L") })
	if !m.listOn {
		t.Fatal("L did not show the list")
	}
	k := m.Keys
	short := append(m.ShortHelp(), k.Quit, k.Help, k.Errors, k.Hygiene)
	for _, n := range "1234" {
		short = append(short, key.NewBinding(key.WithKeys(string(n)), key.WithHelp(string(n), "screen "+string(n))))
	}
	seen := map[string]string{}
	for _, b := range short {
		for _, s := range b.Keys() {
			if prev, ok := seen[s]; ok && b.Enabled() {
				t.Errorf("key %q is both %q and %q", s, prev, b.Help().Desc)
			}
			if b.Enabled() {
				seen[s] = b.Help().Desc
			}
		}
	}
	listed := map[string]bool{}
	for _, g := range m.FullHelp() {
		for _, b := range g {
			listed[b.Help().Key+" "+b.Help().Desc] = true
		}
	}
	for _, b := range m.ShortHelp() {
		if !listed[b.Help().Key+" "+b.Help().Desc] {
			t.Errorf("? does not list %q %q", b.Help().Key, b.Help().Desc)
		}
	}
	settle(t, m, func() tea.Msg { return uitest.Key("esc") })
	if m.listOn || !strings.Contains(m.View(), "Candidate") {
		t.Errorf("esc did not go back to the panes:\n%s", m.View())
	}
}
