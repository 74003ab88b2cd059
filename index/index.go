// Package index owns the Bleve index derived from bank.db (BANK/index):
// full-text and fielded search over records, proposals and trajectories,
// facets, highlighting, and the retrieval call that gives a task agent its
// records.
//
// The index is disposable. It stores the sequence number of the last bank
// change it holds and catches up from the bank's change feed on Open and on
// Sync; when it is missing, unreadable or written by another version of the
// mapping it is rebuilt from the bank. Losing it loses nothing.
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
	"github.com/blevesearch/bleve/v2/index/scorch"
	bolterrors "go.etcd.io/bbolt/errors"

	"github.com/memreview/memreview/review"
)

// Source is what the index reads: the bank's change feed and its items.
// *store.Store satisfies it.
type Source interface {
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

// ErrCorrupt is returned (wrapped) when an index file is damaged so badly
// that reading it panics inside bleve; Open rebuilds such an index, and a
// search that meets one fails with it instead of crashing.
var ErrCorrupt = errors.New("index is corrupt (memreview reindex rebuilds it)")

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
	src Source

	writeMu sync.Mutex   // serialises Sync, Rebuild and Close
	mu      sync.RWMutex // guards idx: readers search, Rebuild swaps
	idx     bleve.Index
	seq     atomic.Int64
	types   atomic.Pointer[typeCount] // cache of typeCounts
	// gen counts the changes to idx's contents: apply and the swap of a
	// rebuilt index bump it after the write. Caches of search results
	// (facets) are valid for one generation.
	gen      atomic.Uint64
	facets   facetCache
	progress atomic.Pointer[func(done, total int)] // SetProgress
	// estimateOver and sampleTarget replace the consts of those names
	// when set, and allHits turns searchTopScores off (tests); so does
	// rankOver, rankWork and rankAfter for those consts.
	estimateOver, sampleTarget uint64
	allHits                    bool
	rankOver                   int
	rankWork, rankAfter        uint64
	// noFirstHits and noFilterIDPage turn firstHits and filterIDPage
	// off (tests that compare both ways).
	noFirstHits, noFilterIDPage bool

	tailMu  sync.Mutex // guards tailCur
	tailCur *tail      // the last tail read (currentTail)
	mems    memCache   // in-memory indexes of tail candidates
	chunks  tailChunks // the tail, indexed in the background (tailchunks.go)
	// noChunks turns the background chunks off, and chunkSize replaces
	// tailChunkSize when set (tests).
	noChunks  bool
	chunkSize int

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
func Open(dir string, src Source) (*Index, error) { return OpenWith(dir, src, OpenOptions{}) }

// OpenOptions tune OpenWith.
type OpenOptions struct {
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

// OpenWith is Open with options.
func OpenWith(dir string, src Source, opt OpenOptions) (*Index, error) {
	ix := &Index{dir: dir, src: src, stop: make(chan struct{}), answered: make(chan struct{})}
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
	if err != nil || string(mv) != mappingVersion {
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
	release, err := lockFor(dir, time.Second)
	if err != nil {
		return nil, err
	}
	segs, err := checkSegments(dir)
	release()
	if err != nil {
		return nil, err
	}
	// bleve keeps the config an index was created with (index_meta.json)
	// and a build creates it with unsafe_batch: every later batch must be
	// on disk when Batch returns.
	idx, err = bleve.OpenUsing(dir, map[string]interface{}{"bolt_timeout": lockTimeout, "unsafe_batch": false})
	if err == nil {
		markChecked(dir, segs)
	}
	if errors.Is(err, bolterrors.ErrTimeout) {
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
	ix.mems.clear()
	ix.closeChunks()
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
	fresh, err := ix.build(ix.dir + ".new")
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

// build writes every item of the bank into a new index at path, recording
// the bank's sequence as read before the items: changes made while it reads
// are applied again by the next catch-up, which is harmless. A build that
// fails removes path.
func (ix *Index) build(path string) (bleve.Index, error) {
	return buildFrom(path, ix.buildSource(), ix.report)
}

// buildFrom is build of src's items, report told the progress.
func buildFrom(path string, src Source, report func(done, total int)) (bleve.Index, error) {
	if err := os.RemoveAll(path); err != nil {
		return nil, fmt.Errorf("index: clear %s: %w", path, err)
	}
	m, err := newMapping()
	if err != nil {
		return nil, fmt.Errorf("index: build mapping: %w", err)
	}
	// unsafe_batch: a batch returns once it is searchable, not once it is
	// on disk, so analysis and segment building never wait for a sync;
	// the last batch (the stored sequence) waits for everything before it
	// to be persisted. A build cut short leaves only dir+".new" behind.
	cfg := map[string]interface{}{"bolt_timeout": lockTimeout, "unsafe_batch": buildUnsafe}
	for k, v := range buildScorch {
		cfg[k] = v
	}
	idx, err := bleve.NewUsing(path, m, scorch.Name, scorch.Name, cfg)
	if errors.Is(err, bolterrors.ErrTimeout) {
		return nil, fmt.Errorf("create index %s: %w", path, ErrInUse)
	}
	if err != nil {
		return nil, fmt.Errorf("create index %s: %w", path, err)
	}
	if err := fill(batchWriter{idx: idx, unsafe: buildUnsafe}, src, buildFeeders, report); err != nil {
		_ = idx.Close()
		_ = os.RemoveAll(path) // never trusted (only a finished build is swapped in); its space is freed
		return nil, err
	}
	return idx, nil
}

// buildScorch is scorch configuration a build adds to its own.
var buildScorch map[string]interface{}

// buildFeeders is how many goroutines feed batches to bleve during a
// build: while one batch's segment is being built and introduced, the
// next one is analysed.
var buildFeeders = 2

// recordPager is what a Source may offer to be read page by page during a
// build, so that a bank of a million records is never in memory at once.
// *store.Store has it.
type recordPager interface {
	RecordsAfter(afterID string, limit int) ([]review.Record, error)
	RecordCount() (int, error)
}

// chunk is one batch's worth of the bank's items.
type chunk struct {
	recs  []review.Record
	props []review.Proposal
	trajs []review.Trajectory
}

// fill writes every item of src into the empty idx, feeders goroutines
// each sending its own batches (report is told the items written after
// each), and then, in one last batch, the mapping version and the bank
// sequence read before the items. A source whose sequence is known only
// once its records are read (seqAfterer, a bank being filled) has it, its
// proposals and its trajectories read after the records.
func fill(w chunkWriter, src Source, feeders int, report func(done, total int)) error {
	late, isLate := src.(seqAfterer)
	var seq int64
	var err error
	if !isLate {
		if seq, err = src.LastSeq(); err != nil {
			return fmt.Errorf("index: read the bank's change sequence: %w", err)
		}
	}
	var props []review.Proposal
	var trajs []review.Trajectory
	rest := func() ([]review.Proposal, []review.Trajectory, error) {
		props, err := src.Proposals()
		if err != nil {
			return nil, nil, fmt.Errorf("index: read proposals: %w", err)
		}
		trajs, err := src.Trajectories()
		if err != nil {
			return nil, nil, fmt.Errorf("index: read trajectories: %w", err)
		}
		return props, trajs, nil
	}
	if !isLate {
		if props, trajs, err = rest(); err != nil {
			return err
		}
		rest = func() ([]review.Proposal, []review.Trajectory, error) { return props, trajs, nil }
	}
	pager, paged := src.(recordPager)
	var recs []review.Record
	nrecs := 0
	if paged {
		nrecs, err = pager.RecordCount()
	} else {
		recs, err = src.Records(review.RecordFilter{})
		nrecs = len(recs)
	}
	if err != nil {
		return fmt.Errorf("index: read records: %w", err)
	}
	total := nrecs + len(props) + len(trajs)

	var written atomic.Int64
	chunks := make(chan chunk, max(feeders, 1))
	errs := make(chan error, max(feeders, 1)+1)
	var wg sync.WaitGroup
	for range max(feeders, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var failed error
			for c := range chunks {
				if failed == nil {
					failed = w.writeChunk(c)
					if failed == nil {
						report(int(written.Add(int64(len(c.recs)+len(c.props)+len(c.trajs)))), total)
					}
				}
			}
			errs <- failed
		}()
	}
	errs <- sendChunks(chunks, pager, recs, rest)
	close(chunks)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			return err
		}
	}
	if isLate {
		if seq, err = late.seqAfterItems(); err != nil {
			return err
		}
	}
	return w.finish(seq)
}

// seqAfterer is a Source whose sequence a build reads after its items
// (followSource).
type seqAfterer interface {
	seqAfterItems() (int64, error)
}

// buildBatch is how many documents a build puts in one chunk (one bleve
// batch, so one segment, in the online build).
var buildBatch = batchSize

// sendChunks cuts the bank's items into chunks of buildBatch, reading the
// records page by page from pager when it is set. A chunk may hold items
// of several kinds, so that a small bank is one batch and one segment
// (as one feeder wrote it): BM25's statistics are per segment until a
// merge, so a bank split into more segments would score differently
// before and after its first merge.
// rest gives the proposals and trajectories, once the records are sent.
func sendChunks(out chan<- chunk, pager recordPager, recs []review.Record, rest func() ([]review.Proposal, []review.Trajectory, error)) error {
	var cur chunk
	n := 0
	flush := func(force bool) {
		if n > 0 && (force || n >= buildBatch) {
			out <- cur
			cur, n = chunk{}, 0
		}
	}
	if pager != nil {
		after := ""
		for {
			page, err := pager.RecordsAfter(after, buildBatch)
			if err != nil {
				return fmt.Errorf("index: read records after %q: %w", after, err)
			}
			if len(page) == 0 {
				break
			}
			for _, r := range page {
				cur.recs = append(cur.recs, r)
				n++
				flush(false)
			}
			after = page[len(page)-1].ID
		}
	}
	for _, r := range recs {
		cur.recs = append(cur.recs, r)
		n++
		flush(false)
	}
	props, trajs, err := rest()
	if err != nil {
		return err
	}
	for _, p := range props {
		cur.props = append(cur.props, p)
		n++
		flush(false)
	}
	for _, t := range trajs {
		cur.trajs = append(cur.trajs, t)
		n++
		flush(false)
	}
	flush(true)
	return nil
}
