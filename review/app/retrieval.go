package app

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/memreview/memreview/index"
	"github.com/memreview/memreview/index/fusion"
	"github.com/memreview/memreview/index/vecbank"
	"github.com/memreview/memreview/index/vector"
	"github.com/memreview/memreview/review"
)

// Hybrid retrieval: the BM25 pool (index.Retrieve) and the records whose
// vectors are nearest the task (the vector side) are each ranked with the
// record's standing weighed in — priority (× max(0.1, 1 + 0.1×priority)),
// confidence (× (1 − retrieveConfidence + retrieveConfidence×confidence))
// and a failing check (× 0.5): BM25 by its weighted score as before,
// vectors by similarity × that factor — and the two ranks are fused by
// reciprocal rank fusion (k = fusion.DefaultK, 60); retired records are
// out. Without vector hits (no vectors yet, the task could not be
// embedded, nothing near enough) it is the BM25 retrieval as it was, and
// RetrieveResult.Notes says why.

// The hybrid ranking's constants (BENCHMARKS.md, issue 27: the gold set).
const (
	retrievePool       = 50   // candidates each list brings
	retrieveConfidence = 0.5  // how much a record's confidence weighs
	minSimilarity      = 0.25 // vector hits less similar than this are left out
)

var retrieveWeights = fusion.Weights{Priority: 0.1, MinFactor: 0.1, Suspect: 0.5, Confidence: retrieveConfidence}

// RetrieveResult is a retrieval and how it was made.
type RetrieveResult struct {
	Records []Retrieved
	// Notes say what fell back and why ("vectors: endpoint unreachable;
	// BM25 only", "selection: no chat endpoint is configured").
	Notes []string
	// Model is the embedding model whose vectors took part ("" none);
	// VectorPlan how the vector search ran.
	Model, VectorPlan string
	// Query is what was searched (the task, or the selection's query).
	Query string
	// Selection is what LLM-guided selection chose, when it ran.
	Selection *Selection
	// Guidelines is the guidelines section, when the request asked for it.
	Guidelines *Guide
}

// RetrieveWith is Retrieve with what it did: the fused ranks of each
// record (Retrieved.BM25Rank, VectorRank, RRF, Similarity), the notes of
// what fell back, the selection and the guidelines section.
func (s *Service) RetrieveWith(ctx context.Context, req RetrieveRequest) (res *RetrieveResult, err error) {
	sp := s.traceSearch(req)
	defer func() {
		var out []Retrieved
		if res != nil {
			out = res.Records
		}
		found(sp, out, err)
	}()
	ix, err := s.index()
	if err != nil {
		return nil, err
	}
	k := req.K
	if k <= 0 {
		k = 5
	}
	res = &RetrieveResult{Query: req.Task}
	scope, cats, query := req.Scope, []string(nil), req.Task
	if s.wantSelect(req) {
		sel, notes := s.selectFor(ctx, req)
		res.Notes = append(res.Notes, notes...)
		if sel != nil {
			res.Selection = sel
			scope, cats, query = sel.apply(scope, query)
			res.Query = query
		}
	}
	release, err := s.acquireRetrieve(ctx)
	if err != nil {
		return nil, err
	}
	recs, err := s.cachedHybrid(ctx, ix, req, query, scope, cats, k, res)
	release()
	if err != nil {
		return nil, err
	}
	res.Records = recs
	ids := make([]string, 0, len(recs))
	for _, r := range recs {
		ids = append(ids, r.Record.ID)
	}
	if req.Guidelines != nil {
		opt := *req.Guidelines
		if opt.MaxTokens <= 0 {
			if cfg, err := s.b.Config(); err == nil {
				opt.MaxTokens = cfg.Retrieval.GuidelineTokens
			}
		}
		g := Guidelines(recs, opt)
		res.Guidelines = &g
		ids = g.IDs // the agent is given these
	}
	if !req.Preview {
		if err := s.rlog.log(s.b, review.Retrieval{Client: req.Client, TaskID: req.TaskID, Session: req.Session, Task: req.Task, Records: ids}); err != nil {
			s.opt.Warnf("retrieval for %q was not logged: %v", req.Task, err)
		}
	}
	return res, nil
}

