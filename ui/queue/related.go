package queue

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/charmbracelet/lipgloss"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/app"
	"github.com/memreview/memreview/ui/common"
)

// The related records pane: active records in the candidate's env that
// the index finds near its lemma and trigger, each marked a near-duplicate
// or an overlap, with the numbers and names where it differs from the
// candidate (a likely contradiction). They are read with the proposal's
// context (readContext, in a Cmd), so a stale one is dropped with it.

// relatedSize caps the related records shown.
const relatedSize = 5

// nearDuplicate is the share of the shorter text's words the other must
// hold for the two to be near-duplicates.
const nearDuplicate = 0.7

// minOverlap is the share of the shorter text's content words (words but
// stopwords; numbers and names count) a record must share with the
// candidate to be listed when it shares a number or name (fdbk_g1, 5);
// one that shares none must share minOverlapWords. Below that, a BM25
// neighbour that only shares a few common words ("review", "rating",
// "average") is left out of the pane. On the sample world the stars
// proposal keeps mem_0006 (0.36) and mem_0007 (0.57) and drops the "best
// brand" record (0.27, no name shared).
const (
	minOverlap      = 0.2
	minOverlapWords = 0.34
)

// relatedRecord is one active record near the candidate.
type relatedRecord struct {
	Rec  review.Record
	Near bool // a near-duplicate: most words shared
	// Similar: its vector is near the candidate's (app.Related.Similar),
	// whatever words it uses.
	Similar bool
	// Overlap is the share of the shorter text's content words the other
	// holds (minOverlap); Names counts the numbers and names both hold.
	Overlap float64
	Names   int
	Ours    []string // numbers and names only the candidate has
	Its     []string // numbers and names only this record has
}

// findRelated reads the records related to p's candidate. A bank without
// an index has none to show (not an error).
func findRelated(svc *app.Service, p *review.Proposal) ([]relatedRecord, error) {
	if p.Record == nil || p.Op == review.OpSkip || p.Op == review.OpDelete {
		return nil, nil
	}
	c := p.Record
	if strings.TrimSpace(c.Lemma+c.Trigger) == "" {
		return nil, nil
	}
	// Hybrid: the records sharing its words (BM25) and those whose vectors
	// are nearest, fused (app.RelatedTo); twice what is shown, since the
	// word rules below drop some.
	skip := append(p.TargetIDs(), c.ID)
	near, err := svc.RelatedTo(context.Background(), c, skip, 2*relatedSize)
	if errors.Is(err, app.ErrNoIndex) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("search records related to %s: %w", p.ID, err)
	}
	ours := words(c.Lemma + " " + c.Trigger)
	var out []relatedRecord
	for _, h := range near {
		if slices.Contains(skip, h.Record.ID) || len(out) == relatedSize {
			continue
		}
		rr := relate(ours, h.Record)
		rr.Similar = h.Similar
		if rr.related() {
			out = append(out, rr)
		}
	}
	return out, nil
}

// related reports whether r is close enough to the candidate to show: a
// near-duplicate, its vector near the candidate's (app.SimilarThreshold:
// the same in other words), or enough of the content words shared
// (minOverlap).
func (r relatedRecord) related() bool {
	return r.Near || r.Similar || (r.Names > 0 && r.Overlap >= minOverlap) || r.Overlap >= minOverlapWords
}

// relate compares the candidate's words with r's.
func relate(ours wordSet, r review.Record) relatedRecord {
	its := words(r.Lemma + " " + r.Trigger)
	shared, content, names := 0, 0, 0
	for w := range its.has {
		if ours.has[w] {
			shared++
			if !stopwords[w] {
				content++
			}
			if isName(w) {
				names++
			}
		}
	}
	shorter := min(len(ours.has), len(its.has))
	overlap := 0.0
	if n := min(ours.content(), its.content()); n > 0 {
		overlap = float64(content) / float64(n)
	}
	return relatedRecord{
		Rec:     r,
		Near:    shorter > 0 && float64(shared) >= nearDuplicate*float64(shorter),
		Overlap: overlap,
		Names:   names,
		Ours:    ours.marked(its),
		Its:     its.marked(ours),
	}
}

// content counts ws's words that are not stopwords.
func (ws wordSet) content() int {
	n := 0
	for w := range ws.has {
		if !stopwords[w] {
			n++
		}
	}
	return n
}

