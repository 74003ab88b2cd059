package vector

import (
	"errors"
	"fmt"
	"math/bits"
	"sort"
	"sync"
)

// Strategy names how one query is answered.
type Strategy string

const (
	// Exact scores every vector the filter allows: used when they are no
	// more than the pool, or when the index is Exhaustive.
	Exact Strategy = "exact"
	// BitsRerank scans the allowed vectors' sign bits with popcount, keeps
	// the pool nearest in Hamming distance and scores those.
	BitsRerank Strategy = "bits+rerank"
)

// Plan is how a query runs: chosen in plan, printable for --explain.
type Plan struct {
	Strategy   Strategy
	Candidates int // vectors the filter allows (less Exclude)
	Pool       int // vectors scored
	Rerank     Rerank
}

func (p Plan) String() string {
	if p.Strategy == Exact {
		return fmt.Sprintf("exact: %d candidates scored (%v)", p.Candidates, p.Rerank)
	}
	return fmt.Sprintf("bits+rerank: %d candidates scanned, %d scored (%v)", p.Candidates, p.Pool, p.Rerank)
}

// plan chooses the strategy for k hits over n candidates.
func (ix *Index) plan(k, n int, exhaustive bool) Plan {
	pool := max(ix.opt.Pool, ix.opt.PoolPerHit*k)
	if exhaustive || ix.opt.Exhaustive || n <= pool {
		return Plan{Strategy: Exact, Candidates: n, Pool: n, Rerank: ix.opt.Rerank}
	}
	return Plan{Strategy: BitsRerank, Candidates: n, Pool: pool, Rerank: ix.opt.Rerank}
}

// Explain is the plan a search for k hits under f would run.
func (ix *Index) Explain(k int, f Filter) Plan {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	c := ix.scope(f)
	return ix.plan(k, c.n, false)
}

// scope is the slots a query may return.
type scope struct {
	all   bool     // every live slot
	slots []uint32 // when !all, sorted
	excl  []uint32 // excluded slots inside the scope
	n     int      // slots in scope, less excl
}

func (ix *Index) scope(f Filter) scope {
	c := scope{slots: ix.candidates(f)}
	c.all = c.slots == nil
	total := len(c.slots)
	if c.all {
		total = ix.live
	}
	for _, id := range f.Exclude {
		s, ok := ix.slot[id]
		if !ok {
			continue
		}
		if !c.all {
			i := sort.Search(len(c.slots), func(i int) bool { return c.slots[i] >= s })
			if i == len(c.slots) || c.slots[i] != s {
				continue
			}
		}
		dup := false
		for _, x := range c.excl {
			dup = dup || x == s
		}
		if !dup {
			c.excl = append(c.excl, s)
		}
	}
	c.n = total - len(c.excl)
	return c
}

func (c scope) excluded(s uint32) bool {
	for _, x := range c.excl {
		if x == s {
			return true
		}
	}
	return false
}

// Search returns the k entries allowed by f nearest to q by cosine, best
// first (ties to the smaller id). A zero query has no direction and finds
// nothing.
func (ix *Index) Search(q []float32, k int, f Filter) ([]Hit, error) {
	return ix.search(q, k, f, false)
}

// SearchExact is Search scoring every vector the filter allows: the
// reference a recall check measures Search against.
func (ix *Index) SearchExact(q []float32, k int, f Filter) ([]Hit, error) {
	return ix.search(q, k, f, true)
}

func (ix *Index) search(q []float32, k int, f Filter, exhaustive bool) ([]Hit, error) {
	if k <= 0 {
		return nil, nil
	}
	qn, err := ix.checkVector(q)
	if errors.Is(err, ErrZeroVector) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("vector search: query: %w", err)
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	c := ix.scope(f)
	p := ix.plan(k, c.n, exhaustive)
	if p.Candidates == 0 {
		return nil, nil
	}
	var pool []uint32
	if p.Strategy == BitsRerank {
		qb := make([]uint64, ix.words)
		signBits(qn, qb)
		pool = ix.scanBits(qb, c, p.Pool)
	} else {
		pool = ix.scopeSlots(c)
	}
	return ix.rank(qn, pool, k), nil
}

