// Package share lets several processes search one bank's Bleve index at
// once. Bleve holds its index with an exclusive file lock, so one process,
// the owner, opens it; it serves the others' searches and retrievals over a
// unix socket beside the index (BANK/index.sock, JSON lines) and catches the
// index up with the bank's change sequence every Poll (250 ms), so a write
// by any process is searchable everywhere within about that long.
//
// Ownership is taken, never handed out: a process whose request finds no
// live owner (no socket, or a refused connection) opens the index itself.
// The kernel frees the lock when an owner exits or is killed, so the next
// request after an owner dies takes over within the lock's poll (tens of
// milliseconds) plus the catch-up; a request is retried until it succeeds
// or Timeout (2 s) passes. The index persists between owners, so a new
// owner catches up from its stored sequence and never rebuilds.
//
// A request may name the sequence it must see ("at least seq N"): the
// owner catches up first, so a process always finds its own writes.
//
// A new owner opens the index without waiting for its catch-up (or, when
// there is none, its first build): that runs in the background
// (index.OpenOptions.Background) while the owner serves, and searches
// meanwhile read what the index lacks from the bank (index.Results.Direct).
// A request's "at least seq N" does not wait for a catch-up that is
// running already: the tail holds that write.
package share

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/memreview/memreview/index"
	"github.com/memreview/memreview/index/vecbank"
	"github.com/memreview/memreview/review"
)

// Defaults for Options.
const (
	DefaultPoll    = 250 * time.Millisecond
	DefaultTimeout = 2 * time.Second
)

// SocketName is the owner's socket, in the bank directory beside the index.
const SocketName = "index.sock"

// Options tune an Index.
type Options struct {
	// Changed, when set, is the process's change follower (the
	// application service's): the owner catches up when it signals, and
	// polls no clock of its own. nil: the owner checks the change sequence
	// every Poll.
	Changed func(ctx context.Context) <-chan struct{}
	Poll    time.Duration // how often an owner checks the change sequence without Changed; 0: DefaultPoll
	Timeout time.Duration // how long a request looks for an owner; 0: DefaultTimeout
	// NoServe makes this process never take ownership: it only asks an
	// owner, and fails when there is none within Timeout (tests).
	NoServe bool
	Logf    func(format string, args ...any) // nil: discard
	// Progress is told how far a build or catch-up of the index this
	// process takes over has come (index.OpenOptions.Progress).
	Progress func(done, total int)
	// HandOff is called by Close when a catch-up or build of the index this
	// process owns is still running after HandOffAfter: a one-shot command
	// (a CLI search that took the index over) starts another process that
	// takes the work over once this one lets go, instead of waiting for it
	// or losing it. A small catch-up ends within HandOffAfter and is not
	// handed off. nil: the work stops at its next batch and the next
	// process that needs the index starts it again.
	HandOff      func()
	HandOffAfter time.Duration
	// Tuning is the index's when this process takes it over
	// (index.OpenOptions.Tuning; tests lower its thresholds, such as
	// Tuning.RebuildMin, to take their paths with small banks).
	Tuning index.Tuning
	// Vectors, when set, makes the owner hold the bank's vector index
	// beside Bleve (index/vecbank, vectors.go) and serve its searches.
	Vectors *vecbank.Options
}

// Index is one process's handle on a bank's shared index. Its methods are
// safe for concurrent use.
type Index struct {
	dir, sock string
	src       index.Store
	opt       Options

	mu  sync.Mutex
	own *index.Index  // non-nil while this process owns the index
	vec *vecbank.Side // the owner's vector side (Options.Vectors), or nil
	// vecReady is closed once the owner's vector side opened (or failed to).
	vecReady chan struct{}
	ln       net.Listener  // the owner's socket
	stop     chan struct{} // closed to stop the owner's loops
	done     sync.WaitGroup
	closed   bool
	pool     chan *conn // idle connections to the owner
}

// Open returns a handle on the index in dir (BANK/index) of the bank src.
// It opens nothing yet: the first request asks the owner, or, when no
// process holds the index, takes ownership (opening the index, or the
// first time building it). Hold takes ownership at once.
func Open(dir string, src index.Store, opt Options) (*Index, error) {
	if opt.Poll <= 0 {
		opt.Poll = DefaultPoll
	}
	if opt.Timeout <= 0 {
		opt.Timeout = DefaultTimeout
	}
	if opt.Logf == nil {
		opt.Logf = func(string, ...any) {}
	}
	ix := &Index{dir: dir, sock: socketPath(dir), src: src, opt: opt, pool: make(chan *conn, 8)}
	return ix, nil
}

