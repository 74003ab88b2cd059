// Package index owns the Bleve index derived from bank.db (BANK/index):
// full-text and fielded search over records, proposals and trajectories,
// facets, highlighting, and the retrieval call that gives a task agent its
// records.
//
// The index is disposable. It stores the sequence number of the last bank
// change it holds and catches up from the bank's change feed on Open and on
// Sync; when it is missing, unreadable or written by another version of the
// mapping it is rebuilt from the bank. Losing it loses nothing.
//
// Its sub-packages, ground floor first: bleveext (what leans on Bleve's,
// scorch's, zap's and bbolt's internals, pinned to their versions), schema
// (the mapping and the documents), plan (how a request is answered: the
// strategies, chosen in one place and printable), tail (searching what
// the index does not hold yet), share (one process serves the others).
// index itself opens, builds and catches up the index, and is the door
// the rest of memreview searches through; it imports review's domain
// types and its sub-packages below share.
package index

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/blevesearch/bleve/v2"

	"github.com/memreview/memreview/index/bleveext"
	"github.com/memreview/memreview/index/plan"
	"github.com/memreview/memreview/index/schema"
	"github.com/memreview/memreview/index/tail"
	"github.com/memreview/memreview/review"
)

// Store is what the index reads: the bank's change feed and its items.
// *store.Store satisfies it.
type Store interface {
	LastSeq() (int64, error)
	ChangesSince(seq int64) ([]review.Change, error) // ascending seq
	Record(id string) (*review.Record, error)        // wrapped review.ErrNotFound when gone
	Proposal(id string) (*review.Proposal, error)
	Trajectory(id string) (*review.Trajectory, error)
	Records(f review.RecordFilter) ([]review.Record, error)
	Proposals() ([]review.Proposal, error)
	Trajectories() ([]review.Trajectory, error)
}

// ErrInUse is returned (wrapped) by Open when another process holds the index.
var ErrInUse = errors.New("bank is in use by another memreview process")

// lockTimeout is how long Open waits for another process to release the index.
const lockTimeout = "1s"

// batchSize is how many documents or changes go into one bleve batch.
const batchSize = 1000

// Internal keys stored in the index.
var (
	seqKey     = []byte("memreview_seq")
	mappingKey = []byte("memreview_mapping")
)

// Index is an open Bleve index of one bank. Its methods are safe for
// concurrent use; Sync and Rebuild run one at a time.
type Index struct {
	dir string
	src Store

	tune Tuning

	writeMu sync.Mutex   // serialises Sync, Rebuild and Close
	mu      sync.RWMutex // guards idx: readers search, Rebuild swaps
	idx     bleve.Index
	seq     atomic.Int64
	// gen counts the changes to idx's contents: apply and the swap of a
	// rebuilt index bump it after the write. Caches of search results
	// (facets, type counts: plans) are valid for one generation.
	gen      atomic.Uint64
	plans    plan.State
	shared   bleveext.SharedTermsCache             // SharedTerms's filters and terms, for the snapshot last searched
	progress atomic.Pointer[func(done, total int)] // SetProgress
	tail     *tail.Tail                            // what the index lacks, searched from the bank

	// stop is closed by Close: a catch-up or build in progress stops at
	// its next batch. bg counts the background catch-ups of
	// OpenOptions.Background; busy counts catch-ups running (CatchingUp).
	stop     chan struct{}
	stopOnce sync.Once
	// answered is closed once the first Search or Retrieve has answered:
	// the background work of OpenOptions.Background waits for it (or for
	// firstAnswerWait), so that the first request, which opened the
	// index, does not share the cores with a build.
	answered     chan struct{}
	answeredOnce sync.Once
	bg           sync.WaitGroup
	busy         atomic.Int32
}

// Open opens the index in dir (BANK/index), rebuilding it from src when it
// is missing or unreadable, and catches it up with src's change feed.
func Open(dir string, src Store) (*Index, error) { return OpenWith(dir, src, OpenOptions{}) }

