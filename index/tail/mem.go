package tail

import (
	"fmt"
	"hash/fnv"
	"maps"
	"sync"

	"github.com/blevesearch/bleve/v2"

	"github.com/memreview/memreview/index/plan"
	"github.com/memreview/memreview/index/schema"
)

// mem is an in-memory index of tail items under the bank index's
// mapping, written in one batch (one segment), and the plan's engine on
// it; Close releases it.
type mem struct {
	idx bleve.Index
	eng *plan.Engine
}

func (m *mem) Close() error { return m.idx.Close() }

// memIndex indexes items in memory.
func (tl *Tail) memIndex(items []tailItem) (*mem, error) {
	idx, err := schema.NewMem()
	if err != nil {
		return nil, err
	}
	b := idx.NewBatch()
	for _, it := range items {
		if err := schema.Add(idx, b, it.id, maps.Clone(it.doc)); err != nil { // Add writes into the doc
			_ = idx.Close()
			return nil, fmt.Errorf("index: %s: %w", it.id, err)
		}
	}
	if err := idx.Batch(b); err != nil {
		_ = idx.Close()
		return nil, fmt.Errorf("index: write the tail: %w", err)
	}
	return &mem{idx: idx, eng: plan.NewEngine(idx, tl.opt.Plan, nil, nil)}, nil
}

// memCacheSize is how many in-memory tail indexes an Index keeps: a
// repeated request (the bank browser's blank list, its facets, paging)
// finds the same candidates in the same tail and reuses their index
// instead of indexing them again.
const memCacheSize = 4

// memCache holds the last in-memory indexes of tail candidates, by tail
// and candidate set. An index evicted while a search uses it is closed
// when that search releases it.
type memCache struct {
	mu      sync.Mutex
	entries []*memEntry // most recent last
}

type memEntry struct {
	t     *span
	key   uint64
	mem   *mem
	err   error
	ready chan struct{} // closed once mem or err is set
	refs  int
	dead  bool
}

// candidateKey fingerprints a candidate list (ids and seqs, in order).
func candidateKey(items []tailItem) uint64 {
	h := fnv.New64a()
	var b [8]byte
	for _, it := range items {
		h.Write([]byte(it.id))
		for i := range b {
			b[i] = byte(it.seq >> (8 * i))
		}
		h.Write(b[:])
	}
	return h.Sum64()
}

// acquire returns the in-memory index of items in t, building it when the
// cache lacks it, and the function that releases it.
func (c *memCache) acquire(t *span, items []tailItem, build func() (*mem, error)) (*mem, func(), error) {
	key := candidateKey(items)
	c.mu.Lock()
	var e *memEntry
	for i, x := range c.entries {
		if x.t == t && x.key == key {
			e = x
			c.entries = append(append(c.entries[:i:i], c.entries[i+1:]...), x)
			break
		}
	}
	fresh := e == nil
	if fresh {
		e = &memEntry{t: t, key: key, ready: make(chan struct{})}
		c.entries = append(c.entries, e)
		if len(c.entries) > memCacheSize {
			old := c.entries[0]
			c.entries = c.entries[1:]
			old.dead = true
			c.closeIfUnused(old)
		}
	}
	e.refs++
	c.mu.Unlock()
	if fresh {
		e.mem, e.err = build()
		close(e.ready)
	}
	<-e.ready
	release := func() {
		c.mu.Lock()
		e.refs--
		c.closeIfUnused(e)
		c.mu.Unlock()
	}
	if e.err != nil {
		c.mu.Lock()
		e.dead = true
		c.entries = removeEntry(c.entries, e)
		c.mu.Unlock()
		release()
		return nil, nil, e.err
	}
	return e.mem, release, nil
}

// closeIfUnused closes a dead entry's index once no search holds it.
// Callers hold c.mu.
func (c *memCache) closeIfUnused(e *memEntry) {
	if e.dead && e.refs == 0 && e.mem != nil {
		_ = e.mem.Close()
		e.mem = nil
	}
}

// clear drops every entry (Close).
func (c *memCache) clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, e := range c.entries {
		e.dead = true
		c.closeIfUnused(e)
	}
	c.entries = nil
}

func removeEntry(es []*memEntry, e *memEntry) []*memEntry {
	for i, x := range es {
		if x == e {
			return append(es[:i:i], es[i+1:]...)
		}
	}
	return es
}
