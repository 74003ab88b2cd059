// Package service is memreview's application layer: the one place that
// holds a bank's store (a Store), its search index and its
// environments, and offers every use case a front end needs — decide,
// decide records and undo (commit, then bring the index up to date),
// re-probe a proposal, verify records, attach a probe run, search,
// retrieve (and log the retrieval), import, export, run the curator, and
// a cheap change watcher for live updates. The CLI, the TUI and the MCP
// server call only this package; none of them touches the store or the
// index directly.
//
// Several processes may hold one bank at once. Writes go straight to the
// store, which serialises them and reports conflicts; the index is shared
// through index/share (one owner process serves the others), so no read
// waits for another process, and each process sees its own writes at once
// and everyone else's within a second.
package app

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/memreview/memreview/index"
	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/app/telemetry"
)

// Index is what the service needs of a search index shared between
// processes; *share.Index implements it. minSeq is the change sequence the
// answer must include (the caller's own last write), 0 for any.
type Index interface {
	Search(req index.Request, minSeq int64) (*index.Results, error)
	Retrieve(task string, scope review.Scope, k int, minSeq int64) ([]index.Scored, error)
	CatchUp(seq int64) error
	Rebuild() error
	DocCount() (uint64, error)
	Close() error
}

// Options configure a Service.
type Options struct {
	// ReadOnly opens a folder bank for reading only: writes fail.
	ReadOnly bool
	// Now is the store's clock (sample generation and tests fix it); nil:
	// the real one.
	Now func() time.Time
	// Operator is recorded on decisions and imports when a request names
	// none.
	Operator string
	// EnvDir is the folder relative environment paths in the config are
	// resolved against (Open sets it to the bank directory).
	EnvDir string
	// Warnf reports something that went wrong after a write committed (the
	// index could not be updated; it catches up later). nil: Logf.
	Warnf func(format string, args ...any)
	// Logf is the service's log; nil discards it.
	Logf func(format string, args ...any)
	// OpenIndex opens the shared index on first use; nil: no index, and
	// searches fail with ErrNoIndex.
	OpenIndex func() (Index, error)
	// IndexProgress is told how far building or catching up the shared
	// index has come when this process opens it (a first open of a large
	// bank builds it: minutes at 100,000 records).
	IndexProgress func(done, total int)
	// WatchEvery is how often the change follower reads the change
	// sequence (0: DefaultWatchEvery); a notifying store wakes it sooner.
	WatchEvery time.Duration
	// HandOffIndex is called when the service closes while a catch-up or
	// build of the index this process took over is still running after
	// handOffAfter (a small one ends by then): a
	// one-shot command answers at once and starts another process that
	// finishes the work (the CLI starts 'memreview index --until-caught-up'),
	// so no command waits for a catch-up it did not need. nil (the TUI,
	// serve): the work stops, and the next process that needs the index
	// starts it again.
	HandOffIndex func()
	// HandOffAfter replaces handOffAfter (0: handOffAfter; a negative
	// duration hands off at once).
	HandOffAfter time.Duration
	// IndexTuning is the shared index's thresholds when this process
	// owns it (index.Tuning; the zero value is what the program runs):
	// tests lower Tuning.RebuildMin to take the rebuild path with a
	// small bank.
	IndexTuning index.Tuning
	// BackgroundEmbedding makes this process embed new and changed records
	// in the background while it owns the index (the TUI, serve); without
	// it a one-shot command embeds only what a small bank lacks when it
	// searches (embeddings.go). EmbedBackoff is the first wait after the
	// endpoint fails (0: a second; tests shorten it), and the most the
	// embedder waits before it sends a failed request again (else 500 ms).
	BackgroundEmbedding bool
	EmbedBackoff        time.Duration
	// RetrieveCache is how many answers the retrieval cache keeps
	// (retrievecache.go); 0: 1,024, negative: no cache.
	RetrieveCache int
	// RetrieveSlots is how many retrievals run at once, the rest waiting
	// their turn in order (retrieveslots.go); 0: one per core
	// (GOMAXPROCS), negative: no bound.
	RetrieveSlots int
}