// scopeSlots lists every slot of c.
func (ix *Index) scopeSlots(c scope) []uint32 {
	if !c.all && len(c.excl) == 0 {
		return c.slots
	}
	out := make([]uint32, 0, c.n)
	if c.all {
		for s := range ix.ids {
			if ix.isAlive(uint32(s)) && !c.excluded(uint32(s)) {
				out = append(out, uint32(s))
			}
		}
		return out
	}
	for _, s := range c.slots {
		if !c.excluded(s) {
			out = append(out, s)
		}
	}
	return out
}

func (ix *Index) isAlive(s uint32) bool { return ix.alive[s/64]&(1<<(s%64)) != 0 }

// parallel runs f over [0,n) split into one range per worker, each of
// at least grain items.
func (ix *Index) parallel(n, grain int, f func(w, lo, hi int)) {
	workers := min(ix.opt.Workers, max(1, n/grain))
	if workers <= 1 {
		f(0, 0, n)
		return
	}
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := n*w/workers, n*(w+1)/workers
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(w, lo, hi)
		}()
	}
	wg.Wait()
}

var distPool = sync.Pool{New: func() any { return new([]uint16) }}

// scanBits returns the pool slots of c nearest to qb in Hamming distance
// (ties to the lower slot). Distances are counted into a histogram, so
// each cut-off is found without sorting. Long vectors go in two steps:
// the head's distance, for every candidate, keeps a shortlist (see
// Options.Shortlist); the full distance of those keeps the pool.
func (ix *Index) scanBits(qb []uint64, c scope, pool int) []uint32 {
	n := len(c.slots)
	if c.all {
		n = len(ix.ids)
	}
	dp := distPool.Get().(*[]uint16)
	defer distPool.Put(dp)
	if cap(*dp) < n {
		*dp = make([]uint16, n)
	}
	dist := (*dp)[:n]
	hw := ix.head.width
	none := uint16(hw*64 + 1)
	hists := make([][]int32, ix.opt.Workers)
	ix.parallel(n, 4096, func(wk, lo, hi int) {
		hists[wk] = ix.scanHead(qb[:hw], c, dist, lo, hi, none)
	})
	h := sumHists(hists, int(none)+1)
	for _, s := range c.excl {
		j := c.index(s)
		h[dist[j]]--
		dist[j] = none
	}
	if ix.tail.width == 0 {
		return c.slotsOf(pickNearest(dist, h, pool, none))
	}
	short := pickNearest(dist, h, min(n, max(pool*ix.opt.Shortlist, n/64)), none)
	full := make([]uint16, len(short))
	fnone := uint16(ix.words*64 + 1)
	qt := qb[hw:]
	hists = make([][]int32, ix.opt.Workers)
	ix.parallel(len(short), 1024, func(wk, lo, hi int) {
		hf := make([]int32, fnone+1)
		for i := lo; i < hi; i++ {
			d := int(dist[short[i]]) + hamming(qt, ix.tail.at(c.slot(short[i])))
			full[i] = uint16(d)
			hf[d]++
		}
		hists[wk] = hf
	})
	picked := pickNearest(full, sumHists(hists, int(fnone)+1), pool, fnone)
	out := make([]uint32, len(picked))
	for i, k := range picked {
		out[i] = c.slot(short[k])
	}
	return out
}

