package index

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/memreview/memreview/review"
)

// While the index is behind the bank (a catch-up or a rebuild still
// running, or writes since the last Sync), a search also reads the items
// changed after the index's sequence from the bank, the newest tailMax of
// them, and searches them directly: the tail. Search and Retrieve run the
// same request on the index, without the documents the tail holds a newer
// version of (or knows are deleted), and on an in-memory index of the
// tail's items that can match it, and merge the two (tailsearch.go).
//
// The tail is read once per change: a later search reads only the changes
// made since, and drops those the index has reached.

// tailMax caps the changed items a search reads from the bank; older
// changes the index does not hold yet are not searchable until it does
// (Results.Unsearched counts them).
var tailMax = 20_000

// tailIndexMax caps the items of the tail, newest first, that pass a
// search's prefilter and are indexed in memory for it; the rest are
// counted in Results.Unsearched.
var tailIndexMax = 500

// bulkSource is the bulk read a Source may offer to read the tail in a few
// queries rather than one per item. *store.Store (SQLite and PostgreSQL)
// has it.
type bulkSource interface {
	RecordsByID(ids []string) (map[string]*review.Record, error)
	ProposalsByID(ids []string) (map[string]*review.Proposal, error)
	TrajectoriesByID(ids []string) (map[string]*review.Trajectory, error)
}

// tailItem is one item changed after the index's sequence, as the bank
// holds it now.
type tailItem struct {
	id   string // the bleve document id (docID)
	typ  string
	seq  int64  // its latest change
	doc  doc    // nil when the bank no longer holds it
	text string // its values, lower-cased, for the prefilter
}

// tail is the bank's changes in (base, top]. It is not changed once
// made (a later search makes a new one); present is filled on first use.
type tail struct {
	base, top int64
	items     []tailItem       // newest first, at most tailMax
	changed   map[string]int64 // document id → seq of every item changed in (base, top]
	// partial: changed holds the newest tailMax items only (read while
	// the index is empty, which has no stale versions to leave out), and
	// total is how many items changed in all.
	partial bool
	total   int

	mu         sync.Mutex
	presentGen uint64
	present    []string // the ids in changed that the index holds, at presentGen
	presentOK  bool
}

// unread is how many changed items the tail did not read (over tailMax).
func (t *tail) unread() int {
	if t.partial {
		return max(t.total-len(t.items), 0)
	}
	return len(t.changed) - len(t.items)
}

// newestSource is what a Source may offer to read only the newest items
// of a long feed (*store.Store has it): a first build at a million
// records then never holds every change in memory.
type newestSource interface {
	NewestChanges(seq int64, limit int) ([]review.Change, int, error)
}

// currentTail returns the tail of the bank's changes after the index's
// sequence, or nil when the index is caught up.
func (ix *Index) currentTail() (*tail, error) {
	base := ix.seq.Load()
	last, err := ix.src.LastSeq()
	if err != nil {
		return nil, fmt.Errorf("index: read the bank's change sequence: %w", err)
	}
	if last <= base {
		ix.dropChunks()
		return nil, nil
	}
	ix.tailMu.Lock()
	defer ix.tailMu.Unlock()
	t := ix.tailCur
	if t == nil || t.base > base || (t.partial && base > t.base) {
		t, err = ix.readTail(base)
	} else {
		if last > t.top {
			t, err = ix.extendTail(t)
		}
		if err == nil && base > t.base {
			t = t.trim(base)
		}
	}
	if err != nil {
		return nil, err
	}
	ix.tailCur = t
	return t, nil
}

