package app

import (
	"context"
	"errors"
	"math"
	"time"

	"github.com/memreview/memreview/index/embed"
	"github.com/memreview/memreview/index/vecbank"
	"github.com/memreview/memreview/review"
)

// The embedder: one step keys the active records whose current version
// has no text key yet, makes sure the target embedder exists (training the
// offline one when needed), embeds up to a limit of the texts that have no
// vector of its model, stores what came back and records what failed.
// Nothing is lost when a step fails: what was stored stays, the rest is
// found again by the next step, and a text whose embedding failed for a
// reason a retry at once would not fix waits retryFailed and is tried
// again, so no record stays unembedded for good.

const (
	keyPage      = 500             // records keyed in one transaction
	embedBatch   = 64              // texts one embedding call carries
	stepLimit    = 1024            // texts one background step embeds
	retryFailed  = 5 * time.Minute // a failed text's next try
	idleRecheck  = time.Minute     // an idle embedder looks again (failures due)
	maxBackoff   = time.Minute
	syncEmbedMax = 2000 // a bank this small is embedded at once by a one-shot command's search
)

// errRetryLater wraps a failure that may pass (the endpoint down, slow,
// rate limited): the step stopped and the embedder waits before the next.
var errRetryLater = errors.New("embeddings: the endpoint failed; retrying later")

// embedWorker is the vector side's worker: it runs in the process that
// owns the index, from when it takes the index over until it lets go.
func (s *Service) embedWorker(ctx context.Context, side *vecbank.Side) {
	s.emb.mu.Lock()
	s.emb.side = side
	bg := s.opt.BackgroundEmbedding && !s.opt.ReadOnly
	s.emb.running = bg
	s.emb.mu.Unlock()
	side.SetEmbedStatus(s.trackerStatus, bg)
	defer func() {
		s.emb.mu.Lock()
		s.emb.side, s.emb.running = nil, false
		s.emb.mu.Unlock()
	}()
	// Name the model now, so the side serves its index from the start.
	// Naming trains nothing, so it needs no count of the active records
	// (three counts over the bank: ~150 ms of CPU at 100,000 records in
	// every process that takes the index over, a CLI search's among them).
	if es := s.embStore(); es != nil {
		if _, err := s.resolveTarget(0, false); err != nil {
			s.opt.Logf("embeddings: %v", err)
		}
	}
	if !bg {
		<-ctx.Done()
		return
	}
	s.embedLoop(ctx)
}

// embedLoop embeds in the background until ctx ends: at once after a
// write, after a backoff while the endpoint fails, and every idleRecheck
// for failures that are due.
func (s *Service) embedLoop(ctx context.Context) {
	changed := s.Changed(ctx)
	first := s.opt.EmbedBackoff
	if first <= 0 {
		first = time.Second
	}
	wait := first
	for {
		rem, err := s.embedStep(ctx, stepLimit)
		if ctx.Err() != nil {
			return
		}
		var sleep time.Duration
		woken := changed
		switch {
		case errors.Is(err, errRetryLater):
			sleep, wait, woken = wait, min(2*wait, maxBackoff), nil // a write does not hurry a failing endpoint
		case err != nil:
			s.opt.Logf("embeddings: %v", err)
			sleep, wait = idleRecheck/2, first
		case rem > 0:
			wait = first
			continue
		default:
			sleep, wait = idleRecheck, first
		}
		t := time.NewTimer(sleep)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case _, ok := <-woken:
			if !ok {
				changed = nil
			}
		case <-t.C:
		}
		t.Stop()
	}
}

// trackerStatus is the current embedder's live status.
func (s *Service) trackerStatus() embed.Status {
	s.emb.mu.Lock()
	tr := s.emb.tracker
	s.emb.mu.Unlock()
	if tr == nil {
		return embed.Status{}
	}
	return tr.Status()
}