// scanHead writes the head distance of candidates [lo,hi) of c into dist
// (none for a free slot) and returns their histogram.
func (ix *Index) scanHead(q []uint64, c scope, dist []uint16, lo, hi int, none uint16) []int32 {
	h := make([]int32, none+1)
	hw := ix.head.width
	if !c.all {
		for j := lo; j < hi; j++ {
			s := c.slots[j]
			o := int(s&blockMask) * hw
			d := headDistance(q, ix.head.blocks[s>>blockShift][o:o+hw:o+hw])
			dist[j] = uint16(d)
			h[d]++
		}
		return h
	}
	// Every slot: a block at a time, the free ones skipped by the alive
	// bitset's words.
	for j := lo; j < hi; {
		blk := ix.head.blocks[j>>blockShift]
		end := min(hi, (j>>blockShift+1)<<blockShift)
		switch hw {
		case 2:
			scan2(q, blk, ix.alive, j, end, dist, h, none)
		case 4:
			scan4(q, blk, ix.alive, j, end, dist, h, none)
		case 6:
			scan6(q, blk, ix.alive, j, end, dist, h, none)
		default:
			for k := j; k < end; k++ {
				if ix.alive[k/64]&(1<<(k%64)) == 0 {
					dist[k] = none
					continue
				}
				o := (k & blockMask) * hw
				d := hamming(q, blk[o:o+hw:o+hw])
				dist[k], h[d] = uint16(d), h[d]+1
			}
		}
		j = end
	}
	return h
}

// scan2, scan4 and scan6 are scanHead's loop over slots [j, end) of one
// block for heads of 2, 4 and 6 words (128, 256 and 384 dimensions, the
// offline embedder's 128 among them), with the query in registers.
func scan2(q, blk, alive []uint64, j, end int, dist []uint16, h []int32, none uint16) {
	q0, q1 := q[0], q[1]
	// Four histograms, slot by slot in turn: consecutive slots at the same
	// distance (most are near the middle) then do not wait on one
	// another's increment.
	var hs [4][2*64 + 1]int32
	for k := j; k < end; k++ {
		if alive[k/64]&(1<<(k%64)) == 0 {
			dist[k] = none
			continue
		}
		b := blk[(k&blockMask)*2:]
		b = b[:2]
		d := bits.OnesCount64(q0^b[0]) + bits.OnesCount64(q1^b[1])
		dist[k] = uint16(d)
		hs[k&3][d]++
	}
	for _, x := range hs {
		for d, n := range x {
			h[d] += n
		}
	}
}

func scan4(q, blk, alive []uint64, j, end int, dist []uint16, h []int32, none uint16) {
	q0, q1, q2, q3 := q[0], q[1], q[2], q[3]
	for k := j; k < end; k++ {
		if alive[k/64]&(1<<(k%64)) == 0 {
			dist[k] = none
			continue
		}
		b := blk[(k&blockMask)*4:]
		b = b[:4]
		d := bits.OnesCount64(q0^b[0]) + bits.OnesCount64(q1^b[1]) +
			bits.OnesCount64(q2^b[2]) + bits.OnesCount64(q3^b[3])
		dist[k] = uint16(d)
		h[d]++
	}
}

func scan6(q, blk, alive []uint64, j, end int, dist []uint16, h []int32, none uint16) {
	q0, q1, q2, q3, q4, q5 := q[0], q[1], q[2], q[3], q[4], q[5]
	for k := j; k < end; k++ {
		if alive[k/64]&(1<<(k%64)) == 0 {
			dist[k] = none
			continue
		}
		b := blk[(k&blockMask)*6:]
		b = b[:6]
		d := bits.OnesCount64(q0^b[0]) + bits.OnesCount64(q1^b[1]) +
			bits.OnesCount64(q2^b[2]) + bits.OnesCount64(q3^b[3]) +
			bits.OnesCount64(q4^b[4]) + bits.OnesCount64(q5^b[5])
		dist[k] = uint16(d)
		h[d]++
	}
}