// OpenOptions tune OpenWith.
type OpenOptions struct {
	// Tuning moves the thresholds of the search plan, the tail and the
	// build, and turns strategies off; the zero value is what the program
	// runs (tests set it).
	Tuning Tuning
	// Progress, when set, is told how far the open's build or catch-up has
	// come (see SetProgress), so a first open of a large bank can show it.
	Progress func(done, total int)
	// Background makes OpenWith return as soon as an index is open, and
	// catch up or build in a goroutine: an existing usable index opens at
	// its stored sequence; when there is none, or it is unusable, an empty
	// in-memory one (sequence 0) serves until the build beside it is
	// swapped in. Meanwhile searches read the changes it lacks from the
	// bank (the tail, Results.Direct). Close stops the work at its next
	// batch; a process killed during it loses nothing (the bank is the
	// truth, and the next open resumes).
	Background bool
}

// Tuning holds every threshold and switch of the index that tests move:
// they are options passed at open, never changed on an open index.
type Tuning struct {
	// Plan is the search plan's (plan.Tuning): estimate and rank
	// thresholds, and strategies turned off.
	Plan plan.Tuning
	// NoChunks turns the tail's background chunks off, and ChunkSize
	// replaces their size (1,000 items; a size set builds chunks even for
	// a tail that fits one search's candidates).
	NoChunks  bool
	ChunkSize int
	// RebuildMin replaces rebuildMin: a change feed longer than that and
	// than a quarter of the index's documents is rebuilt, not replayed
	// (tests take the rebuild path with small feeds).
	RebuildMin int
	// Build tunes how a build feeds Bleve (benchmarks).
	Build BuildTuning
}

// BuildTuning tunes how a build feeds Bleve; the zero value is what the
// program runs.
type BuildTuning struct {
	// Feeders replaces buildFeeders, the goroutines feeding batches.
	Feeders int
	// Batch replaces buildBatch, the documents in one batch.
	Batch int
	// Scorch is scorch configuration a build adds to its own.
	Scorch map[string]interface{}
	// Safe makes every batch of a build wait until it is on disk (not
	// unsafe_batch).
	Safe bool
}

// newIndex is an Index of src in dir, not yet open.
func newIndex(dir string, src Store, t Tuning) *Index {
	ix := &Index{dir: dir, src: src, tune: t, stop: make(chan struct{}), answered: make(chan struct{})}
	ix.tail = tail.New(src, tailView{ix}, tail.Options{Plan: t.Plan, NoChunks: t.NoChunks, ChunkSize: t.ChunkSize}, ix.stop)
	return ix
}

// OpenWith is Open with options.
func OpenWith(dir string, src Store, opt OpenOptions) (*Index, error) {
	ix := newIndex(dir, src, opt.Tuning)
	if opt.Progress != nil {
		ix.SetProgress(opt.Progress)
	}
	if opt.Background {
		return ix.openBackground()
	}
	idx, err := openDir(dir)
	if errors.Is(err, ErrInUse) {
		return nil, err
	}
	if err == nil {
		var ok bool
		ok, err = ix.usable(idx)
		if !ok || err != nil {
			_ = idx.Close()
			idx = nil
		}
	}
	if idx == nil {
		// A missing or half-written index may be another process's build,
		// done by the time the lock is ours; a damaged one is rebuilt
		// without another look (a panicked open can leave its lock held).
		if idx, err = ix.buildOnce(err != nil && !errors.Is(err, ErrCorrupt)); err != nil {
			return nil, err
		}
	}
	ix.idx = idx
	if err := ix.Sync(); err != nil {
		_ = ix.Close()
		return nil, err
	}
	return ix, nil
}

