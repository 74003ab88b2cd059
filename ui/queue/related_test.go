package queue

import (
	"maps"
	"slices"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/sample"
	"github.com/memreview/memreview/ui/common"
	"github.com/memreview/memreview/ui/uitest"
)

// The stars proposal ("1 to 5 in every fdbk_gN table") shows the records
// that already say otherwise: mem_0006 (fdbk_g3 is 1–10) and mem_0007 (g1
// and g2 are 1–5), with the numbers and names where they differ.
func TestRelatedRecordsOfStarsProposal(t *testing.T) {
	t.Parallel()
	m := New(common.NewCommon(), uitest.OpenSample(t)).(*Model)
	m.SetSize(200, 60)
	settle(t, m, m.Init())
	settle(t, m, func() tea.Msg { return common.ShowProposal{ID: sample.PropOvergeneral} })
	if !m.ready() || m.cur.P.ID != sample.PropOvergeneral {
		t.Fatalf("%s did not load", sample.PropOvergeneral)
	}
	if m.cur.RelatedErr != nil {
		t.Fatal(m.cur.RelatedErr)
	}
	byID := map[string]relatedRecord{}
	for _, r := range m.cur.Related {
		byID[r.Rec.ID] = r
		if r.Rec.Status != review.Active || r.Rec.Scope.Env != m.cur.P.Record.Scope.Env {
			t.Errorf("%s (%s, env %q) is related, want active records of env %q", r.Rec.ID, r.Rec.Status, r.Rec.Scope.Env, m.cur.P.Record.Scope.Env)
		}
		if slices.Contains(m.cur.P.TargetIDs(), r.Rec.ID) {
			t.Errorf("the proposal's own target %s is listed as related", r.Rec.ID)
		}
		if !r.related() || strings.Contains(r.Rec.Lemma, "best brand") {
			t.Errorf("%s (overlap %.2f, %d names shared) is listed: %q", r.Rec.ID, r.Overlap, r.Names, r.Rec.Lemma)
		}
	}
	g3, ok3 := byID[sample.RecStarsG3]
	g12, ok12 := byID["mem_0007"]
	if !ok3 || !ok12 {
		t.Fatalf("related = %v, want %s and mem_0007 among them", slices.Sorted(maps.Keys(byID)), sample.RecStarsG3)
	}
	if !slices.Contains(g3.Its, "10") || !slices.Contains(g3.Its, "fdbk_g3") || !slices.Contains(g3.Ours, "5") {
		t.Errorf("%s differs by %v vs %v, want 10 and fdbk_g3 against the candidate's 5", g3.Rec.ID, g3.Its, g3.Ours)
	}
	if slices.Contains(g12.Ours, "5") || !slices.Contains(g12.Its, "fdbk_g1") {
		t.Errorf("mem_0007 differs by %v vs %v, want fdbk_g1 and no 5 (both say 1 to 5)", g12.Its, g12.Ours)
	}

	m.panes.SetFocus(paneCandidate)
	m.panes.SetZoom(true)
	m.render()
	v := ansi.Strip(m.View())
	for _, want := range []string{"Related", sample.RecStarsG3 + " overlap", "mem_0007", "it says fdbk_g3, 10", "m merges related records"} {
		if !strings.Contains(v, want) {
			t.Errorf("the candidate pane lacks %q:\n%s", want, v)
		}
	}

	// m opens the merge picker with the related records listed first.
	settle(t, m, func() tea.Msg { return uitest.Key("m") })
	mp, ok := m.overlay.(*mergePicker)
	if !ok {
		t.Fatalf("m opened %T, want the merge picker", m.overlay)
	}
	if len(mp.found_) < len(m.cur.Related) {
		t.Fatalf("the picker lists %d records, fewer than the %d related", len(mp.found_), len(m.cur.Related))
	}
	for i, r := range m.cur.Related {
		if mp.found_[i].ID != r.Rec.ID {
			t.Errorf("picker row %d is %s, want related %s", i, mp.found_[i].ID, r.Rec.ID)
		}
	}
}

// Words are split at dashes, so "1 to 5" and "1–10" differ by 5 and 10;
// most words shared makes a near-duplicate.
func TestRelate(t *testing.T) {
	t.Parallel()
	cand := words("stars run from 1 to 5 in fdbk_g1")
	r := relate(cand, review.Record{ID: "x", Lemma: "stars run from 1–10 in fdbk_g1"})
	if !slices.Equal(r.Ours, []string{"5"}) || !slices.Equal(r.Its, []string{"10"}) || !r.Near {
		t.Errorf("relate = near %v, ours %v, its %v; want near, [5], [10]", r.Near, r.Ours, r.Its)
	}
	r = relate(cand, review.Record{ID: "y", Lemma: "orders ship within 2 days of payment"})
	if r.Near {
		t.Errorf("an unrelated lemma is a near-duplicate: %+v", r)
	}
}

// The related record's own numbers and names are styled in its lemma
// (an upper-casing style shows which, whatever the terminal's colours).
func TestMarkWords(t *testing.T) {
	t.Parallel()
	up := lipgloss.NewStyle().Transform(strings.ToUpper)
	got := markWords("fdbk_g3 stars run 1–10 in g3", []string{"fdbk_g3", "10"}, up)
	if want := "FDBK_G3 stars run 1–10 in g3"; got != want {
		t.Errorf("markWords = %q, want %q", got, want)
	}
	if got := markWords("stars g3", nil, up); got != "stars g3" {
		t.Errorf("markWords with nothing to mark = %q", got)
	}
}

