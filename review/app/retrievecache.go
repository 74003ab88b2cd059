package app

import (
	"container/list"
	"context"
	"strings"
	"sync"

	"github.com/memreview/memreview/review"
)

// The retrieval cache: a fleet's agents starting the same task ask the
// same question of an unchanged bank, and get the same answer from here
// without the index, the vector side or the store being asked again. An
// answer is kept only while the state it was computed at still holds —
// the bank's change sequence, the index caught up to exactly that change
// (so the tail, which reads the bank, took no part), and the vector
// side's served model, vector count and the bank's embeddings feed — and
// any change to one of them empties the cache. Selection (an LLM's
// choice) is never cached. The retrieval log and the guidelines section
// are made for every call, hit or not.

// defaultRetrieveCache is how many answers the cache keeps (the least
// recently used go first).
const defaultRetrieveCache = 1024

// retrieveState is what a cached answer depends on besides its request.
type retrieveState struct {
	bank, index, embeddings int64
	serving                 string
	servingLen, rejected    int
}

// retrieveKey is a request as the cache tells requests apart.
type retrieveKey struct {
	task, env, tags string
	k               int
	bm25Only        bool
}

// retrieveAnswer is the part of a RetrieveResult the cache keeps.
type retrieveAnswer struct {
	records           []Retrieved
	notes             []string
	model, vectorPlan string
}

type retrieveCache struct {
	mu      sync.Mutex
	state   retrieveState
	entries map[retrieveKey]*list.Element // of *retrieveEntry, most recent first
	order   list.List
	hits    int64
	misses  int64
}

type retrieveEntry struct {
	key retrieveKey
	ans retrieveAnswer
}

func newRetrieveKey(req RetrieveRequest, k int) retrieveKey {
	return retrieveKey{task: req.Task, env: req.Scope.Env, tags: strings.Join(req.Scope.Tags, "\x00"), k: k, bm25Only: req.BM25Only}
}

// get is the answer kept for key at state st.
func (c *retrieveCache) get(st retrieveState, key retrieveKey) (retrieveAnswer, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if st != c.state || c.entries == nil {
		c.misses++
		return retrieveAnswer{}, false
	}
	e, ok := c.entries[key]
	if !ok {
		c.misses++
		return retrieveAnswer{}, false
	}
	c.hits++
	c.order.MoveToFront(e)
	return e.Value.(*retrieveEntry).ans.clone(), true
}

// put keeps ans for key, computed at state st (read before the answer
// was computed), dropping every answer of an older state.
func (c *retrieveCache) put(st retrieveState, key retrieveKey, ans retrieveAnswer, size int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if st != c.state || c.entries == nil {
		c.state = st
		c.entries = map[retrieveKey]*list.Element{}
		c.order.Init()
	}
	if e, ok := c.entries[key]; ok {
		e.Value.(*retrieveEntry).ans = ans.clone()
		c.order.MoveToFront(e)
		return
	}
	c.entries[key] = c.order.PushFront(&retrieveEntry{key: key, ans: ans.clone()})
	for c.order.Len() > size {
		last := c.order.Back()
		c.order.Remove(last)
		delete(c.entries, last.Value.(*retrieveEntry).key)
	}
}

// clone copies the answer's slices, so that a caller changing what it was
// given changes nothing kept (a record's own slices included).
func (a retrieveAnswer) clone() retrieveAnswer {
	out := retrieveAnswer{notes: append([]string(nil), a.notes...), model: a.model, vectorPlan: a.vectorPlan}
	out.records = make([]Retrieved, len(a.records))
	for i, r := range a.records {
		r.Record = r.Record.Clone()
		r.BM25Rank, r.VectorRank = cloneInt(r.BM25Rank), cloneInt(r.VectorRank)
		out.records[i] = r
	}
	return out
}

func cloneInt(p *int) *int {
	if p == nil {
		return nil
	}
	n := *p
	return &n
}

// retrieveCacheSize is how many answers the cache keeps; 0: it is off.
func (s *Service) retrieveCacheSize() int {
	switch {
	case s.opt.RetrieveCache < 0:
		return 0
	case s.opt.RetrieveCache == 0:
		return defaultRetrieveCache
	}
	return s.opt.RetrieveCache
}

// retrieveStateOf is the state an answer computed now depends on; ok is
// false when the answer may not be cached (the index is behind the bank
// or cannot say how far it is, or a count failed).
func (s *Service) retrieveStateOf(ix Index) (st retrieveState, ok bool) {
	seqer, isSeqer := ix.(interface{ Seq() int64 })
	if !isSeqer {
		return st, false
	}
	var err error
	if st.bank, err = s.b.LastSeq(); err != nil {
		return st, false
	}
	if st.index = seqer.Seq(); st.index != st.bank {
		return st, false
	}
	if es := s.embStore(); es != nil {
		if st.embeddings, err = es.LastEmbeddingSeq(); err != nil {
			return st, false
		}
	}
	if v := s.vectors(); v != nil {
		vs, err := v.VectorStatus()
		if err != nil {
			return st, false
		}
		st.serving, st.servingLen, st.rejected = vs.Serving, vs.ServingLen, vs.Rejected
	}
	return st, true
}

// RetrieveCacheStats says how often the retrieval cache answered.
func (s *Service) RetrieveCacheStats() (hits, misses int64) {
	s.rcache.mu.Lock()
	defer s.rcache.mu.Unlock()
	return s.rcache.hits, s.rcache.misses
}

// cachedHybrid is hybrid's answer for req from the cache when the state
// it depends on is unchanged, else computed (and kept when it may be):
// never for a selection's query.
func (s *Service) cachedHybrid(ctx context.Context, ix Index, req RetrieveRequest, query string, scope review.Scope, cats []string, k int, res *RetrieveResult) ([]Retrieved, error) {
	size := s.retrieveCacheSize()
	if size == 0 || res.Selection != nil || len(cats) > 0 || query != req.Task {
		return s.hybrid(ctx, ix, query, scope, cats, k, !req.BM25Only, res)
	}
	st, ok := s.retrieveStateOf(ix)
	if !ok {
		return s.hybrid(ctx, ix, query, scope, cats, k, !req.BM25Only, res)
	}
	key := newRetrieveKey(req, k)
	if ans, hit := s.rcache.get(st, key); hit {
		for _, n := range ans.notes {
			res.note(n)
		}
		res.Model, res.VectorPlan = ans.model, ans.vectorPlan
		return ans.records, nil
	}
	notes := len(res.Notes)
	recs, err := s.hybrid(ctx, ix, query, scope, cats, k, !req.BM25Only, res)
	if err != nil {
		return nil, err
	}
	s.rcache.put(st, key, retrieveAnswer{records: recs, notes: res.Notes[notes:], model: res.Model, vectorPlan: res.VectorPlan}, size)
	return recs, nil
}
