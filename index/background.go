package index

import (
	"errors"
	"time"

	"github.com/memreview/memreview/index/schema"
	"github.com/memreview/memreview/review"
)

// errStopped is what a catch-up or build returns when Close stopped it.
var errStopped = errors.New("index: catch-up stopped (the index is closing)")

// openBackground is OpenWith with Background: it opens what it can at
// once and leaves the catch-up or build to a goroutine.
func (ix *Index) openBackground() (*Index, error) {
	idx, err := openDir(ix.dir)
	if errors.Is(err, ErrInUse) {
		return nil, err
	}
	if err == nil {
		if ok, uerr := ix.usable(idx); ok && uerr == nil {
			ix.idx = idx
			ix.background(ix.catchUp, nil)
			return ix, nil
		}
		_ = idx.Close()
	}
	// None, or unusable: the build lock is taken now, so that another
	// process building it makes this open fail with ErrInUse, as it does
	// a blocking open.
	release, err := buildLock(ix.dir)
	if err != nil {
		return nil, err
	}
	// A missing or half-written index may be another process's build,
	// done by the time the lock is ours; a damaged one is not looked at
	// again (a panicked open can leave its lock held).
	if err != nil && !errors.Is(err, ErrCorrupt) {
		if idx, err := openDir(ix.dir); err == nil {
			if ok, uerr := ix.usable(idx); ok && uerr == nil {
				release()
				ix.idx = idx
				ix.background(ix.catchUp, nil)
				return ix, nil
			}
			_ = idx.Close()
		}
	}
	empty, err := schema.NewMem()
	if err != nil {
		release()
		return nil, err
	}
	ix.idx = empty
	ix.seq.Store(0)
	ix.background(ix.buildAndSwap, release)
	return ix, nil
}

// background runs work holding writeMu in a goroutine that Close waits
// for, then done (when set) whether work ran or Close stopped it first. A
// failed catch-up is tried again by the next Sync.
func (ix *Index) background(work func() error, done func()) {
	ix.bg.Add(1)
	ix.writeMu.Lock() // before returning: a Sync or Close right after Open waits for the work
	ix.busy.Add(1)
	go func() {
		defer ix.bg.Done()
		defer ix.writeMu.Unlock()
		defer ix.busy.Add(-1)
		if done != nil {
			defer done()
		}
		ix.yieldIfLong()
		if ix.stopped() {
			return
		}
		_ = work()
	}()
}

// firstAnswerWait is how long the background work of an open waits for
// the first request to answer before it starts anyway.
const firstAnswerWait = 2 * time.Second

// yieldIfLong lets the request that opened the index answer before the
// open's catch-up or build starts, when that is long (more than
// rebuildMin changes to go): a first search at 100,000 records then has
// both cores.
func (ix *Index) yieldIfLong() {
	if last, err := ix.src.LastSeq(); err != nil || last-ix.seq.Load() <= int64(ix.rebuildMin()) {
		return
	}
	select {
	case <-ix.answered:
	case <-time.After(firstAnswerWait):
	case <-ix.stop:
	}
}

// answer marks that a request has been answered (Search, Retrieve).
func (ix *Index) answer() {
	if ix.answered != nil {
		ix.answeredOnce.Do(func() { close(ix.answered) })
	}
}

// WaitCatchUp waits for the catch-up or build of OpenOptions.Background
// to end.
func (ix *Index) WaitCatchUp() {
	ix.answer()
	ix.bg.Wait()
}

// CatchingUp reports whether a catch-up or build is running: a search
// meanwhile reads what the index lacks from the bank, so a caller that
// wants its own write found need not wait for it.
func (ix *Index) CatchingUp() bool { return ix.busy.Load() > 0 }

func (ix *Index) stopped() bool {
	select {
	case <-ix.stop:
		return true
	default:
		return false
	}
}

// buildSource is the Store a build reads: ix.src, whose record pages
// fail with errStopped once Close is called.
func (ix *Index) buildSource() Store {
	p, ok := ix.src.(recordPager)
	if !ok {
		return ix.src
	}
	return stopPager{Store: ix.src, p: p, stopped: ix.stopped}
}

type stopPager struct {
	Store
	p       recordPager
	stopped func() bool
}

func (s stopPager) RecordsAfter(afterID string, limit int) ([]review.Record, error) {
	if s.stopped() {
		return nil, errStopped
	}
	return s.p.RecordsAfter(afterID, limit)
}

func (s stopPager) RecordCount() (int, error) { return s.p.RecordCount() }
