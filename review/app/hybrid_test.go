package app_test

import (
	"context"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/memreview/memreview/index/embed/embedtest"
	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/app"
	"github.com/memreview/memreview/review/store"
)

// topics is the scripted endpoint's vector space in these tests: words of
// one topic point the same way, whatever else the text says.
var topics = map[string]int{
	"bluetooth": 0, "wireless": 0, "connectivity": 0,
	"cents": 1, "price": 1,
	"stars": 2, "rating": 2,
	"revenue": 3, "headcount": 3,
}

// vecBank writes recs into a new bank whose [embeddings] name srv (nil:
// none, the offline fallback) and opens it. edit, when given, changes the
// config first.
func vecBank(t *testing.T, recs []review.Record, srv *embedtest.Server, opt app.Options, edit ...func(*review.Config)) *app.Service {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "bank")
	st, err := store.Create(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cfg := review.Config{}
	if srv != nil {
		cfg.Embeddings = review.EmbeddingsConfig{BaseURL: srv.BaseURL(), Model: "topic-embed", Dims: 8, Timeout: "2s", QueryTimeout: "1s"}
	}
	for _, e := range edit {
		e(&cfg)
	}
	if err := st.SaveConfig(cfg); err != nil {
		t.Fatal(err)
	}
	if len(recs) > 0 {
		if err := st.PutRecords(recs, "test", "fixture"); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()
	if opt.Now == nil {
		opt.Now = func() time.Time { return time.Now().UTC() }
	}
	if opt.EmbedBackoff == 0 {
		opt.EmbedBackoff = 10 * time.Millisecond
	}
	svc, err := app.Open(context.Background(), dir, opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	return svc
}

func rec(id, lemma string, cat review.Category) review.Record {
	return review.Record{ID: id, Lemma: lemma, Category: cat, Confidence: 1, Scope: review.Scope{Env: "shop"}, Status: review.Active}
}

// waitEmbedded waits (bounded) until every active record has a vector.
func waitEmbedded(t *testing.T, svc *app.Service) app.EmbeddingStatus {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	st, err := svc.WaitEmbeddings(ctx, nil)
	if err != nil {
		t.Fatalf("embeddings wait: %v", err)
	}
	return st
}

func ids(rs []app.Retrieved) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Record.ID)
	}
	return out
}

// A record that shares no word with the task but is near it in vector
// space is retrieved by hybrid ranking and not by BM25, and the fused
// order is reciprocal rank fusion computed by hand.
func TestHybridFindsWhatBM25Misses(t *testing.T) {
	t.Parallel()
	srv := embedtest.New(t, embedtest.Topics(8, topics))
	svc := vecBank(t, []review.Record{
		rec("mem_conn", "attrs_g2 holds connectivity for every items_g2 row", review.Fact), // no word of the task
		rec("mem_rev", "reviewed gadgets are counted once per item", review.Procedure),     // BM25's first
		rec("mem_cents", "a price is stored in cents", review.Convention),
		rec("mem_many", "how many reviews an item has is fdbk count", review.Fact),
	}, srv, app.Options{})
	st := waitEmbedded(t, svc)
	if st.Model != "topic-embed" || st.Fallback || st.Done != 4 || st.Active != 4 {
		t.Fatalf("status after wait = %+v, want 4 of 4 of topic-embed", st)
	}
	task := "how many reviewed Bluetooth gadgets"
	res, err := svc.RetrieveWith(context.Background(), app.RetrieveRequest{Task: task, Scope: review.Scope{Env: "shop"}, K: 4, Preview: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Model != "topic-embed" || len(res.Notes) != 0 {
		t.Fatalf("model %q, notes %v: want vectors of topic-embed and no fallback", res.Model, res.Notes)
	}
	byID := map[string]app.Retrieved{}
	for _, r := range res.Records {
		byID[r.Record.ID] = r
	}
	conn, ok := byID["mem_conn"]
	if !ok || conn.BM25Rank != nil || conn.VectorRank == nil || *conn.VectorRank != 1 {
		t.Fatalf("mem_conn: %+v in %v; want it found by vectors (rank 1) and not by BM25", conn, ids(res.Records))
	}
	// RRF by hand: every record has priority 0, confidence 1 and passes
	// its checks, so the weighting leaves 1/(60+bm25) + 1/(60+vector).
	var prev float64 = math.Inf(1)
	for _, r := range res.Records {
		want := 0.0
		if r.BM25Rank != nil {
			want += 1 / float64(60+*r.BM25Rank)
		}
		if r.VectorRank != nil {
			want += 1 / float64(60+*r.VectorRank)
		}
		if math.Abs(r.Score-want) > 1e-12 || math.Abs(r.RRF-want) > 1e-12 {
			t.Errorf("%s: score %v, rrf %v; by hand %v (bm25 %v, vector %v)", r.Record.ID, r.Score, r.RRF, want, r.BM25Rank, r.VectorRank)
		}
		if r.Score > prev {
			t.Errorf("%s out of order: %v after %v", r.Record.ID, r.Score, prev)
		}
		prev = r.Score
	}
	// BM25 alone (the endpoint down: the task cannot be embedded) does not
	// find it, and says why.
	srv.SetFault(embedtest.Down)
	bm, err := svc.RetrieveWith(context.Background(), app.RetrieveRequest{Task: task, Scope: review.Scope{Env: "shop"}, K: 4, Preview: true})
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(ids(bm.Records), "mem_conn") || len(bm.Records) == 0 {
		t.Fatalf("BM25 alone retrieved %v; want hits without mem_conn", ids(bm.Records))
	}
	if len(bm.Notes) == 0 || !strings.Contains(bm.Notes[0], "endpoint unreachable") || !strings.Contains(bm.Notes[0], "BM25 only") {
		t.Fatalf("notes %v: want the reason and BM25 only", bm.Notes)
	}
}