// readTail reads the changes after base and the newest tailMax items they
// name.
func (ix *Index) readTail(base int64) (*tail, error) {
	if ns, ok := ix.src.(newestSource); ok && ix.empty() {
		changes, total, err := ns.NewestChanges(base, tailMax)
		if err != nil {
			return nil, fmt.Errorf("index: read the bank's newest changes since %d: %w", base, err)
		}
		t := &tail{base: base, top: base, changed: make(map[string]int64, len(changes)), partial: true, total: total}
		for _, c := range changes {
			t.changed[docID(c.Kind, c.ID)] = c.Seq
			t.top = max(t.top, c.Seq)
		}
		if t.items, err = ix.readItems(changes); err != nil {
			return nil, err
		}
		return t, nil
	}
	changes, err := ix.src.ChangesSince(base)
	if err != nil {
		return nil, fmt.Errorf("index: read the bank's changes since %d: %w", base, err)
	}
	t := &tail{base: base, top: base, changed: make(map[string]int64, len(changes))}
	for _, c := range changes {
		t.changed[docID(c.Kind, c.ID)] = c.Seq
		t.top = max(t.top, c.Seq)
	}
	newest := changes[max(len(changes)-tailMax, 0):]
	if t.items, err = ix.readItems(newest); err != nil {
		return nil, err
	}
	return t, nil
}

// extendTail is t with the changes made after t.top.
func (ix *Index) extendTail(t *tail) (*tail, error) {
	changes, err := ix.src.ChangesSince(t.top)
	if err != nil {
		return nil, fmt.Errorf("index: read the bank's changes since %d: %w", t.top, err)
	}
	fresh, err := ix.readItems(changes[max(len(changes)-tailMax, 0):])
	if err != nil {
		return nil, err
	}
	n := &tail{base: t.base, top: t.top, changed: maps.Clone(t.changed), partial: t.partial, total: t.total}
	for _, c := range changes {
		id := docID(c.Kind, c.ID)
		if _, seen := n.changed[id]; !seen {
			n.total++ // of a partial tail: an item beyond it changed again counts twice
		}
		n.changed[id] = c.Seq
		n.top = max(n.top, c.Seq)
	}
	n.items = fresh
	for _, it := range t.items {
		if len(n.items) >= tailMax {
			break
		}
		if n.changed[it.id] == it.seq { // not changed again since
			n.items = append(n.items, it)
		}
	}
	return n, nil
}

// trim is t without the changes up to base, which the index now holds.
func (t *tail) trim(base int64) *tail {
	n := &tail{base: base, top: t.top, changed: make(map[string]int64, len(t.changed))}
	for id, seq := range t.changed {
		if seq > base {
			n.changed[id] = seq
		}
	}
	for _, it := range t.items {
		if it.seq > base {
			n.items = append(n.items, it)
		}
	}
	return n
}

// readItems reads the items changes name (ascending seq, one per item) as
// the bank holds them now, newest first, in bulk when the Source can.
func (ix *Index) readItems(changes []review.Change) ([]tailItem, error) {
	byKind := map[string][]string{}
	for _, c := range changes {
		byKind[c.Kind] = append(byKind[c.Kind], c.ID)
	}
	docs := map[string]doc{}
	if bs, ok := ix.src.(bulkSource); ok {
		recs, err := bs.RecordsByID(byKind["record"])
		if err != nil {
			return nil, fmt.Errorf("index: read changed records: %w", err)
		}
		for id, r := range recs {
			docs[docID("record", id)] = recordDoc(r)
		}
		props, err := bs.ProposalsByID(byKind["proposal"])
		if err != nil {
			return nil, fmt.Errorf("index: read changed proposals: %w", err)
		}
		for id, p := range props {
			docs[docID("proposal", id)] = proposalDoc(p)
		}
		trajs, err := bs.TrajectoriesByID(byKind["trajectory"])
		if err != nil {
			return nil, fmt.Errorf("index: read changed trajectories: %w", err)
		}
		for id, tr := range trajs {
			docs[docID("trajectory", id)] = trajectoryDoc(tr)
		}
	} else {
		for _, c := range changes {
			d, err := ix.load(c)
			if err != nil && !isNotFound(err) {
				return nil, err
			}
			if d != nil {
				docs[docID(c.Kind, c.ID)] = d
			}
		}
	}
	items := make([]tailItem, 0, len(changes))
	seen := make(map[string]bool, len(changes))
	for i := len(changes) - 1; i >= 0; i-- {
		c := changes[i]
		id := docID(c.Kind, c.ID)
		if !slices.Contains(Types, c.Kind) || seen[id] {
			continue
		}
		seen[id] = true
		d := docs[id]
		items = append(items, tailItem{id: id, typ: c.Kind, seq: c.Seq, doc: d, text: docText(d)})
	}
	return items, nil
}