// socketPath is the owner's socket for the index in dir: BANK/index.sock,
// or, when that path is too long for a unix socket address (108 bytes), a
// name in Linux's abstract namespace derived from it.
func socketPath(dir string) string {
	p := filepath.Join(filepath.Dir(dir), SocketName)
	if len(p) < 100 {
		return p
	}
	abs, _ := filepath.Abs(p)
	sum := sha256.Sum256([]byte(abs))
	return "@memreview-" + hex.EncodeToString(sum[:12])
}

// Owner reports whether this process holds the index now.
func (ix *Index) Owner() bool {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	return ix.own != nil
}

// local returns the index when this process owns it.
func (ix *Index) local() *index.Index {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	return ix.own
}

var errClosed = errors.New("index: closed")

// takeOver opens the index and starts serving it. index.ErrInUse means
// another process holds it.
func (ix *Index) takeOver() error {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.closed {
		return errClosed
	}
	if ix.own != nil {
		return nil
	}
	own, err := index.OpenWith(ix.dir, ix.src, index.OpenOptions{Progress: ix.opt.Progress, Background: true, Tuning: ix.opt.Tuning})
	if err != nil {
		return err
	}
	// The lock is ours, so a socket file left behind is a dead owner's.
	if !strings.HasPrefix(ix.sock, "@") {
		_ = os.Remove(ix.sock)
	}
	ix.own, ix.stop = own, make(chan struct{})
	if ix.opt.Vectors != nil {
		ix.vecReady = make(chan struct{})
		ix.done.Add(1)
		go ix.startVectors(ix.stop, ix.vecReady)
	}
	ix.done.Add(1)
	go ix.follow(own, ix.stop)
	ln, err := net.Listen("unix", ix.sock)
	if err != nil {
		// Searches here still work; other processes wait for this one.
		ix.opt.Logf("index: cannot serve other processes on %s: %v", ix.sock, err)
	} else {
		ix.ln = ln
		ix.done.Add(1)
		go ix.serve(ln, own)
	}
	ix.opt.Logf("index: this process (pid %d) now owns %s", os.Getpid(), ix.dir)
	return nil
}

// follow catches the owned index up whenever the bank's change sequence
// moves — when the process's change follower says so, or by its own poll
// without one — until stop is closed.
func (ix *Index) follow(own *index.Index, stop chan struct{}) {
	defer ix.done.Done()
	var tick <-chan time.Time
	var changed <-chan struct{}
	if ix.opt.Changed != nil {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		changed = ix.opt.Changed(ctx)
	} else {
		t := time.NewTicker(ix.opt.Poll)
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case <-stop:
			return
		case <-tick:
		case _, ok := <-changed:
			if !ok {
				return // the follower stopped: the service is closing
			}
		}
		last, err := ix.src.LastSeq()
		if err != nil {
			ix.opt.Logf("index: read the change sequence: %v", err)
			continue
		}
		if last > own.Seq() && !own.CatchingUp() {
			if err := own.Sync(); err != nil && !ix.isClosed() {
				ix.opt.Logf("index: catch up: %v", err)
			}
			ix.catchUpVectors()
		}
	}
}

// Close stops serving (the next request of another process takes over)
// and releases the index. It is safe to call more than once.
func (ix *Index) Close() error {
	ix.mu.Lock()
	if ix.closed {
		ix.mu.Unlock()
		return nil
	}
	ix.closed = true
	own, ln, stop, vec := ix.own, ix.ln, ix.stop, ix.vec
	ix.own, ix.ln, ix.vec = nil, nil, nil
	ix.mu.Unlock()
	for drained := false; !drained; {
		select {
		case c := <-ix.pool:
			c.Close()
		default:
			drained = true
		}
	}
	if own == nil {
		return nil
	}
	if ix.opt.HandOff != nil && own.CatchingUp() {
		caughtUp := make(chan struct{})
		go func() { own.WaitCatchUp(); close(caughtUp) }()
		select {
		case <-caughtUp:
		case <-time.After(ix.opt.HandOffAfter):
			ix.opt.HandOff()
		}
	}
	close(stop)
	if ln != nil {
		ln.Close() // removes the socket file
	}
	if vec != nil {
		if err := vec.Close(); err != nil {
			ix.opt.Logf("index: close the vector index: %v", err)
		}
	}
	// Closing the index first stops a catch-up in progress, which the
	// loops may be waiting for.
	err := own.Close()
	ix.done.Wait()
	return err
}

// Seq is the sequence of the last change the index holds (the owner's, as
// last seen by this process when it is a client).
func (ix *Index) Seq() int64 {
	if own := ix.local(); own != nil {
		return own.Seq()
	}
	var resp response
	if err := ix.call(request{Op: opSeq}, &resp); err != nil {
		return 0
	}
	return resp.Seq
}

