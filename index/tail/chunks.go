package tail

import (
	"cmp"
	"sync"
)

// A search while the index is behind indexes the tail's candidates in
// memory (search.go); done per search, that is most of its cost (a
// few hundred milliseconds for a broad query's 2,000 candidates). So the
// tail is also indexed once, in the background, newest first, in chunks
// of tailChunkSize items: each chunk an in-memory index that never
// changes once built, and an item in one chunk only. A search reads the chunks built so far (a
// snapshot), leaves out the items of theirs that changed again or that
// the index has reached since (by id), and indexes per search only the
// candidates no chunk holds yet. At most tailMax items are held in
// chunks; the chunks go when the index catches up.

// tailChunkSize is how many items one chunk indexes.
const tailChunkSize = 1000

// tailChunk is one in-memory index of tail items, never changed once
// built. refs counts the searches using it; dead chunks close when unused.
type tailChunk struct {
	mem  *mem
	seqs map[string]int64 // document id → the seq of the version it holds
	refs int
	dead bool
}

// tailChunks is an Index's chunks and the goroutine that grows them.
type tailChunks struct {
	mu      sync.Mutex
	chunks  []*tailChunk     // copy on write
	covered map[string]int64 // union of the chunks' seqs (copy on write)
	want    *span            // the newest tail the grower should cover
	running bool
	closed  bool // closeChunks: no grower starts again
	wg      sync.WaitGroup
}

// chunkSnap is what one search reads of the chunks.
type chunkSnap struct {
	chunks  []*tailChunk
	covered map[string]int64
}

// chunkSnapshot returns the chunks built so far, held until release, and
// starts the grower when t has items they lack.
func (tl *Tail) chunkSnapshot(t *span) (chunkSnap, func()) {
	c := &tl.chunks
	c.mu.Lock()
	defer c.mu.Unlock()
	snap := chunkSnap{chunks: c.chunks, covered: c.covered}
	for _, ch := range snap.chunks {
		ch.refs++
	}
	c.want = t
	// A tail the per-search candidates hold whole (at most tailIndexMax
	// items) needs no chunks: its index is built once per candidate set
	// and cached (memCache).
	if !c.running && !c.closed && !tl.opt.NoChunks && !tl.stopped() && tl.stop != nil && (len(t.items) > tailIndexMax || tl.opt.ChunkSize > 0) {
		c.running = true
		c.wg.Add(1)
		go tl.growChunks()
	}
	return snap, func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		for _, ch := range snap.chunks {
			ch.refs--
			closeIfDead(ch)
		}
	}
}

func closeIfDead(ch *tailChunk) {
	if ch.dead && ch.refs == 0 && ch.mem != nil {
		_ = ch.mem.Close()
		ch.mem = nil
	}
}

// growChunks builds chunks of the newest items of the wanted tail that no
// chunk holds, and drops the chunks whose items are all stale, until
// there is nothing to do or the index closes.
func (tl *Tail) growChunks() {
	c := &tl.chunks
	defer c.wg.Done()
	for !tl.stopped() {
		c.mu.Lock()
		t, covered := c.want, c.covered
		c.mu.Unlock()
		if t == nil {
			break
		}
		var batch []tailItem
		held := len(covered)
		for _, it := range t.items {
			if len(batch) >= cmp.Or(tl.opt.ChunkSize, tailChunkSize) || held+len(batch) >= tailMax {
				break
			}
			// An item a chunk holds in an older version stays out of
			// the chunks: the old version is left out of every search
			// by id, so the new one must be elsewhere (each search's
			// own candidates).
			if _, held := covered[it.id]; it.doc != nil && !held {
				batch = append(batch, it)
			}
		}
		if len(batch) == 0 {
			tl.dropStaleChunks(t)
			c.mu.Lock()
			done := c.want == t
			if done {
				c.running = false
			}
			c.mu.Unlock()
			if done {
				return
			}
			continue
		}
		mem, err := tl.memIndex(batch)
		if err != nil {
			break
		}
		ch := &tailChunk{mem: mem, seqs: make(map[string]int64, len(batch))}
		for _, it := range batch {
			ch.seqs[it.id] = it.seq
		}
		c.mu.Lock()
		if c.want == nil { // caught up meanwhile (dropChunks)
			c.mu.Unlock()
			_ = mem.Close()
			continue
		}
		nc := make(map[string]int64, len(c.covered)+len(batch))
		for id, s := range c.covered {
			nc[id] = s
		}
		for id, s := range ch.seqs {
			nc[id] = s
		}
		c.chunks = append(append([]*tailChunk(nil), c.chunks...), ch)
		c.covered = nc
		c.mu.Unlock()
		tl.dropStaleChunks(t)
	}
	c.mu.Lock()
	c.running = false
	c.mu.Unlock()
}

// dropStaleChunks removes the chunks none of whose items t still holds in
// that version (the index reached them, or they changed again).
func (tl *Tail) dropStaleChunks(t *span) {
	c := &tl.chunks
	c.mu.Lock()
	defer c.mu.Unlock()
	var keep []*tailChunk
	covered := map[string]int64{}
	dropped := false
	for _, ch := range c.chunks {
		live := false
		for id, s := range ch.seqs {
			if t.changed[id] == s {
				live = true
				break
			}
		}
		if !live {
			ch.dead, dropped = true, true
			closeIfDead(ch)
			continue
		}
		keep = append(keep, ch)
		for id, s := range ch.seqs {
			covered[id] = s
		}
	}
	if dropped {
		c.chunks, c.covered = keep, covered
	}
}

// closeChunks stops the grower and closes every chunk (Close, or the
// index caught up).
func (tl *Tail) closeChunks() {
	c := &tl.chunks
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	c.wg.Wait()
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, ch := range c.chunks {
		ch.dead = true
		closeIfDead(ch)
	}
	c.chunks, c.covered, c.want = nil, nil, nil
}

// WaitChunks waits until the background chunks hold the tail as it is
// now (tests, benchmarks).
func (tl *Tail) WaitChunks() error {
	t, err := tl.current()
	if err != nil || t == nil {
		return err
	}
	_, release := tl.chunkSnapshot(t)
	release()
	tl.chunks.wg.Wait()
	return nil
}

// Chunks is how many background chunks hold tail items now.
func (tl *Tail) Chunks() int {
	tl.chunks.mu.Lock()
	defer tl.chunks.mu.Unlock()
	return len(tl.chunks.chunks)
}

// dropChunks lets the chunks go once the index has caught up: each
// closes when no search uses it, and the grower stops.
func (tl *Tail) dropChunks() {
	c := &tl.chunks
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.chunks == nil && c.want == nil {
		return
	}
	for _, ch := range c.chunks {
		ch.dead = true
		closeIfDead(ch)
	}
	c.chunks, c.covered, c.want = nil, nil, nil
}

// each calls f with each chunk of snap that t still holds items of, and
// the ids of its items whose version t no longer holds (to leave out).
// The chunks are searched one by one, not through a bleve alias, which
// would run the pipeline's stateful queries (topScoreQuery, tallyQuery)
// on all of them at once.
func (snap chunkSnap) each(t *span, f func(m *mem, stale []string) error) error {
	for _, ch := range snap.chunks {
		var stale []string
		for id, s := range ch.seqs {
			if t.changed[id] != s {
				stale = append(stale, id)
			}
		}
		if len(stale) == len(ch.seqs) {
			continue
		}
		if err := f(ch.mem, stale); err != nil {
			return err
		}
	}
	return nil
}
