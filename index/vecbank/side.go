package vecbank

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/memreview/memreview/index/embed"
)

// Defaults for Options.
const (
	DefaultQueryTimeout = 3 * time.Second
	DefaultPoll         = time.Second
)

// Options configure a Side.
type Options struct {
	Store Store
	// Dir holds the index files (BANK/index.vectors).
	Dir string
	// Embedder returns the embedder of a model for queries: the offline
	// embedder stored in the bank, or the configured endpoint. nil, or an
	// error: queries by text find nothing, and say why.
	Embedder func(model string) (embed.Embedder, error)
	// QueryTimeout bounds the embedding of one query (DefaultQueryTimeout).
	QueryTimeout time.Duration
	// Poll is how often the side reads the bank's feeds for vectors that
	// another process stored (DefaultPoll).
	Poll time.Duration
	Logf func(format string, args ...any)
	// Worker, when set, runs in its own goroutine while the side is open
	// (the application's embedder: it stores vectors and names the model
	// to serve); its context ends at Close.
	Worker func(ctx context.Context, s *Side)
}

// Side is the vector side of one bank's index in the owning process. Its
// methods are safe for concurrent use.
type Side struct {
	opt Options

	mu        sync.Mutex
	serving   *modelIndex // answers searches; nil before any model
	target    *modelIndex // the configured model's index (serving once complete)
	embedders map[string]embed.Embedder
	status    func() embed.Status // the worker's, when it runs here
	bg        bool                // the worker embeds in the background

	cancel context.CancelFunc
	wg     sync.WaitGroup
	closed bool
}

// stateFile names the model being served.
const stateFile = "serving.json"

// Open opens the vector side in opt.Dir: the index of the model served
// last, caught up with the bank (or rebuilt from it), and the worker.
func Open(opt Options) (*Side, error) {
	if opt.Store == nil || opt.Dir == "" {
		return nil, errors.New("vectors: a source and a folder are required")
	}
	if opt.QueryTimeout <= 0 {
		opt.QueryTimeout = DefaultQueryTimeout
	}
	if opt.Poll <= 0 {
		opt.Poll = DefaultPoll
	}
	if opt.Logf == nil {
		opt.Logf = func(string, ...any) {}
	}
	if err := os.MkdirAll(opt.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("vectors: %w", err)
	}
	s := &Side{opt: opt, embedders: map[string]embed.Embedder{}}
	if model := s.readState(); model != "" {
		mi, err := openModel(opt.Dir, model, opt.Store, opt.Logf)
		if err != nil {
			opt.Logf("vectors: open the index of %s: %v", model, err)
		} else {
			s.serving, s.target = mi, mi
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	s.wg.Add(1)
	go s.poll(ctx)
	if opt.Worker != nil {
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			opt.Worker(ctx, s)
		}()
	}
	return s, nil
}

func (s *Side) readState() string {
	b, err := os.ReadFile(filepath.Join(s.opt.Dir, stateFile))
	if err != nil {
		return ""
	}
	var st struct{ Serving string }
	if json.Unmarshal(b, &st) != nil {
		return ""
	}
	return st.Serving
}

func (s *Side) writeState(model string) {
	b, _ := json.Marshal(struct{ Serving string }{model})
	tmp := filepath.Join(s.opt.Dir, stateFile+".tmp")
	if err := os.WriteFile(tmp, b, 0o644); err == nil {
		err = os.Rename(tmp, filepath.Join(s.opt.Dir, stateFile))
		if err != nil {
			s.opt.Logf("vectors: %v", err)
		}
	}
}

// poll catches the indexes up every Poll: vectors stored by another
// process reach this one's index that way.
func (s *Side) poll(ctx context.Context) {
	defer s.wg.Done()
	t := time.NewTicker(s.opt.Poll)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if err := s.CatchUp(); err != nil && ctx.Err() == nil {
			s.opt.Logf("vectors: catch up: %v", err)
		}
	}
}

// indexes returns the serving and the target index.
func (s *Side) indexes() (serving, target *modelIndex) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.serving, s.target
}

