// Package tail searches what the index does not hold yet. While the
// index is behind the bank (a catch-up or a rebuild still running, or
// writes since the last Sync), a search also reads the items changed
// after the index's sequence from the bank, the newest tailMax of them,
// and searches them directly: the tail. Search and Retrieve run the same
// request on the index, without the documents the tail holds a newer
// version of (or knows are deleted), and on in-memory indexes of the
// tail's items that can match it, under the same mapping and the same
// plan, and merge the answers (search.go).
//
// The tail is read once per change: a later search reads only the changes
// made since, and drops those the index has reached. The tail's items are
// also indexed in the background, in chunks (chunks.go).
//
// tail imports Bleve, index/plan, index/schema and review's domain types;
// the index package gives it the bank and the index (Store, Index).
package tail

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/memreview/memreview/index/plan"
	"github.com/memreview/memreview/index/schema"
	"github.com/memreview/memreview/review"
)

// tailMax caps the changed items a search reads from the bank; older
// changes the index does not hold yet are not searchable until it does
// (Results.Unsearched counts them).
const tailMax = 20_000

// tailIndexMax caps the items of the tail, newest first, that pass a
// search's prefilter and are indexed in memory for it; the rest are
// counted in Results.Unsearched.
const tailIndexMax = 500

// Store is what the tail reads of the bank (index.Store has it).
type Store interface {
	LastSeq() (int64, error)
	ChangesSince(seq int64) ([]review.Change, error) // ascending seq
	schema.Items
}

// Index is what the tail needs of the bank's index.
type Index interface {
	// Seq is the sequence of the last bank change the index holds.
	Seq() int64
	// Gen is the generation of the index's contents: it moves before and
	// after each write, and is odd while one runs.
	Gen() uint64
	// Empty reports whether the index holds no document (a first build
	// serves an empty one).
	Empty() bool
	// Holding returns those of ids (schema.DocID) that the index holds.
	Holding(ids []string) ([]string, error)
	// Search runs req on the index, without the documents opt.Exclude
	// names, with Results.Behind set.
	Search(req plan.Request, opt plan.Options) (*plan.Results, error)
	// Retrieve is plan.Engine.Retrieve on the index.
	Retrieve(task string, scope review.Scope, k int, exclude []string) ([]plan.Scored, error)
}

// Options tune a Tail.
type Options struct {
	// Plan is the plan's tuning, for the in-memory indexes' searches.
	Plan plan.Tuning
	// NoChunks turns the background chunks off (tests that compare the
	// searches with and without them).
	NoChunks bool
	// ChunkSize replaces tailChunkSize when set; so small a chunk is then
	// built even for a tail that fits one search's candidates (tests).
	ChunkSize int
}

// Tail is the tail of one index: the changes it last read, the in-memory
// indexes of recent candidates and the background chunks. Its methods are
// safe for concurrent use.
type Tail struct {
	src  Store
	ix   Index
	opt  Options
	stop <-chan struct{} // closed when the index closes: the chunks' grower stops

	mu     sync.Mutex // guards cur
	cur    *span      // the last tail read (current)
	mems   memCache   // in-memory indexes of tail candidates
	chunks tailChunks // the tail, indexed in the background (chunks.go)
}

// New is the Tail of ix, an index of src. The background chunks grow only
// while stop is open (never when it is nil).
func New(src Store, ix Index, opt Options, stop <-chan struct{}) *Tail {
	return &Tail{src: src, ix: ix, opt: opt, stop: stop}
}

// Close drops the in-memory indexes and stops the chunks' grower (after
// stop is closed).
func (tl *Tail) Close() {
	tl.mems.clear()
	tl.closeChunks()
}

func (tl *Tail) stopped() bool {
	select {
	case <-tl.stop:
		return true
	default:
		return false
	}
}

// tailItem is one item changed after the index's sequence, as the bank
// holds it now.
type tailItem struct {
	id   string // the bleve document id (schema.DocID)
	typ  string
	seq  int64      // its latest change
	doc  schema.Doc // nil when the bank no longer holds it
	text string     // its values, lower-cased, for the prefilter
}