// Search runs req once the index holds at least change minSeq.
func (ix *Index) Search(req index.Request, minSeq int64) (*index.Results, error) {
	var out *index.Results
	err := ix.do(request{Op: opSearch, MinSeq: minSeq, Search: &req}, func(own *index.Index) error {
		var err error
		out, err = own.Search(req)
		return err
	}, func(r *response) { out = r.Results })
	return out, err
}

// Retrieve is index.Retrieve once the index holds at least change minSeq.
func (ix *Index) Retrieve(task string, scope review.Scope, k int, minSeq int64) ([]index.Scored, error) {
	var out []index.Scored
	err := ix.do(request{Op: opRetrieve, MinSeq: minSeq, Task: task, Scope: &scope, K: k}, func(own *index.Index) error {
		var err error
		out, err = own.Retrieve(task, scope, k)
		return err
	}, func(r *response) { out = r.Scored })
	return out, err
}

// CatchUp brings the index up to change seq after this process wrote it.
// The owner catches up at once; a client only checks that an owner is
// there, which catches up within its poll (and before any search that asks
// for seq), so a writer never waits for indexing in another process. With
// no owner, this process takes the index over and catches it up.
func (ix *Index) CatchUp(seq int64) error {
	return ix.do(request{Op: opSync}, func(own *index.Index) error { return ensure(own, seq) }, func(*response) {})
}

// Rebuild rebuilds the index from the bank (in whichever process owns it).
func (ix *Index) Rebuild() error {
	return ix.do(request{Op: opRebuild}, func(own *index.Index) error { return own.Rebuild() }, func(*response) {})
}

// DocCount is how many documents the index holds.
func (ix *Index) DocCount() (uint64, error) {
	var n uint64
	err := ix.do(request{Op: opCount}, func(own *index.Index) error {
		var err error
		n, err = own.DocCount()
		return err
	}, func(r *response) { n = r.Count })
	return n, err
}

// do runs a request on the owned index, or sends it to the owner, taking
// over when there is none, until it succeeds or Timeout passes (or, while
// a live process holds the index without answering yet, holderWait). An error
// the owner reports (a query that does not parse) is returned at once.
func (ix *Index) do(req request, local func(*index.Index) error, remote func(*response)) error {
	start := time.Now()
	deadline := start.Add(ix.opt.Timeout)
	if req.Op == opRebuild {
		deadline = time.Now().Add(time.Hour)
	}
	var last error
	for attempt := 0; ; attempt++ {
		if own := ix.local(); own != nil {
			if err := ensure(own, req.MinSeq); err != nil {
				return err
			}
			return local(own)
		}
		var resp response
		err := ix.call(req, &resp)
		if err == nil {
			if resp.Error != "" {
				return errors.New(resp.Error)
			}
			remote(&resp)
			return nil
		}
		last = err
		if ix.isClosed() {
			return errClosed
		}
		if !ix.opt.NoServe {
			terr := ix.takeOver()
			if terr == nil {
				continue
			}
			if !errors.Is(terr, index.ErrInUse) {
				return terr
			}
			if req.Op == opSync {
				// A process holds the index but does not answer (it is
				// starting, or serves no one): it catches up by itself, so a
				// writer need not wait for it.
				return fmt.Errorf("index: the process holding %s does not answer: %w", ix.dir, last)
			}
			// The lock is held, so its holder is alive (the kernel frees a
			// dead process's lock): it is opening the index, perhaps with a
			// long catch-up, and will answer once it serves.
			deadline = later(deadline, start.Add(holderWait))
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("index: no process answers for %s within %s: %w", ix.dir, time.Since(start).Round(time.Millisecond), last)
		}
		time.Sleep(min(time.Duration(attempt+1)*10*time.Millisecond, 100*time.Millisecond))
	}
}

// holderWait is how long a request waits for a live process that holds
// the index but does not answer yet.
const holderWait = 15 * time.Second

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func (ix *Index) isClosed() bool {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	return ix.closed
}

// ensure catches own up to at least seq, unless a catch-up is running
// already: a search meanwhile reads the changes the index lacks from the
// bank (index.Results.Direct), so it need not wait for all of it.
func ensure(own *index.Index, seq int64) error {
	if seq > own.Seq() && !own.CatchingUp() {
		return own.Sync()
	}
	return nil
}

// Hold makes this process the owner, waiting up to wait for another owner
// to leave, and returns the owned index; front ends that read the index
// directly use it. While this process owns the index it serves everyone.
func (ix *Index) Hold(wait time.Duration) (*index.Index, error) {
	deadline := time.Now().Add(wait)
	for {
		if own := ix.local(); own != nil {
			return own, nil
		}
		err := ix.takeOver()
		if err == nil {
			continue
		}
		if !errors.Is(err, index.ErrInUse) || time.Now().After(deadline) {
			return nil, err
		}
		time.Sleep(50 * time.Millisecond)
	}
}