// embedStep runs one step (see above) embedding at most limit texts, and
// returns how many active records still lack a vector and do not wait for
// a retry. errRetryLater: the endpoint failed in a way that may pass.
func (s *Service) embedStep(ctx context.Context, limit int) (int, error) {
	es := s.embStore()
	if es == nil || s.opt.ReadOnly {
		return 0, nil
	}
	s.emb.stepMu.Lock()
	defer s.emb.stepMu.Unlock()
	seq, err := s.b.LastSeq()
	if err != nil {
		return 0, err
	}
	if err := s.keyRecords(es); err != nil {
		return 0, err
	}
	c, err := es.EmbedCounts("")
	if err != nil {
		return 0, err
	}
	t, err := s.resolveTargetCtx(ctx, c.Active)
	if err != nil || t.e == nil {
		return 0, err
	}
	todo, err := es.Unembedded(t.model, s.b.Now(), limit)
	if err != nil {
		return 0, err
	}
	s.emb.mu.Lock()
	tr := s.emb.tracker
	s.emb.mu.Unlock()
	if c, err := es.EmbedCounts(t.model); err == nil && tr != nil {
		tr.SetProgress(c.Done, c.Active)
	}
	stepErr := s.embedTexts(ctx, es, t, todo, tr)
	c, err = es.EmbedCounts(t.model)
	if err != nil {
		return 0, err
	}
	if tr != nil {
		tr.SetProgress(c.Done, c.Active)
	}
	rem := c.Active - c.Done - c.Failing
	if rem <= 0 {
		s.emb.mu.Lock()
		side := s.emb.side
		if stepErr == nil {
			s.emb.stepped = seq
		}
		s.emb.mu.Unlock()
		if side != nil {
			side.TargetComplete(t.model)
		}
	}
	return max(rem, 0), stepErr
}