// usable reads the stored seq and reports whether idx can be caught up:
// written by this mapping version and not ahead of the bank (an index ahead
// of the bank belongs to another bank or to one restored from a backup).
func (ix *Index) usable(idx bleve.Index) (bool, error) {
	mv, err := idx.GetInternal(mappingKey)
	if err != nil || string(mv) != schema.Version {
		return false, err
	}
	seq, err := readSeq(idx)
	if err != nil {
		return false, err
	}
	last, err := ix.src.LastSeq()
	if err != nil {
		return false, fmt.Errorf("index: read the bank's change sequence: %w", err)
	}
	if seq > last {
		return false, nil
	}
	ix.seq.Store(seq)
	return true, nil
}

// openDir opens an existing index, failing with ErrInUse when another
// process holds it.
//
// Bleve and bbolt panic on some damaged files (a bolt page that fails an
// assertion, a segment whose lengths point past its end): the panic is
// recovered here and reported as ErrCorrupt, so that Open rebuilds the
// index as it does a missing one. Damage that would not panic but
// exhaust memory (a fatal error) is found first by each segment's
// checksum (checkSegments).
func openDir(dir string) (idx bleve.Index, err error) {
	defer func() {
		if p := recover(); p != nil {
			idx, err = nil, fmt.Errorf("open index %s: %w: %v", dir, ErrCorrupt, p)
		}
	}()
	release, err := bleveext.LockFor(dir, time.Second)
	if errors.Is(err, bleveext.ErrLocked) {
		return nil, fmt.Errorf("open index %s: %w", dir, ErrInUse)
	}
	if err != nil {
		return nil, err
	}
	segs, err := bleveext.CheckSegments(dir)
	release()
	if err != nil {
		return nil, err
	}
	// bleve keeps the config an index was created with (index_meta.json)
	// and a build creates it with unsafe_batch: every later batch must be
	// on disk when Batch returns.
	idx, err = bleve.OpenUsing(dir, map[string]interface{}{"bolt_timeout": lockTimeout, "unsafe_batch": false})
	if err == nil {
		bleveext.MarkChecked(dir, segs)
	}
	if bleveext.LockTimeout(err) {
		return nil, fmt.Errorf("open index %s: %w", dir, ErrInUse)
	}
	if err != nil {
		return nil, fmt.Errorf("open index %s: %w", dir, err)
	}
	return idx, nil
}

func readSeq(idx bleve.Index) (int64, error) {
	b, err := idx.GetInternal(seqKey)
	if err != nil {
		return 0, fmt.Errorf("index: read stored sequence: %w", err)
	}
	if len(b) == 0 {
		return 0, nil
	}
	seq, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("index: stored sequence %q: %w", b, err)
	}
	return seq, nil
}

// Seq returns the sequence number of the last bank change the index holds.
func (ix *Index) Seq() int64 { return ix.seq.Load() }

// DocCount returns how many documents the index holds, once a background
// catch-up or build of OpenOptions.Background is done (callers use it to
// have the index built: IndexDocs, sample gen).
func (ix *Index) DocCount() (uint64, error) {
	ix.answer() // the caller waits for the work: it need not wait for a request
	ix.bg.Wait()
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if ix.idx == nil {
		return 0, errClosed
	}
	return ix.idx.DocCount()
}

var errClosed = errors.New("index is closed")

// Close closes the index, stopping a catch-up in progress. It is safe to
// call more than once.
func (ix *Index) Close() error {
	ix.stopOnce.Do(func() {
		if ix.stop != nil {
			close(ix.stop)
		}
	})
	ix.bg.Wait()
	ix.tail.Close()
	ix.writeMu.Lock()
	defer ix.writeMu.Unlock()
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.idx == nil {
		return nil
	}
	err := ix.idx.Close()
	ix.idx = nil
	if err != nil {
		return fmt.Errorf("close index %s: %w", ix.dir, err)
	}
	return nil
}

