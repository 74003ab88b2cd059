// Package vector is memreview's in-process vector search: cosine top-k
// over record vectors under env, category and tag filters, in pure Go.
//
// Each vector is kept twice: as its sign bits (one bit a dimension),
// scanned with popcount to pick a pool of candidates, and as an int8 (or
// float32) copy that re-ranks the pool by cosine. A filter selects the
// slots that are scanned before anything is ranked, so a selective filter
// never starves the pool. The strategy is chosen per query in one place
// (plan) and can be printed; BENCHMARKS.md ("Vector search and
// embedders") says why binary-then-rerank beat an HNSW graph
// here.
//
// It owns vectors, their labels and the index file; it knows nothing of
// records, stores or embeddings, and imports only the standard library
// and roaring.
package vector

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"
)

// Rerank is how the candidates of the bit scan are scored.
type Rerank uint8

const (
	// Int8 keeps each vector as int8 with one scale: a quarter of float32's
	// memory; scores differ from exact cosine by well under 1%.
	Int8 Rerank = 1
	// Float32 keeps each vector as given (normalised): exact cosine.
	Float32 Rerank = 2
)

func (r Rerank) String() string {
	switch r {
	case Int8:
		return "int8"
	case Float32:
		return "float32"
	}
	return fmt.Sprintf("rerank(%d)", uint8(r))
}

// Options configure an Index.
type Options struct {
	// Model names the embedding model the vectors come from; it is written
	// in the file's header so vectors of another model are never mixed in.
	Model string
	// Dims is every vector's length.
	Dims int
	// Rerank is how candidates are scored; zero means Int8.
	Rerank Rerank
	// Pool is how many candidates of the bit scan are re-ranked for a
	// query of k hits: max(Pool, PoolPerHit*k); zero means DefaultPool(Dims).
	Pool int
	// PoolPerHit: see Pool; zero means 20.
	PoolPerHit int
	// Exhaustive re-ranks every candidate the filter allows (exact search,
	// no bit scan): the peer the benchmarks measure recall against.
	Exhaustive bool
	// Shortlist: for vectors of over 512 dimensions, the bit scan first
	// compares the first 256 bits and keeps max(Shortlist × pool, 1/64 of
	// the candidates) for the full comparison; zero means 8. (The full
	// comparison reads each shortlisted vector's bits at random, so the
	// shortlist is kept short; at 100,000 × 1,536, pool 400: recall@10
	// 0.995 at 8, 0.998 at 32 for twice the CPU.)
	Shortlist int
	// Workers is how many goroutines scan one query; zero: GOMAXPROCS.
	Workers int
}

// DefaultPool is the re-rank pool for vectors of dims dimensions: fewer
// bits carry less of the angle, so short vectors re-rank more candidates.
// Chosen by measurement (BENCHMARKS.md, "Vector search and embedders") for recall@10 >= 0.95.
func DefaultPool(dims int) int {
	switch {
	case dims >= 1024:
		return 400
	case dims >= 512:
		return 800
	default:
		return 1500
	}
}

// Entry is one vector and the labels a filter can select it by. An empty
// Env or Category, or no Tags, is itself a label: a Filter naming ""
// selects such entries (a record scoped to no env applies to every env).
type Entry struct {
	ID            string
	Vector        []float32
	Env, Category string
	Tags          []string
}

// Filter restricts a search. Within one field any listed value matches;
// fields combine with AND; an empty field does not restrict. "" selects
// entries with no value in that field (no env, no category, no tags).
// Exclude leaves out the named ids.
type Filter struct {
	Envs, Categories, Tags []string
	Exclude                []string
}

func (f Filter) restricts() bool {
	return len(f.Envs) > 0 || len(f.Categories) > 0 || len(f.Tags) > 0
}

// Hit is one result: an id and its cosine similarity to the query.
type Hit struct {
	ID    string
	Score float32
}

// Index holds vectors by id. It is safe for concurrent use: searches run
// together, writes one at a time.
type Index struct {
	mu    sync.RWMutex
	opt   Options
	words int // uint64 words of sign bits per vector
	seq   uint64

	ids   []string // by slot; "" for a free slot
	slot  map[string]uint32
	free  []uint32
	alive []uint64 // bitset over slots
	live  int

	// The sign bits of each slot, split in two: head (the first
	// headWords words) is scanned for every candidate, tail only for the
	// shortlist the head leaves (long vectors; see scanBits).
	head, tail slab[uint64]
	codes      slab[int8]    // Dims per slot (Int8)
	scales     []float32     // per slot (Int8)
	floats     slab[float32] // Dims per slot (Float32)

	env, cat *labels
	tags     *labels
	slotEnv  []uint32
	slotCat  []uint32
	slotTags [][]uint32
}