// span is the bank's changes in (base, top]. It is not changed once
// made (a later search makes a new one); present is filled on first use.
type span struct {
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
func (t *span) unread() int {
	if t.partial {
		return max(t.total-len(t.items), 0)
	}
	return len(t.changed) - len(t.items)
}

// newestSource is what a Store may offer to read only the newest items
// of a long feed (*store.Store has it): a first build at a million
// records then never holds every change in memory.
type newestSource interface {
	NewestChanges(seq int64, limit int) ([]review.Change, int, error)
}

// current returns the bank's changes after the index's sequence, or nil
// when the index is caught up.
func (tl *Tail) current() (*span, error) {
	base := tl.ix.Seq()
	last, err := tl.src.LastSeq()
	if err != nil {
		return nil, fmt.Errorf("index: read the bank's change sequence: %w", err)
	}
	if last <= base {
		tl.dropChunks()
		return nil, nil
	}
	tl.mu.Lock()
	defer tl.mu.Unlock()
	t := tl.cur
	if t == nil || t.base > base || (t.partial && base > t.base) {
		t, err = tl.readTail(base)
	} else {
		if last > t.top {
			t, err = tl.extendTail(t)
		}
		if err == nil && base > t.base {
			t = t.trim(base)
		}
	}
	if err != nil {
		return nil, err
	}
	tl.cur = t
	return t, nil
}

// readTail reads the changes after base and the newest tailMax items they
// name.
func (tl *Tail) readTail(base int64) (*span, error) {
	if ns, ok := tl.src.(newestSource); ok && tl.ix.Empty() {
		changes, total, err := ns.NewestChanges(base, tailMax)
		if err != nil {
			return nil, fmt.Errorf("index: read the bank's newest changes since %d: %w", base, err)
		}
		t := &span{base: base, top: base, changed: make(map[string]int64, len(changes)), partial: true, total: total}
		for _, c := range changes {
			t.changed[schema.DocID(c.Kind, c.ID)] = c.Seq
			t.top = max(t.top, c.Seq)
		}
		if t.items, err = tl.readItems(changes); err != nil {
			return nil, err
		}
		return t, nil
	}
	changes, err := tl.src.ChangesSince(base)
	if err != nil {
		return nil, fmt.Errorf("index: read the bank's changes since %d: %w", base, err)
	}
	t := &span{base: base, top: base, changed: make(map[string]int64, len(changes))}
	for _, c := range changes {
		t.changed[schema.DocID(c.Kind, c.ID)] = c.Seq
		t.top = max(t.top, c.Seq)
	}
	newest := changes[max(len(changes)-tailMax, 0):]
	if t.items, err = tl.readItems(newest); err != nil {
		return nil, err
	}
	return t, nil
}

// extendTail is t with the changes made after t.top.
func (tl *Tail) extendTail(t *span) (*span, error) {
	changes, err := tl.src.ChangesSince(t.top)
	if err != nil {
		return nil, fmt.Errorf("index: read the bank's changes since %d: %w", t.top, err)
	}
	fresh, err := tl.readItems(changes[max(len(changes)-tailMax, 0):])
	if err != nil {
		return nil, err
	}
	n := &span{base: t.base, top: t.top, changed: maps.Clone(t.changed), partial: t.partial, total: t.total}
	for _, c := range changes {
		id := schema.DocID(c.Kind, c.ID)
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
func (t *span) trim(base int64) *span {
	n := &span{base: base, top: t.top, changed: make(map[string]int64, len(t.changed))}
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
// the bank holds them now, newest first, in bulk when the Store can
// (schema.Bulk).
func (tl *Tail) readItems(changes []review.Change) ([]tailItem, error) {
	docs, err := schema.LoadAll(tl.src, changes)
	if err != nil {
		return nil, err
	}
	items := make([]tailItem, 0, len(changes))
	seen := make(map[string]bool, len(changes))
	for i := len(changes) - 1; i >= 0; i-- {
		c := changes[i]
		id := schema.DocID(c.Kind, c.ID)
		if !slices.Contains(schema.Types, c.Kind) || seen[id] {
			continue
		}
		seen[id] = true
		d := docs[id]
		items = append(items, tailItem{id: id, typ: c.Kind, seq: c.Seq, doc: d, text: docText(d)})
	}
	return items, nil
}

// docText is every string value of d, lower-cased, one per line.
func docText(d schema.Doc) string {
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

// presentIn returns the ids of t's changed items that the index holds
// (their indexed version is stale, or deleted from the bank), for one
// generation of the index.
func (t *span) presentIn(ix Index) ([]string, error) {
	gen := ix.Gen()
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
	if len(ids) > 0 && !ix.Empty() { // a first build: nothing to leave out
		var err error
		if present, err = ix.Holding(ids); err != nil {
			return nil, fmt.Errorf("index: find the changed items it holds: %w", err)
		}
	}
	t.present, t.presentGen, t.presentOK = present, gen, true
	return present, nil
}

// candidates returns the tail's items, newest first, of type typ (any
// when ""), that the bank still holds, that no chunk holds in that
// version (covered), and that keep passes, at most tailIndexMax of them,
// and how many more passed.
func (t *span) candidates(typ string, keep pred, also func(schema.Doc) bool, covered map[string]int64) (out []tailItem, cut int) {
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