// hybrid ranks the k records for query within scope (and cats, when
// given), noting in res what it used.
func (s *Service) hybrid(ctx context.Context, ix Index, query string, scope review.Scope, cats []string, k int, vectors bool, res *RetrieveResult) ([]Retrieved, error) {
	pool := max(retrievePool, k)
	bm, err := ix.Retrieve(query, scope, pool, s.wrote.Load())
	if err != nil {
		return nil, err
	}
	var ans []vector.Hit
	if vectors {
		ans = s.vectorHits(ctx, query, "", vectorFilter(scope, cats, nil), pool, res)
	}
	allowedIn := func(recs map[string]*review.Record, id string) bool {
		r := recs[id]
		return r != nil && r.Status == review.Active && (len(cats) == 0 || containsStr(cats, string(r.Category)))
	}
	if len(ans) == 0 { // BM25 as it was: its weighted order
		return s.bm25Records(bm, k, allowedIn)
	}
	ids := make([]string, 0, len(bm)+len(ans))
	for _, h := range bm {
		ids = append(ids, h.ID)
	}
	for _, h := range ans {
		ids = append(ids, h.ID)
	}
	// The candidates are filtered and weighed by their standing; only the
	// k returned are read in full (decoding the whole pool, up to a
	// hundred records, was a fifth of a hybrid call's CPU), through the
	// standings cache (standingcache.go).
	standing, err := s.standingsCached(ids)
	if err != nil {
		return nil, err
	}
	allowed := func(id string) bool {
		st, ok := standing[id]
		return ok && st.Status == review.Active && (len(cats) == 0 || containsStr(cats, string(st.Category)))
	}
	// Each list is ranked with the records' standing already weighed in —
	// BM25 by its weighted score (index.Retrieve), vectors by similarity ×
	// the same factor — and the two ranks are fused. Weighting the fused
	// score instead would let a small confidence difference outweigh a
	// whole rank in both lists (RRF's ranks 1 and 2 differ by under 2%).
	var bmIDs, vecIDs []string
	rank := map[string]int{}
	for _, h := range bm {
		if allowed(h.ID) {
			bmIDs = append(bmIDs, h.ID)
			rank[h.ID] = len(bmIDs)
		}
	}
	sim := map[string]float32{}
	weighted := map[string]float64{}
	for _, h := range ans {
		if st := standing[h.ID]; allowed(h.ID) {
			vecIDs = append(vecIDs, h.ID)
			sim[h.ID] = h.Score
			weighted[h.ID] = float64(h.Score) * retrieveWeights.Factor(fusion.Standing{Priority: st.Priority, Confidence: st.Confidence, Suspect: st.Suspect})
		}
	}
	sort.SliceStable(vecIDs, func(i, j int) bool { return weighted[vecIDs[i]] > weighted[vecIDs[j]] })
	fused := fusion.Hybrid(bmIDs, vecIDs, 0)
	fused = fused[:min(k, len(fused))]
	top := make([]string, len(fused))
	for i, f := range fused {
		top[i] = f.ID
	}
	recs, err := s.b.RecordsByID(top)
	if err != nil {
		return nil, err
	}
	out := make([]Retrieved, 0, k)
	for _, f := range fused {
		if !allowedIn(recs, f.ID) { // changed since its standing was read
			continue
		}
		out = append(out, Retrieved{Score: f.RRF, Record: *recs[f.ID], BM25Rank: f.BM25Rank, VectorRank: f.VectorRank,
			RRF: f.RRF, Similarity: sim[f.ID]})
	}
	return out, nil
}

// standings reads the candidates' standing without decoding them.
func (s *Service) standings(ids []string) (map[string]review.RecordStanding, error) {
	return s.b.RecordStandings(ids)
}

// bm25Records are the first k of the BM25 pool that allowed lets
// through, each with its rank among those allowed. Only as many records
// are read from the store as that takes (k, and a few more for each one
// left out), not the whole pool: reading 50 records was a fifth of a
// retrieval's CPU at 100,000 records.
func (s *Service) bm25Records(bm []index.Scored, k int, allowed func(map[string]*review.Record, string) bool) ([]Retrieved, error) {
	var out []Retrieved
	n := 0 // allowed so far
	for at := 0; at < len(bm) && len(out) < k; {
		end := min(len(bm), at+k-len(out)+2)
		ids := make([]string, 0, end-at)
		for _, h := range bm[at:end] {
			ids = append(ids, h.ID)
		}
		recs, err := s.b.RecordsByID(ids)
		if err != nil {
			return nil, err
		}
		for _, h := range bm[at:end] {
			if allowed(recs, h.ID) {
				n++
				if len(out) < k {
					out = append(out, Retrieved{Score: h.Score, Record: *recs[h.ID], BM25Rank: intp(n)})
				}
			}
		}
		at = end
	}
	return out, nil
}

// vectorHits is the vector side's nearest records for text (or for key's
// stored vector), noting in res the model and plan, or why there are none.
func (s *Service) vectorHits(ctx context.Context, text, key string, f vector.Filter, k int, res *RetrieveResult) []vector.Hit {
	if strings.TrimSpace(text) == "" && key == "" {
		return nil
	}
	v := s.vectors()
	if v == nil {
		res.note("vectors: this bank's index holds none; BM25 only")
		return nil
	}
	s.catchUpEmbeddings(ctx)
	ans, err := v.VectorSearch(ctx, vecbank.Query{Text: text, Key: key, K: k, Filter: f, MinScore: minSimilarity}, s.wrote.Load(), s.ownEmbeddings())
	if err != nil {
		res.note(fmt.Sprintf("vectors: %v; BM25 only", err))
		return nil
	}
	res.Model, res.VectorPlan = ans.Model, ans.Plan
	if ans.Why != "" {
		res.note("vectors: " + ans.Why + "; BM25 only")
	}
	return ans.Hits
}

// ownEmbeddings is the embeddings feed position a search must include:
// the vectors this process stored (its own catch-up).
func (s *Service) ownEmbeddings() int64 {
	s.emb.mu.Lock()
	owner := s.emb.side != nil
	s.emb.mu.Unlock()
	if !owner {
		return 0
	}
	if es := s.embStore(); es != nil {
		n, _ := es.LastEmbeddingSeq()
		return n
	}
	return 0
}

func (r *RetrieveResult) note(s string) {
	for _, n := range r.Notes {
		if n == s {
			return
		}
	}
	r.Notes = append(r.Notes, s)
}

// vectorFilter is retrieval's scope as a vector filter: records of the
// env or of none, with one of the tags or none, of one of cats.
func vectorFilter(scope review.Scope, cats, exclude []string) vector.Filter {
	f := vector.Filter{Categories: cats, Exclude: exclude}
	if scope.Env != "" {
		f.Envs = []string{scope.Env, ""}
	}
	if len(scope.Tags) > 0 {
		f.Tags = append(append([]string(nil), scope.Tags...), "")
	}
	return f
}

func containsStr(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func intp(n int) *int { return &n }