// Rebuild builds the index again from the bank (memreview reindex), beside
// the open one, then swaps it in and catches it up. Searches keep using the
// old index until the swap.
func (ix *Index) Rebuild() error {
	ix.writeMu.Lock()
	defer ix.writeMu.Unlock()
	if ix.idx == nil { // only Close and Rebuild change idx, both under writeMu
		return errClosed
	}
	return ix.rebuildLocked()
}

// rebuildLocked is Rebuild for a caller holding writeMu; it ends with a
// replay of the changes made while it built.
func (ix *Index) rebuildLocked() error {
	release, err := buildLock(ix.dir)
	if err != nil {
		return err
	}
	defer release()
	return ix.buildAndSwap()
}

// buildAndSwap builds the index beside the open one, swaps it in and
// replays the changes made while it built. Callers hold writeMu and the
// build lock. A Close meanwhile stops it before the swap (the next open
// finds index.new half-way and builds again).
func (ix *Index) buildAndSwap() error {
	return ix.buildAndSwapFrom(ix.buildSource())
}

// buildAndSwapFrom is buildAndSwap of src's items.
func (ix *Index) buildAndSwapFrom(src Store) error {
	fresh, err := buildFrom(ix.dir+".new", src, ix.report, ix.tune.Build)
	if err != nil {
		return err
	}
	if err := fresh.Close(); err != nil {
		return fmt.Errorf("index: close rebuilt index: %w", err)
	}
	if ix.stopped() {
		return errStopped
	}
	ix.mu.Lock()
	err = ix.idx.Close()
	ix.idx = nil
	if err == nil {
		ix.idx, err = swapIn(ix.dir)
	}
	ix.gen.Add(2) // even: no write in progress (withoutTail)
	ix.mu.Unlock()
	if err != nil {
		return err
	}
	if err := ix.readStoredSeq(); err != nil {
		return err
	}
	changes, err := ix.src.ChangesSince(ix.seq.Load())
	if err != nil {
		return fmt.Errorf("index: read the bank's changes since %d: %w", ix.seq.Load(), err)
	}
	return ix.replay(changes)
}

func (ix *Index) readStoredSeq() error {
	seq, err := readSeq(ix.idx)
	if err != nil {
		return err
	}
	ix.seq.Store(seq)
	return nil
}

// buildOnce builds the index that OpenWith found missing or unusable,
// holding the build lock, so that one building it now makes this open
// fail with ErrInUse. With recheck, it first opens the index again: a
// process that built it while this one looked leaves an index to use.
func (ix *Index) buildOnce(recheck bool) (bleve.Index, error) {
	release, err := buildLock(ix.dir)
	if err != nil {
		return nil, err
	}
	defer release()
	if !recheck {
		return ix.rebuild()
	}
	idx, err := openDir(ix.dir)
	if errors.Is(err, ErrInUse) {
		return nil, err
	}
	if err == nil {
		if ok, uerr := ix.usable(idx); ok && uerr == nil {
			return idx, nil
		}
		_ = idx.Close()
	}
	return ix.rebuild()
}

// rebuild builds a new index beside dir, swaps it in and opens it.
func (ix *Index) rebuild() (bleve.Index, error) {
	fresh, err := ix.build(ix.dir + ".new")
	if err == nil {
		err = fresh.Close()
	}
	if err != nil {
		return nil, err
	}
	idx, err := swapIn(ix.dir)
	if err != nil {
		return nil, err
	}
	seq, err := readSeq(idx)
	if err != nil {
		_ = idx.Close()
		return nil, err
	}
	ix.seq.Store(seq)
	return idx, nil
}

// swapIn replaces dir with dir+".new" and opens it.
func swapIn(dir string) (bleve.Index, error) {
	if err := os.RemoveAll(dir); err != nil {
		return nil, fmt.Errorf("index: remove old index: %w", err)
	}
	if err := os.Rename(dir+".new", dir); err != nil {
		return nil, fmt.Errorf("index: swap in rebuilt index: %w", err)
	}
	return openDir(dir)
}