// The minimum-overlap cut: a BM25 neighbour that shares only common words
// with the candidate ("review", "average") and no number or name is not
// related; one that shares a name and a fifth of its content words is;
// stopwords count for neither.
func TestRelatedMinimumOverlap(t *testing.T) {
	t.Parallel()
	cand := words("Review stars are integers from 1 to 5 in every fdbk_gN table; average them directly. Averaging review ratings")
	brand := relate(cand, review.Record{ID: "b", Lemma: "For 'best brand' questions, require a minimum review count so brands with one review cannot win; average rating alone misleads."})
	if brand.related() || brand.Names != 0 {
		t.Errorf("the best-brand record is related: overlap %.2f, %d names", brand.Overlap, brand.Names)
	}
	g3 := relate(cand, review.Record{ID: "g3", Lemma: "fdbk_g3 stars run from 1 to 10, not 1 to 5: scale them before you average across groups."})
	if !g3.related() || g3.Names == 0 {
		t.Errorf("the fdbk_g3 warning is not related: overlap %.2f, %d names", g3.Overlap, g3.Names)
	}
	stops := relate(cand, review.Record{ID: "s", Lemma: "Every table in the warehouse has an owner and a retention date, set by them from the data team."})
	if stops.related() || stops.Overlap > 0.15 {
		t.Errorf("a lemma sharing only stopwords and %q is related: overlap %.2f", "table", stops.Overlap)
	}
	if brand.Overlap >= minOverlapWords || g3.Overlap < minOverlap {
		t.Errorf("overlaps: brand %.2f (want < %.2f), g3 %.2f (want ≥ %.2f)", brand.Overlap, minOverlapWords, g3.Overlap, minOverlap)
	}
}

// A decimal, a date and a time are one word each where the related pane
// says how two records differ, not "100, 0" or "2026, 03, 16" (issue 23
// item 12); an en dash still parts a range.
func TestRelatedWordsKeepNumbersWhole(t *testing.T) {
	ws := words("average price_cents / 100.0 since 2026-03-16 at 12:30; stars 1–10, end-of-line.")
	for _, w := range []string{"100.0", "2026-03-16", "12:30", "1", "10", "price_cents", "end", "of"} {
		if !ws.has[w] {
			t.Errorf("words lack %q: %v", w, ws.order)
		}
	}
	for _, w := range []string{"100", "0", "2026", "03", "16"} {
		if ws.has[w] {
			t.Errorf("words cut a number into %q: %v", w, ws.order)
		}
	}
	if got := ansi.Strip(markWords("was 100.0 on 2026-03-16.", []string{"100.0"}, lipgloss.NewStyle())); got != "was 100.0 on 2026-03-16." {
		t.Errorf("markWords changed the text: %q", got)
	}
}

// At 120x40 the first proposal's related records are below the fold of
// the candidate pane: its first line says so, and o scrolls there; t at
// 80x24 shows the trajectory pane it toggled the raw steps in (issue 23
// items 12 and 15).
func TestRelatedWithinReach(t *testing.T) {
	t.Parallel()
	m := New(common.NewCommon(), uitest.OpenSample(t)).(*Model)
	m.SetSize(120, 30)
	settle(t, m, m.Init())
	if !m.ready() || len(m.cur.Related) == 0 {
		t.Fatalf("the first proposal has no related records")
	}
	body := m.panes.Body(paneCandidate)
	if first := ansi.Strip(body.Lines()[0]); !strings.Contains(first, "Related (") || !strings.Contains(first, "o shows them") {
		t.Errorf("the candidate pane starts %q, want the related records' hint", first)
	}
	settle(t, m, func() tea.Msg { return uitest.Key("o") })
	if v := ansi.Strip(m.View()); !strings.Contains(v, "Related (") || body.YOffset() == 0 {
		t.Errorf("o did not scroll to the related records:\n%s", v)
	}

	m.SetSize(80, 24)
	m.panes.SetFocus(paneProbes)
	settle(t, m, func() tea.Msg { return uitest.Key("t") })
	if m.panes.Focus() != paneTrajectory || !strings.Contains(ansi.Strip(m.View()), "5 assistant: ") {
		t.Errorf("t at 80x24 left the focus on pane %d:\n%s", m.panes.Focus(), ansi.Strip(m.View()))
	}
}

// The merge picker's opening suggestions for a docs proposal are docs
// records, never shop ones (issue 23 item 12); its rows name each env.
func TestMergeSeedKeepsTheEnv(t *testing.T) {
	t.Parallel()
	m := New(common.NewCommon(), uitest.OpenSample(t)).(*Model)
	m.SetSize(200, 50)
	settle(t, m, m.Init())
	q, err := m.deps.Service.Queue()
	if err != nil {
		t.Fatal(err)
	}
	pid := ""
	for _, p := range q {
		if p.Record.Scope.Env == "docs" && p.Op != review.OpDelete && p.Op != review.OpSkip {
			pid = p.ID
			break
		}
	}
	if pid == "" {
		t.Fatal("the sample queue has no docs proposal with a record")
	}
	settle(t, m, func() tea.Msg { return common.ShowProposal{ID: pid} })
	if !m.ready() || m.cur.P.ID != pid {
		t.Fatalf("%s did not show", pid)
	}
	settle(t, m, func() tea.Msg { return uitest.Key("m") })
	mp, ok := m.overlay.(*mergePicker)
	if !ok || len(mp.found_) == 0 {
		t.Fatalf("m opened %T with no suggestions", m.overlay)
	}
	for _, r := range mp.found_ {
		if r.Scope.Env != "docs" {
			t.Errorf("the picker for docs %s suggests %s of env %q", pid, r.ID, r.Scope.Env)
		}
	}
	if v := ansi.Strip(m.View()); !strings.Contains(v, mp.found_[0].ID+"  docs  ") {
		t.Errorf("the picker's row does not name the env:\n%s", v)
	}
}
