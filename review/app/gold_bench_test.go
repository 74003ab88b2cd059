package app

// The retrieval gold set (testdata/retrieval_gold.jsonl): tasks phrased
// in other words than the sample world's records, each with the records
// a task agent should be given (chosen by hand, BENCHMARKS.md). Recall@5
// and nDCG@5 (binary relevance) for BM25 alone, vectors alone and hybrid,
// with the offline embedder trained on the sample world:
//
//	go test ./review/app -run '^$' -bench RetrievalGold -benchtime 1x

import (
	"bufio"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/sample"
)

type goldTask struct {
	Task    string   `json:"task"`
	Env     string   `json:"env"`
	Records []string `json:"records"`
}

func readGold(b *testing.B) []goldTask {
	f, err := os.Open(filepath.Join("testdata", "retrieval_gold.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	var out []goldTask
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var g goldTask
		if err := json.Unmarshal(sc.Bytes(), &g); err != nil {
			b.Fatal(err)
		}
		out = append(out, g)
	}
	return out
}

// recallNDCG scores got (best first, cut at k) against the relevant ids.
func recallNDCG(got, rel []string, k int) (recall, ndcg float64) {
	got = got[:min(k, len(got))]
	var dcg, ideal float64
	hit := 0
	for i, id := range got {
		if slices.Contains(rel, id) {
			hit++
			dcg += 1 / math.Log2(float64(i+2))
		}
	}
	for i := range min(k, len(rel)) {
		ideal += 1 / math.Log2(float64(i+2))
	}
	return float64(hit) / float64(len(rel)), dcg / ideal
}

func BenchmarkRetrievalGold(b *testing.B) {
	dir := filepath.Join(b.TempDir(), "bank")
	if err := sample.Generate(dir, sample.Seed); err != nil {
		b.Fatal(err)
	}
	s, err := Open(context.Background(), dir, Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	st, err := s.WaitEmbeddings(ctx, nil)
	if err != nil {
		b.Fatal(err)
	}
	gold := readGold(b)
	const k = 5
	type score struct{ recall, ndcg float64 }
	sums := map[string]*score{"bm25": {}, "vectors": {}, "hybrid": {}}
	add := func(name string, got, rel []string) {
		r, n := recallNDCG(got, rel, k)
		sums[name].recall += r
		sums[name].ndcg += n
	}
	retrieveIDs := func(g goldTask, bm25 bool) []string {
		res, err := s.RetrieveWith(ctx, RetrieveRequest{Task: g.Task, Scope: review.Scope{Env: g.Env}, K: k, Preview: true, BM25Only: bm25})
		if err != nil {
			b.Fatal(err)
		}
		var ids []string
		for _, r := range res.Records {
			ids = append(ids, r.Record.ID)
		}
		return ids
	}
	for _, g := range gold {
		add("bm25", retrieveIDs(g, true), g.Records)
		add("hybrid", retrieveIDs(g, false), g.Records)
		var note RetrieveResult
		hits := s.vectorHits(ctx, g.Task, "", vectorFilter(review.Scope{Env: g.Env}, nil, nil), 4*k, &note)
		var vids []string
		for _, h := range hits {
			if r, err := s.b.Record(h.ID); err == nil && r.Status == review.Active {
				vids = append(vids, h.ID)
			}
		}
		add("vectors", vids, g.Records)
		if testing.Verbose() {
			b.Logf("%q: bm25 %v · vectors %v · hybrid %v; want %v", g.Task, retrieveIDs(g, true), vids[:min(k, len(vids))], retrieveIDs(g, false), g.Records)
		}
	}
	b.Logf("%d tasks; model %s (%d of %d records embedded)", len(gold), st.Model, st.Done, st.Active)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		retrieveIDs(gold[i%len(gold)], false)
	}
	b.StopTimer()
	n := float64(len(gold))
	for _, name := range []string{"bm25", "vectors", "hybrid"} {
		b.ReportMetric(sums[name].recall/n, name+"-recall@5")
		b.ReportMetric(sums[name].ndcg/n, name+"-nDCG@5")
	}
}