// resolveTargetCtx is resolveTarget(active, true) that returns when ctx
// ends, even while the offline embedder trains (a bank of 100,000 records
// takes a minute; its result is then dropped).
func (s *Service) resolveTargetCtx(ctx context.Context, active int) (*target, error) {
	type res struct {
		t   *target
		err error
	}
	ch := make(chan res, 1)
	go func() {
		t, err := s.resolveTarget(active, true)
		ch <- res{t, err}
	}()
	select {
	case r := <-ch:
		return r.t, r.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// keyRecords stores the text key of every active record version that has
// none.
func (s *Service) keyRecords(es embeddingStore) error {
	for {
		recs, err := es.UnkeyedRecords(keyPage)
		if err != nil || len(recs) == 0 {
			return err
		}
		keys := make([]review.RecordKey, len(recs))
		for i := range recs {
			keys[i] = review.RecordKey{ID: recs[i].ID, Version: recs[i].Version, TextKey: vecbank.KeyOf(&recs[i])}
		}
		if err := es.SetRecordKeys(keys); err != nil {
			return err
		}
		if len(recs) < keyPage {
			return nil
		}
	}
}

// embedTexts embeds the texts of todo (each key once) in batches and
// stores what came back; a batch the endpoint answers badly is tried one
// text at a time, and the texts that fail alone wait for their retry.
func (s *Service) embedTexts(ctx context.Context, es embeddingStore, t *target, todo []review.KeyedRecord, tr *embed.Tracker) error {
	var keys, texts []string
	seen := map[string]bool{}
	for _, kr := range todo {
		if !seen[kr.TextKey] {
			seen[kr.TextKey] = true
			keys = append(keys, kr.TextKey)
			texts = append(texts, vecbank.TextOf(&kr.Record))
		}
	}
	for lo := 0; lo < len(keys); lo += embedBatch {
		hi := min(lo+embedBatch, len(keys))
		done, err := s.embedBatch(ctx, es, t, keys[lo:hi], texts[lo:hi], tr)
		if err == nil {
			continue
		}
		var ee *embed.Error
		switch {
		case ctx.Err() != nil:
			return ctx.Err()
		case errors.As(err, &ee) && ee.Retryable():
			return errRetryLater
		case !errors.As(err, &ee):
			return err
		}
		// A bad answer or a refusal: alone, the good texts go through.
		rest := lo + done
		var failed []review.EmbedFailure
		for i := rest; i < hi; i++ {
			if _, err := s.embedBatch(ctx, es, t, keys[i:i+1], texts[i:i+1], tr); err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				if errors.As(err, &ee) && ee.Retryable() {
					s.failTexts(es, t, failed)
					return errRetryLater
				}
				failed = append(failed, review.EmbedFailure{Model: t.model, TextKey: keys[i], LastError: embed.Reason(err)})
			}
		}
		if err := s.failTexts(es, t, failed); err != nil {
			return err
		}
	}
	return nil
}

// embedBatch embeds one batch and stores the vectors that came back (a
// prefix of it on error); it returns how many it stored. A zero vector
// (a text with no words the offline embedder can use) is a failure of
// its own text.
func (s *Service) embedBatch(ctx context.Context, es embeddingStore, t *target, keys, texts []string, tr *embed.Tracker) (int, error) {
	vs, err := t.e.Embed(ctx, texts)
	vs = vs[:min(len(vs), len(keys))]
	var put []review.Embedding
	var empty []review.EmbedFailure
	for i, v := range vs {
		if zeroVector(v) {
			empty = append(empty, review.EmbedFailure{Model: t.model, TextKey: keys[i], LastError: "the text has no words to embed"})
			continue
		}
		put = append(put, review.Embedding{TextKey: keys[i], Vector: v})
	}
	if perr := es.PutEmbeddings(t.model, put); perr != nil {
		return 0, perr
	}
	if ferr := s.failTexts(es, t, empty); ferr != nil {
		return 0, ferr
	}
	if tr != nil {
		tr.AddDone(len(put))
	}
	return len(vs), err
}

func zeroVector(v []float32) bool {
	for _, x := range v {
		if x != 0 && !math.IsNaN(float64(x)) {
			return false
		}
	}
	return true
}

// failTexts records failures; each is tried again after retryFailed.
func (s *Service) failTexts(es embeddingStore, t *target, fs []review.EmbedFailure) error {
	if len(fs) == 0 {
		return nil
	}
	next := s.b.Now().Add(retryFailed)
	for i := range fs {
		fs[i].NextTry = next
	}
	s.opt.Logf("embeddings: %d texts failed with %s (%s); tried again after %s", len(fs), t.model, fs[0].LastError, next.Format(time.RFC3339))
	return es.FailEmbeddings(fs)
}

// catchUpEmbeddings embeds at once what a small bank lacks, when this
// process owns the index and no background embedder runs here (a one-shot
// command's retrieval sees its own writes' vectors). Only the offline
// embedder is used this way: an endpoint is called in the background.
func (s *Service) catchUpEmbeddings(ctx context.Context) {
	s.emb.mu.Lock()
	owner, running, stepped, tooBig, t, counting := s.emb.side != nil, s.emb.running, s.emb.stepped, s.emb.tooBig, s.emb.target, s.emb.counting
	s.emb.mu.Unlock()
	if !owner || running || counting || s.opt.ReadOnly || (t != nil && !t.fallback) {
		return
	}
	if cfg, err := s.b.Config(); err != nil {
		return
	} else if ep, _ := s.endpointOf(cfg.Embeddings); ep != nil {
		return
	}
	seq, err := s.b.LastSeq()
	if err != nil || (stepped != 0 && seq == stepped) || (tooBig != 0 && seq == tooBig) {
		return
	}
	es := s.embStore()
	if es == nil {
		return
	}
	// Counting is a scan of the bank (95% of a retrieval's CPU at
	// 100,000 records): a bank found too big is not counted again before
	// it changes, and while one retrieval counts, the others that arrive
	// go on without (a fleet's first calls to a new process counted the
	// bank once each, all at once: seconds of CPU and a p99 of 2 s).
	s.emb.mu.Lock()
	if s.emb.counting {
		s.emb.mu.Unlock()
		return
	}
	s.emb.counting = true
	s.emb.mu.Unlock()
	active, err := es.ActiveRecordsUpTo(syncEmbedMax + 1) // is the bank small? (a count of a million took 1.3 s)
	s.emb.mu.Lock()
	s.emb.counting = false
	if err == nil && active > syncEmbedMax {
		s.emb.tooBig = seq
	}
	s.emb.mu.Unlock()
	if err != nil || active > syncEmbedMax {
		return
	}
	if _, err := s.embedStep(ctx, syncEmbedMax); err != nil && !errors.Is(err, errRetryLater) {
		s.opt.Logf("embeddings: %v", err)
	}
}