// New returns an empty index.
func New(opt Options) (*Index, error) {
	if opt.Dims <= 0 || opt.Dims > maxDims {
		return nil, fmt.Errorf("vector index: dims %d out of range 1..%d", opt.Dims, maxDims)
	}
	if len(opt.Model) > maxModel {
		return nil, fmt.Errorf("vector index: model name of %d bytes (at most %d)", len(opt.Model), maxModel)
	}
	if opt.Rerank == 0 {
		opt.Rerank = Int8
	}
	if opt.Rerank != Int8 && opt.Rerank != Float32 {
		return nil, fmt.Errorf("vector index: unknown rerank %v", opt.Rerank)
	}
	if opt.Pool <= 0 {
		opt.Pool = DefaultPool(opt.Dims)
	}
	if opt.PoolPerHit <= 0 {
		opt.PoolPerHit = 20
	}
	if opt.Shortlist <= 0 {
		opt.Shortlist = 8
	}
	if opt.Workers <= 0 {
		opt.Workers = runtime.GOMAXPROCS(0)
	}
	ix := &Index{
		opt:   opt,
		words: (opt.Dims + 63) / 64,
		slot:  map[string]uint32{},
		env:   newLabels(), cat: newLabels(), tags: newLabels(),
	}
	hw := ix.words
	if hw > splitAbove {
		hw = headWords
	}
	ix.head.width, ix.tail.width = hw, ix.words-hw
	if opt.Rerank == Int8 {
		ix.codes.width = opt.Dims
	} else {
		ix.floats.width = opt.Dims
	}
	return ix, nil
}

// Vectors of more than splitAbove words of bits (512 dimensions) are
// scanned in two steps: their first headWords words (256 dimensions),
// then the rest for the best of those.
const (
	splitAbove = 8
	headWords  = 4
)

const (
	maxDims  = 1<<15 - 1 // distances fit a uint16
	maxModel = 1 << 10
)

// Model is the embedding model the index holds vectors of.
func (ix *Index) Model() string { return ix.opt.Model }

// Dims is the length of every vector.
func (ix *Index) Dims() int { return ix.opt.Dims }

// Len is how many vectors the index holds.
func (ix *Index) Len() int {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return ix.live
}

// Seq is the caller's change sequence the index holds everything up to
// (kept in the file so a reopened index knows where to catch up from).
func (ix *Index) Seq() uint64 {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return ix.seq
}

// SetSeq records the change sequence the index now holds.
func (ix *Index) SetSeq(s uint64) {
	ix.mu.Lock()
	ix.seq = s
	ix.mu.Unlock()
}

// Has reports whether id has a vector.
func (ix *Index) Has(id string) bool {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	_, ok := ix.slot[id]
	return ok
}

// ErrZeroVector is returned for a vector of length zero (all zeros).
var ErrZeroVector = errors.New("vector has no direction (every value is zero)")

// checkVector returns v normalised to unit length, or why it cannot be.
func (ix *Index) checkVector(v []float32) ([]float32, error) {
	if len(v) != ix.opt.Dims {
		return nil, fmt.Errorf("vector of %d dimensions, index holds %d", len(v), ix.opt.Dims)
	}
	var ss float64
	for i, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return nil, fmt.Errorf("value %d of the vector is %v", i, x)
		}
		ss += float64(x) * float64(x)
	}
	if ss == 0 {
		return nil, ErrZeroVector
	}
	inv := float32(1 / math.Sqrt(ss))
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = x * inv
	}
	return out, nil
}