// CatchUp brings the serving and target indexes up to the bank.
func (s *Side) CatchUp() error {
	serving, target := s.indexes()
	var err error
	if serving != nil {
		err = serving.catchUp(s.opt.Store)
	}
	if target != nil && target != serving {
		err = errors.Join(err, target.catchUp(s.opt.Store))
	}
	return err
}

// Ensure catches up when the serving index is behind change seq or
// embeddings feed position emb (a caller's own writes).
func (s *Side) Ensure(seq, emb int64) error {
	serving, _ := s.indexes()
	if serving == nil {
		return nil
	}
	if c := serving.cursorNow(); c.Changes < seq || c.Embeddings < emb {
		return s.CatchUp()
	}
	return nil
}

// SetTarget names the model the bank is embedded with now. With no
// index yet it is served at once (with the vectors it has); when another
// model is served, that one keeps serving until TargetComplete.
func (s *Side) SetTarget(model string) error {
	s.mu.Lock()
	if s.closed || (s.target != nil && s.target.model == model) {
		s.mu.Unlock()
		return nil
	}
	if s.serving != nil && s.serving.model == model {
		s.target = s.serving
		s.mu.Unlock()
		return nil
	}
	s.mu.Unlock()
	mi, err := openModel(s.opt.Dir, model, s.opt.Store, s.opt.Logf)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if old := s.target; old != nil && old != s.serving {
		old.remove() // a model named and then replaced before it completed
	}
	s.target = mi
	if s.serving == nil {
		s.serving = mi
		s.writeState(model)
	}
	return nil
}

// TargetComplete says model's vectors cover every active record: its
// index becomes the one served, and the old model's files go.
func (s *Side) TargetComplete(model string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.target == nil || s.target.model != model || s.serving == s.target {
		return
	}
	old := s.serving
	s.serving = s.target
	s.writeState(model)
	if old != nil {
		old.remove()
	}
	s.opt.Logf("vectors: now serving %s", model)
}

// SetEmbedStatus gives the side the worker's status, for Status, and
// says whether it embeds in the background.
func (s *Side) SetEmbedStatus(f func() embed.Status, background bool) {
	s.mu.Lock()
	s.status, s.bg = f, background
	s.mu.Unlock()
}

// Status is where the vector side stands.
type Status struct {
	Serving    string `json:"serving,omitempty"`
	ServingLen int    `json:"serving_vectors"`
	Target     string `json:"target,omitempty"`
	TargetLen  int    `json:"target_vectors"`
	// Rejected counts vectors left out for having another length than the
	// served model's.
	Rejected int `json:"rejected,omitempty"`
	// Embed is the embedder's status when it runs in the owning process;
	// Background says it embeds in the background there.
	Embed      *embed.Status `json:"embed,omitempty"`
	Background bool          `json:"background,omitempty"`
}

// Status says which model is served, how many vectors each index holds,
// and how embedding stands.
func (s *Side) Status() Status {
	s.mu.Lock()
	serving, target, f := s.serving, s.target, s.status
	var st Status
	st.Background = s.bg
	s.mu.Unlock()
	if serving != nil {
		st.Serving, st.ServingLen = serving.model, serving.Len()
		serving.mu.Lock()
		st.Rejected = serving.rejected
		serving.mu.Unlock()
	}
	if target != nil {
		st.Target, st.TargetLen = target.model, target.Len()
	}
	if f != nil {
		e := f()
		st.Embed = &e
	}
	return st
}

// Close stops the worker and the poll and saves the indexes.
func (s *Side) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.mu.Unlock()
	s.cancel()
	s.wg.Wait()
	serving, target := s.indexes()
	var err error
	if serving != nil {
		err = serving.save()
	}
	if target != nil && target != serving {
		err = errors.Join(err, target.save())
	}
	return err
}

// embedder returns the query embedder of model, made once.
func (s *Side) embedder(model string) (embed.Embedder, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e := s.embedders[model]; e != nil {
		return e, nil
	}
	if s.opt.Embedder == nil {
		return nil, errors.New("no embedder for queries")
	}
	e, err := s.opt.Embedder(model)
	if err != nil {
		return nil, err
	}
	s.embedders[model] = e
	return e, nil
}