// handOffAfter is how long Close lets a catch-up run before it hands the
// rest to another process (Options.HandOffIndex): a small bank's whole
// build, not a large import's.
const handOffAfter = 3 * time.Second

// ErrNoIndex is returned by searches on a service built without an index.
var ErrNoIndex = fmt.Errorf("service: this bank has no search index")

// Service is one process's handle on a bank. Its methods are safe for
// concurrent use.
type Service struct {
	b   Store
	opt Options

	ixOnce sync.Once
	ix     Index
	ixErr  error

	// wrote is the change sequence of this process's latest write: reads
	// ask the index for at least that much, so a process sees its writes.
	wrote  atomic.Int64
	info   BankInfo
	rlog   retrievalLog
	alog   auditLog
	follow follower
	emb    embedding   // embeddings.go
	probes probeRunner // every probe's pools and sessions (envs.go)
	evals  evalCache
	rcache retrieveCache     // retrievecache.go
	rslots retrieveSlots     // retrieveslots.go
	scache standingCache     // standingcache.go
	tel    *telemetry.Tracer // nil: no telemetry (telemetry.go)
}

// Dir is the bank's folder, "" for a team bank.
func (s *Service) Dir() string {
	if s.info.Team {
		return ""
	}
	return s.info.Dir
}

// Operator is the default operator.
func (s *Service) Operator() string { return s.opt.Operator }

// index opens the index on first use.
func (s *Service) index() (Index, error) {
	s.ixOnce.Do(func() {
		if s.opt.OpenIndex == nil {
			s.ixErr = ErrNoIndex
			return
		}
		s.ix, s.ixErr = s.opt.OpenIndex()
	})
	return s.ix, s.ixErr
}

// Close releases the index (another process takes it over), the store,
// and the probe runner's pools and MCP server sessions.
func (s *Service) Close() error {
	var err error
	s.ixOnce.Do(func() { s.ixErr = fmt.Errorf("service: closed") }) // no index opens after Close
	s.follow.stopFollowing()
	perr := s.probes.close()
	s.stopTelemetry()
	if s.ix != nil {
		err = s.ix.Close()
	}
	if cerr := s.b.Close(); err == nil {
		err = cerr
	}
	if err == nil && perr != nil {
		err = fmt.Errorf("stopping the MCP servers of the environments: %w", perr)
	}
	return err
}

// afterWrite records that this process wrote up to the bank's current
// sequence and asks the index to catch up. The write has committed, so a
// failure here is a warning, not an error: the index catches up later.
func (s *Service) afterWrite(what string) {
	seq, ok := s.noteWrite(what)
	if !ok {
		return
	}
	ix, err := s.index()
	if err == nil {
		err = ix.CatchUp(seq)
	}
	if err != nil && err != ErrNoIndex {
		s.opt.Warnf("%s committed, but the search index was not updated (%v); it will catch up on the next search", what, err)
	}
}

// afterBulkWrite is afterWrite for an import: the command returns at the
// commit and does not wait for the index. This process's own searches
// still see the import (they ask for at least its sequence and wait for
// it); an index owner that is running (the TUI, serve) catches up within
// its poll, in the background; when none runs, whichever process next
// needs the index catches up then (a long backlog is rebuilt, not
// replayed), and a search made meanwhile says how far behind it is.
func (s *Service) afterBulkWrite(what string) { s.noteWrite(what) }

// noteWrite raises the sequence this process's reads wait for to the
// bank's current one and returns it; false when it could not be read.
func (s *Service) noteWrite(what string) (int64, bool) {
	seq, err := s.b.LastSeq()
	if err != nil {
		s.opt.Warnf("%s committed, but reading the change sequence failed (%v); the search index will catch up", what, err)
		return 0, false
	}
	for {
		cur := s.wrote.Load()
		if seq <= cur || s.wrote.CompareAndSwap(cur, seq) {
			return seq, true
		}
	}
}