// Add stores e, replacing the vector and labels id had.
func (ix *Index) Add(e Entry) error {
	if e.ID == "" {
		return errors.New("vector index: entry without an id")
	}
	v, err := ix.checkVector(e.Vector)
	if err != nil {
		return fmt.Errorf("vector index: %s: %w", e.ID, err)
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	s, ok := ix.slot[e.ID]
	if ok {
		ix.unlabel(s)
	} else {
		s = ix.takeSlot()
		ix.ids[s] = e.ID
		ix.slot[e.ID] = s
		ix.alive[s/64] |= 1 << (s % 64)
		ix.live++
	}
	ix.store(s, v)
	ix.label(s, e.Env, e.Category, e.Tags)
	return nil
}

// Delete removes id's vector; it reports whether there was one.
func (ix *Index) Delete(id string) bool {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	s, ok := ix.slot[id]
	if !ok {
		return false
	}
	ix.unlabel(s)
	delete(ix.slot, id)
	ix.ids[s] = ""
	ix.alive[s/64] &^= 1 << (s % 64)
	ix.live--
	ix.free = append(ix.free, s)
	return true
}

// takeSlot returns a free slot, growing the arrays when none is.
func (ix *Index) takeSlot() uint32 {
	if n := len(ix.free); n > 0 {
		s := ix.free[n-1]
		ix.free = ix.free[:n-1]
		return s
	}
	s := uint32(len(ix.ids))
	ix.ids = append(ix.ids, "")
	if int(s)/64 >= len(ix.alive) {
		ix.alive = append(ix.alive, 0)
	}
	ix.head.ensure(s)
	ix.tail.ensure(s)
	if ix.opt.Rerank == Int8 {
		ix.codes.ensure(s)
		ix.scales = append(ix.scales, 0)
	} else {
		ix.floats.ensure(s)
	}
	ix.slotEnv = append(ix.slotEnv, 0)
	ix.slotCat = append(ix.slotCat, 0)
	ix.slotTags = append(ix.slotTags, nil)
	return s
}

// store writes the unit vector v into slot s.
func (ix *Index) store(s uint32, v []float32) {
	bits := make([]uint64, ix.words)
	signBits(v, bits)
	ix.setBits(s, bits)
	if ix.opt.Rerank == Int8 {
		ix.scales[s] = quantise(v, ix.codes.at(s))
	} else {
		copy(ix.floats.at(s), v)
	}
}

// setBits stores slot s's sign bits; bits returns them whole.
func (ix *Index) setBits(s uint32, bits []uint64) {
	copy(ix.head.at(s), bits)
	copy(ix.tail.at(s), bits[ix.head.width:])
}

func (ix *Index) bits(s uint32) []uint64 {
	return append(append(make([]uint64, 0, ix.words), ix.head.at(s)...), ix.tail.at(s)...)
}

// label files slot s under its env, category and tags.
func (ix *Index) label(s uint32, env, cat string, tags []string) {
	ix.slotEnv[s] = ix.env.add(env, s)
	ix.slotCat[s] = ix.cat.add(cat, s)
	if len(tags) == 0 {
		ix.slotTags[s] = []uint32{ix.tags.add("", s)}
		return
	}
	ts := make([]uint32, 0, len(tags))
	for _, t := range tags {
		id := ix.tags.add(t, s)
		dup := false
		for _, x := range ts {
			dup = dup || x == id
		}
		if !dup {
			ts = append(ts, id)
		}
	}
	ix.slotTags[s] = ts
}

// unlabel takes slot s out of every posting it is in.
func (ix *Index) unlabel(s uint32) {
	ix.env.remove(ix.slotEnv[s], s)
	ix.cat.remove(ix.slotCat[s], s)
	for _, t := range ix.slotTags[s] {
		ix.tags.remove(t, s)
	}
	ix.slotTags[s] = nil
}

// entryLabels is slot s's env, category and tags (for Save).
func (ix *Index) entryLabels(s uint32) (env, cat string, tags []string) {
	env = ix.env.names[ix.slotEnv[s]]
	cat = ix.cat.names[ix.slotCat[s]]
	for _, t := range ix.slotTags[s] {
		if n := ix.tags.names[t]; n != "" {
			tags = append(tags, n)
		}
	}
	return env, cat, tags
}

// MemoryBytes is what the index's own arrays and postings hold (not the
// Go runtime's overhead around them).
func (ix *Index) MemoryBytes() uint64 {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	n := (ix.head.values()+ix.tail.values())*8 + ix.codes.values() + uint64(len(ix.scales))*4 +
		ix.floats.values()*4 + uint64(len(ix.alive))*8 +
		uint64(len(ix.slotEnv)+len(ix.slotCat))*4 + uint64(len(ix.slotTags))*24
	for _, id := range ix.ids {
		n += 16 + uint64(len(id)) + 16 // string header, bytes, map entry (approx.)
	}
	for _, ts := range ix.slotTags {
		n += uint64(len(ts)) * 4
	}
	return n + ix.env.size() + ix.cat.size() + ix.tags.size()
}