// docText is every string value of d, lower-cased, one per line.
func docText(d doc) string {
	var b strings.Builder
	for _, v := range d {
		switch v := v.(type) {
		case string:
			b.WriteString(strings.ToLower(v))
			b.WriteByte('\n')
		case []string:
			for _, s := range v {
				b.WriteString(strings.ToLower(s))
				b.WriteByte('\n')
			}
		}
	}
	return b.String()
}

// presentIn returns the ids of the tail's changed items that ix holds
// (their indexed version is stale, or deleted from the bank), for one
// generation of ix.
func (t *tail) presentIn(ix *Index) ([]string, error) {
	gen := ix.gen.Load()
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.presentOK && t.presentGen == gen {
		return t.present, nil
	}
	ids := make([]string, 0, len(t.changed))
	for id := range t.changed {
		ids = append(ids, id)
	}
	var present []string
	if len(ids) > 0 && !ix.empty() { // a first build: nothing to leave out
		sr := bleve.NewSearchRequestOptions(query.NewDocIDQuery(ids), len(ids), 0, false)
		sr.Score = "none"
		ix.mu.RLock()
		if ix.idx == nil {
			ix.mu.RUnlock()
			return nil, errClosed
		}
		res, err := searchGuarded(ix.idx, sr)
		ix.mu.RUnlock()
		if err != nil {
			return nil, fmt.Errorf("index: find the changed items it holds: %w", err)
		}
		for _, h := range res.Hits {
			present = append(present, h.ID)
		}
	}
	t.present, t.presentGen, t.presentOK = present, gen, true
	return present, nil
}

// empty reports whether the index holds no document (a first build
// serves an empty one).
func (ix *Index) empty() bool {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if ix.idx == nil {
		return false
	}
	n, err := ix.idx.DocCount()
	return err == nil && n == 0
}

// candidates returns the tail's items, newest first, of type typ (any
// when ""), that the bank still holds, that no chunk holds in that
// version (covered), and that keep passes, at most tailIndexMax of them,
// and how many more passed.
func (t *tail) candidates(typ string, keep pred, also func(doc) bool, covered map[string]int64) (out []tailItem, cut int) {
	for _, it := range t.items {
		if it.doc == nil || covered[it.id] == it.seq || (typ != "" && it.typ != typ) || (keep != nil && !keep(it.text)) || (also != nil && !also(it.doc)) {
			continue
		}
		if len(out) >= tailIndexMax {
			cut++
			continue
		}
		out = append(out, it)
	}
	return out, cut
}

// memIndex is an in-memory index of items, under the same mapping as ix,
// written in one batch (one segment); Close releases it.
func (ix *Index) memIndex(items []tailItem, top int64) (*Index, error) {
	m, err := newMapping()
	if err != nil {
		return nil, fmt.Errorf("index: build mapping: %w", err)
	}
	idx, err := bleve.NewUsing("", m, scorch.Name, scorch.Name, nil)
	if err != nil {
		return nil, fmt.Errorf("index: open an in-memory index: %w", err)
	}
	b := idx.NewBatch()
	for _, it := range items {
		if err := addDoc(idx, b, it.id, maps.Clone(it.doc)); err != nil { // addDoc writes into the doc
			_ = idx.Close()
			return nil, fmt.Errorf("index: %s: %w", it.id, err)
		}
	}
	if err := idx.Batch(b); err != nil {
		_ = idx.Close()
		return nil, fmt.Errorf("index: write the tail: %w", err)
	}
	mem := &Index{src: atSeq{ix.src, top}, idx: idx, estimateOver: ix.estimateOver, sampleTarget: ix.sampleTarget, allHits: ix.allHits}
	mem.seq.Store(top)
	return mem, nil
}

// atSeq is the Source of an in-memory index of the tail: its bank is at
// the tail's top, so its searches say nothing of being behind (the
// merged result does) and ask the bank nothing.
type atSeq struct {
	Source
	seq int64
}

func (s atSeq) LastSeq() (int64, error) { return s.seq, nil }
