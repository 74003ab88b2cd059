package plan

import (
	"testing"

	"github.com/blevesearch/bleve/v2"

	"github.com/memreview/memreview/index/schema"
	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/sample"
)

// memEngine is an Engine on an in-memory index of recs.
func memEngine(t *testing.T, recs []review.Record) *Engine {
	t.Helper()
	idx, err := schema.NewMem()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { idx.Close() })
	b := idx.NewBatch()
	for i := range recs {
		if err := schema.Add(idx, b, schema.DocID("record", recs[i].ID), schema.RecordDoc(&recs[i])); err != nil {
			t.Fatal(err)
		}
	}
	if err := idx.Batch(b); err != nil {
		t.Fatal(err)
	}
	return NewEngine(idx, Tuning{}, nil, nil)
}

// TestPhraseCandidatesBound checks the bound phrase-relaxed declines on
// without searching: no phrase query has more candidates (documents with
// every term of its phrases, the relaxed query's hits) than it, and it is
// reached by a phrase of terms that always occur together.
func TestPhraseCandidatesBound(t *testing.T) {
	e := memEngine(t, sample.SynthRecords(400, 1))
	for _, q := range []string{`+"one row per"`, `+"is never null"`, `"recompute from"`, `+"one row per" +"never null"`, `+"price cents" +join`, `"the"`, `"zzz qqq"`} {
		p, err := e.plan(Request{Query: q, Size: 10}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		most, err := e.phraseCandidatesAtMost(p.phrases)
		if err != nil {
			t.Fatal(err)
		}
		relax(p.phrases, true)
		res, err := searchGuarded(e.idx, bleve.NewSearchRequestOptions(p.root, 0, 0, false))
		relax(p.phrases, false)
		if err != nil {
			t.Fatal(err)
		}
		if res.Total > most {
			t.Errorf("%s: %d candidates, over the bound %d", q, res.Total, most)
		}
	}
	// One term's phrase: its documents are its candidates.
	p, err := e.plan(Request{Query: `+"join"`}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	most, err := e.phraseCandidatesAtMost(p.phrases)
	if err != nil {
		t.Fatal(err)
	}
	res, err := e.Search(Request{Query: "join", Size: 1}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Total == 0 || most != res.Total {
		t.Errorf(`+"join": bound %d, documents with join %d; want equal, not 0`, most, res.Total)
	}
}