// stopwords are the words too common to make two lemmas related.
var stopwords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an and any are as at be by do does each every for from has have if in
		into is it its no not of on one or per so such than that the them then there these they this to use
		uses was were when where which while who with without`) {
		stopwords[w] = true
	}
}

// isName reports whether w is a number or a name: it holds a digit or an
// underscore (fdbk_g3, 10, item_id).
func isName(w string) bool {
	return strings.ContainsFunc(w, func(r rune) bool { return unicode.IsDigit(r) || r == '_' })
}

// wordSet is a text's words, lower-cased, in the order first seen (as
// written).
type wordSet struct {
	has   map[string]bool
	order []string
}

// words splits s into words of letters, digits and underscores (split
// as splitWords does); "1–10" is the two words 1 and 10, but 100.0 and
// 2026-03-16 are one word each.
func words(s string) wordSet {
	ws := wordSet{has: map[string]bool{}}
	for _, t := range splitWords(s) {
		if !t.word {
			continue
		}
		if lw := strings.ToLower(t.text); !ws.has[lw] {
			ws.has[lw] = true
			ws.order = append(ws.order, t.text)
		}
	}
	return ws
}

// token is a word of a text, or what lies between two words.
type token struct {
	text string
	word bool
}

// splitWords cuts s into words and what lies between them. A word is
// letters, digits and underscores; a '.', '-', ':' or '/' between two
// digits joins them, so that a decimal (100.0), a date (2026-03-16) or a
// time (12:30) is one word, not "100, 0".
func splitWords(s string) []token {
	rs := []rune(s)
	var out []token
	start, inWord := 0, false
	joins := func(i int) bool {
		return i > 0 && i+1 < len(rs) && strings.ContainsRune(".-:/", rs[i]) && unicode.IsDigit(rs[i-1]) && unicode.IsDigit(rs[i+1])
	}
	for i, r := range rs {
		w := isWordRune(r) || inWord && joins(i)
		if i > 0 && w != inWord {
			out = append(out, token{string(rs[start:i]), inWord})
			start = i
		}
		inWord = w
	}
	if len(rs) > 0 {
		out = append(out, token{string(rs[start:]), inWord})
	}
	return out
}

// marked lists the numbers and names (words with a digit or an
// underscore) of ws that other lacks.
func (ws wordSet) marked(other wordSet) []string {
	var out []string
	for _, w := range ws.order {
		if !other.has[strings.ToLower(w)] && isName(w) {
			out = append(out, w)
		}
	}
	return out
}

// writeRelated adds the Related section to the candidate pane.
func (m *Model) writeRelated(b *strings.Builder, w int) {
	st := m.Styles
	if err := m.cur.RelatedErr; err != nil {
		b.WriteString("\n" + st.Title.Render("Related") + "\n" + st.Error.Render(common.Wrap(common.Printable(err.Error()), w)) + "\n")
		return
	}
	if len(m.cur.Related) == 0 {
		return
	}
	b.WriteString("\n" + st.Title.Render(fmt.Sprintf("Related (%d)", len(m.cur.Related))) + "\n")
	for _, r := range m.cur.Related {
		kind := "overlap"
		switch {
		case r.Near:
			kind = "near-duplicate"
		case r.Similar && r.Overlap < minOverlapWords:
			kind = "same in other words"
		}
		head := st.Label.Render(r.Rec.ID) + " " + st.Subtle.Render(kind) + " "
		b.WriteString(common.Indent(head, markWords(common.Printable(r.Rec.Lemma), r.Its, st.Warn), w, 2) + "\n")
		// Names on both sides are a likely contradiction; on one side
		// only, the other just does not mention them.
		label, diff := "  differs: ", "it says "+orDash(r.Its)+" · candidate says "+orDash(r.Ours)
		switch {
		case len(r.Its) == 0 && len(r.Ours) == 0:
			label = ""
		case len(r.Its) == 0:
			label, diff = "  candidate adds: ", orDash(r.Ours)
		case len(r.Ours) == 0:
			label, diff = "  only it says: ", orDash(r.Its)
		}
		if label != "" {
			b.WriteString(common.Indent(st.Warn.Render(label), common.Printable(diff), w, 4) + "\n")
		}
	}
	b.WriteString(st.Subtle.Render(common.Wrap("m merges related records into the candidate", w)) + "\n")
}

// markWords renders the words of s that are in marked with style.
func markWords(s string, marked []string, style lipgloss.Style) string {
	if len(marked) == 0 {
		return s
	}
	set := map[string]bool{}
	for _, w := range marked {
		set[strings.ToLower(w)] = true
	}
	var b strings.Builder
	for _, t := range splitWords(s) {
		if t.word && set[strings.ToLower(t.text)] {
			b.WriteString(style.Render(t.text))
		} else {
			b.WriteString(t.text)
		}
	}
	return b.String()
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' }

func orDash(ws []string) string {
	if len(ws) == 0 {
		return "—"
	}
	return strings.Join(ws, ", ")
}

// relatedSeed is what the merge picker opens with first: the related
// records, less the excluded ids.
func relatedSeed(rel []relatedRecord, exclude []string) []review.Record {
	var out []review.Record
	for _, r := range rel {
		if !slices.Contains(exclude, r.Rec.ID) {
			out = append(out, r.Rec.Clone())
		}
	}
	return out
}

// relatedFirst puts the related records ahead of the picker's first
// search results (once: the operator's own searches list what they find).
func (mp *mergePicker) relatedFirst(recs []review.Record) []review.Record {
	if mp.related == nil {
		return recs
	}
	out := slices.Clone(mp.related)
	for _, r := range recs {
		if !slices.ContainsFunc(out, func(o review.Record) bool { return o.ID == r.ID }) {
			out = append(out, r)
		}
	}
	mp.related = nil
	return out
}