// headDistance is hamming, unrolled for the usual head widths (128, 256
// and 384 dimensions).
func headDistance(q, b []uint64) int {
	switch len(q) {
	case 2:
		b = b[:2]
		return bits.OnesCount64(q[0]^b[0]) + bits.OnesCount64(q[1]^b[1])
	case 4:
		b = b[:4]
		return bits.OnesCount64(q[0]^b[0]) + bits.OnesCount64(q[1]^b[1]) +
			bits.OnesCount64(q[2]^b[2]) + bits.OnesCount64(q[3]^b[3])
	case 6:
		b = b[:6]
		return bits.OnesCount64(q[0]^b[0]) + bits.OnesCount64(q[1]^b[1]) +
			bits.OnesCount64(q[2]^b[2]) + bits.OnesCount64(q[3]^b[3]) +
			bits.OnesCount64(q[4]^b[4]) + bits.OnesCount64(q[5]^b[5])
	}
	return hamming(q, b)
}

func sumHists(hs [][]int32, n int) []int32 {
	h := make([]int32, n)
	for _, hw := range hs {
		for i, x := range hw {
			h[i] += x
		}
	}
	return h
}

// pickNearest returns the indexes of the k smallest distances (h is
// their histogram; none marks an index to skip), in index order: every
// distance below the cut-off, and at it as many as fill k.
func pickNearest(dist []uint16, h []int32, k int, none uint16) []int {
	cut, below := 0, 0
	for cut < len(h) && below+int(h[cut]) < k {
		below += int(h[cut])
		cut++
	}
	atCut := k - below
	out := make([]int, 0, k)
	for j, d := range dist {
		if d == none {
			continue
		}
		if int(d) < cut || int(d) == cut && atCut > 0 {
			if int(d) == cut {
				atCut--
			}
			out = append(out, j)
		}
	}
	return out
}

// slot is the slot of candidate j; index the candidate of slot s.
func (c scope) slot(j int) uint32 {
	if c.all {
		return uint32(j)
	}
	return c.slots[j]
}

func (c scope) index(s uint32) int {
	if c.all {
		return int(s)
	}
	return sort.Search(len(c.slots), func(i int) bool { return c.slots[i] >= s })
}

func (c scope) slotsOf(js []int) []uint32 {
	out := make([]uint32, len(js))
	for i, j := range js {
		out[i] = c.slot(j)
	}
	return out
}

// score is the cosine of unit q with slot s.
func (ix *Index) score(q []float32, s uint32) float32 {
	if ix.opt.Rerank == Int8 {
		return dotInt8(q, ix.codes.at(s)) * ix.scales[s]
	}
	return dotFloat(q, ix.floats.at(s))
}

// rank scores pool against q and returns the best k.
func (ix *Index) rank(q []float32, pool []uint32, k int) []Hit {
	tops := make([]topK, ix.opt.Workers)
	ix.parallel(len(pool), max(1, 1<<16/ix.opt.Dims), func(w, lo, hi int) {
		t := topK{k: k, ids: ix.ids}
		for _, s := range pool[lo:hi] {
			t.offer(s, ix.score(q, s))
		}
		tops[w] = t
	})
	all := topK{k: k, ids: ix.ids}
	for _, t := range tops {
		for i, s := range t.slots {
			all.offer(s, t.scores[i])
		}
	}
	out := make([]Hit, len(all.slots))
	for i, s := range all.slots {
		out[i] = Hit{ID: ix.ids[s], Score: all.scores[i]}
	}
	return out
}

// topK keeps the k best (score, slot) pairs seen, best first.
type topK struct {
	k      int
	ids    []string
	slots  []uint32
	scores []float32
}

func (t *topK) better(s uint32, sc float32, i int) bool {
	if sc != t.scores[i] {
		return sc > t.scores[i]
	}
	return t.ids[s] < t.ids[t.slots[i]]
}

func (t *topK) offer(s uint32, sc float32) {
	n := len(t.slots)
	if n == t.k && !t.better(s, sc, n-1) {
		return
	}
	i := n
	for i > 0 && t.better(s, sc, i-1) {
		i--
	}
	if n < t.k {
		t.slots = append(t.slots, 0)
		t.scores = append(t.scores, 0)
	}
	copy(t.slots[i+1:], t.slots[i:])
	copy(t.scores[i+1:], t.scores[i:])
	t.slots[i], t.scores[i] = s, sc
}
