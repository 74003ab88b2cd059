package app

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/memreview/memreview/index/embed"
	"github.com/memreview/memreview/index/vecbank"
)

// EmbeddingStatus is where embedding stands: for the TUI's footer and
// 'memreview embeddings status'. Done of Active records have a vector of
// Model; Failing more wait for a retry after a failure.
type EmbeddingStatus struct {
	Model    string `json:"model"`
	Fallback bool   `json:"fallback"` // the offline embedder: no endpoint is configured
	Endpoint string `json:"endpoint,omitempty"`
	Active   int    `json:"active"`
	Done     int    `json:"done"`
	Failing  int    `json:"failing"`
	// LastError is why embedding fails now (the live embedder's, or the
	// newest failure's); Since is when the live run of failures began.
	LastError string    `json:"last_error,omitempty"`
	Since     time.Time `json:"since,omitzero"`
	// Serving is the model whose vectors answer searches (another than
	// Model while a new model fills), and how many it holds.
	Serving        string `json:"serving,omitempty"`
	ServingVectors int    `json:"serving_vectors"`
	// Running: an embedder runs in the background (in the index owner).
	Running     bool   `json:"running"`
	ConfigError string `json:"config_error,omitempty"`
}

// Complete reports whether every active record has a vector of Model.
func (st EmbeddingStatus) Complete() bool { return st.Model != "" && st.Done >= st.Active }

// Busy reports whether the footer should show the status: records wait
// for a vector, or embedding fails.
func (st EmbeddingStatus) Busy() bool {
	return st.Active > 0 && (!st.Complete() || st.LastError != "" || st.ConfigError != "")
}

// String is the status line: "embeddings: 12,000 of 100,000; endpoint
// unreachable since 10:02", naming the offline fallback, the failing
// records and the model that serves meanwhile.
func (st EmbeddingStatus) String() string {
	line := embed.Status{Model: st.Model, Fallback: st.Fallback, Done: st.Done, Total: st.Active, LastError: st.LastError, Since: st.Since}.String()
	var more []string
	if st.Model == "" {
		more = append(more, "no offline embedder trained yet")
	}
	if st.Failing > 0 {
		more = append(more, fmt.Sprintf("%d failing, tried again every %s", st.Failing, retryFailed))
	}
	if st.Serving != "" && st.Serving != st.Model {
		more = append(more, "searches use "+st.Serving+" meanwhile")
	}
	if st.ConfigError != "" {
		more = append(more, st.ConfigError)
	}
	if len(more) > 0 {
		line += "; " + strings.Join(more, "; ")
	}
	return line
}

// vectorIndex is what the shared index offers of its vector side
// (*share.Index has it; a test's index may not).
type vectorIndex interface {
	VectorSearch(ctx context.Context, q vecbank.Query, seq, emb int64) (*vecbank.Answer, error)
	Neighbours(ctx context.Context, req vecbank.NeighboursRequest, seq, emb int64) ([]vecbank.Pair, string, error)
	VectorStatus() (vecbank.Status, error)
}

// vectors is the shared index's vector side, or nil.
func (s *Service) vectors() vectorIndex {
	ix, err := s.index()
	if err != nil {
		return nil
	}
	v, _ := ix.(vectorIndex)
	return v
}

// EmbeddingsStatus says where embedding stands: the counts from the bank
// (exact, whoever embeds), the live error of the embedder in the index
// owner, and the model that serves searches.
func (s *Service) EmbeddingsStatus() (EmbeddingStatus, error) {
	var st EmbeddingStatus
	es := s.embStore()
	if es == nil {
		return st, errors.New("this bank keeps no embeddings")
	}
	all, err := es.EmbedCounts("")
	if err != nil {
		return st, err
	}
	t, err := s.resolveTarget(all.Active, false)
	if err != nil {
		return st, err
	}
	st.Model, st.Fallback, st.Endpoint = t.model, t.fallback, t.where
	s.emb.mu.Lock()
	st.ConfigError = s.emb.cfgError
	local, running := s.emb.side, s.emb.running
	s.emb.mu.Unlock()
	c, err := es.EmbedCounts(t.model)
	if err != nil {
		return st, err
	}
	st.Active, st.Done, st.Failing, st.LastError = c.Active, c.Done, c.Failing, c.LastError
	var vs vecbank.Status
	if local != nil {
		vs = local.Status()
	} else if v := s.vectors(); v != nil {
		vs, _ = v.VectorStatus()
		running = vs.Background
	}
	st.Running = running
	st.Serving, st.ServingVectors = vs.Serving, vs.ServingLen
	if e := vs.Embed; e != nil && e.LastError != "" && e.Model == st.Model {
		st.LastError, st.Since = e.LastError, e.Since
	}
	return st, nil
}

// WaitEmbeddings returns once every active record has a vector of the
// configured model, calling progress (when set) with the status as it
// changes. This process embeds when it can own the index; when another
// process owns it, it waits for that one's embedder. Records whose
// embedding fails are tried again every retryFailed meanwhile; ctx bounds
// the wait.
func (s *Service) WaitEmbeddings(ctx context.Context, progress func(EmbeddingStatus)) (EmbeddingStatus, error) {
	owner := s.HoldIndex(0) == nil
	if owner {
		s.awaitSide(ctx)
	}
	first := s.opt.EmbedBackoff
	if first <= 0 {
		first = time.Second
	}
	wait := first
	var last string
	for {
		rem := 1
		var stepErr error
		if owner {
			rem, stepErr = s.embedStep(ctx, stepLimit)
			if stepErr != nil && !errors.Is(stepErr, errRetryLater) && ctx.Err() == nil {
				return EmbeddingStatus{}, stepErr
			}
		}
		st, err := s.EmbeddingsStatus()
		if err != nil {
			return st, err
		}
		if line := st.String(); progress != nil && line != last {
			progress(st)
			last = line
		}
		if st.Complete() {
			return st, nil
		}
		if st.ConfigError != "" && st.Model == "" {
			return st, errors.New(st.ConfigError)
		}
		sleep := time.Second
		switch {
		case errors.Is(stepErr, errRetryLater):
			sleep, wait = wait, min(2*wait, maxBackoff)
		case owner && rem > 0:
			wait = first
			continue
		case owner:
			sleep = min(time.Second, retryFailed) // only failures remain: they are due at their next try
		}
		select {
		case <-ctx.Done():
			return st, fmt.Errorf("embeddings not complete: %s: %w", st, ctx.Err())
		case <-time.After(sleep):
		}
	}
}

// awaitSide waits (a little) for the owner's vector side, which the
// embedder stores into.
func (s *Service) awaitSide(ctx context.Context) {
	if v := s.vectors(); v != nil {
		v.VectorStatus() // waits for the side to open
	}
	for i := 0; i < 50; i++ {
		s.emb.mu.Lock()
		ok := s.emb.side != nil
		s.emb.mu.Unlock()
		if ok || ctx.Err() != nil {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}
