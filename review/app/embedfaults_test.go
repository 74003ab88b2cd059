package app_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/memreview/memreview/index/embed/embedtest"
	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/app"
)

// clock is a test clock the store and the embedder read.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

var faultRecords = []review.Record{
	rec("mem_conn", "attrs_g2 holds connectivity for every items_g2 row", review.Fact),
	rec("mem_rev", "reviewed gadgets are counted once per item", review.Procedure),
	rec("mem_cents", "a price is stored in cents", review.Convention),
}

// Every way the endpoint fails: embedding stops with the reason in the
// status, retrieval answers from BM25 and says why, a record's stored
// vector still finds its neighbours, and once the endpoint answers again
// every record gets its vector — the ones that failed for a bad answer
// at their retry time — with nothing lost of what was stored before.
func TestEmbeddingsEndpointFaults(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		fault embedtest.Fault
		why   string // in the status while it fails
		bad   bool   // a bad answer: the texts wait for their retry
	}{
		{"down", embedtest.Down, "endpoint unreachable", false},
		{"slow", embedtest.Slow, "endpoint timed out", false},
		{"wrong dimension", embedtest.WrongDims, "9 dimensions, want 8", true},
		{"NaN", embedtest.NaN, "bad answer", true},
		{"Inf", embedtest.Inf, "bad answer", true},
		{"fewer vectors", embedtest.Fewer, "vectors for", true},
		{"429 Retry-After", embedtest.RateLimited, "rate limited (HTTP 429)", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := embedtest.New(t, embedtest.Topics(8, topics))
			srv.SetDelay(4 * time.Second)
			srv.SetRetryAfter("1")
			clk := &clock{t: time.Date(2026, 6, 1, 10, 0, 0, 0, time.UTC)}
			// A request's timeout long enough that a loaded machine's
			// answer is not cut (and sent twice), short against Slow.
			svc := vecBank(t, faultRecords[:1], srv, app.Options{Now: clk.now}, func(c *review.Config) {
				c.Embeddings.Timeout, c.Embeddings.QueryTimeout = "1s", "300ms"
			})
			waitEmbedded(t, svc) // mem_conn has its vector
			// Two more records arrive while the endpoint fails.
			imp := `{"id":"mem_rev","lemma":"reviewed gadgets are counted once per item","category":"procedure","confidence":1,"scope":{"env":"shop"}}
{"id":"mem_cents","lemma":"a price is stored in cents","category":"convention","confidence":1,"scope":{"env":"shop"}}
`
			srv.SetFault(tc.fault)
			if _, err := svc.Import(context.Background(), app.KindRecords, []app.ImportInput{{Name: "more.jsonl", R: strings.NewReader(imp)}}, app.ImportOptions{}); err != nil {
				t.Fatal(err)
			}
			// The wait keeps trying until the failure's reason shows in its
			// progress (then this test stops it), and, asked again while
			// the endpoint still fails, runs out of time without finishing.
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			_, err := svc.WaitEmbeddings(ctx, func(st app.EmbeddingStatus) {
				if strings.Contains(st.LastError, tc.why) {
					cancel()
				}
			})
			timedOut := ctx.Err() == context.DeadlineExceeded
			cancel()
			if timedOut || !errors.Is(err, context.Canceled) {
				t.Fatalf("wait with the endpoint failing: %v, want it to keep trying until its progress shows %q", err, tc.why)
			}
			ctx, cancel = context.WithTimeout(context.Background(), 200*time.Millisecond)
			st, err := svc.WaitEmbeddings(ctx, nil)
			cancel()
			if err == nil || !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("wait with the endpoint failing: %v, want it to run out of time", err)
			}
			if st.Done != 1 || st.Active != 3 || !strings.Contains(st.LastError, tc.why) || !strings.Contains(st.String(), tc.why) {
				t.Fatalf("status %+v (%q): want 1 of 3 and %q", st, st, tc.why)
			}
			if tc.bad && st.Failing != 2 {
				t.Errorf("failing = %d, want the 2 texts waiting for their retry", st.Failing)
			}
			// Retrieval answers from BM25 and says why.
			res, err := svc.RetrieveWith(context.Background(), app.RetrieveRequest{Task: "reviewed gadgets", Scope: review.Scope{Env: "shop"}, K: 3, Preview: true})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Contains(ids(res.Records), "mem_rev") || len(res.Notes) == 0 || !strings.Contains(res.Notes[0], "BM25 only") {
				t.Fatalf("retrieval while failing: %v, notes %v; want BM25's mem_rev and a note", ids(res.Records), res.Notes)
			}
			// The endpoint answers again: everything is embedded, the bad
			// answers' texts at their retry time.
			srv.SetFault(embedtest.None)
			if tc.bad {
				ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
				st, _ := svc.WaitEmbeddings(ctx, nil)
				cancel()
				if st.Done != 1 {
					t.Fatalf("a bad answer's texts were tried again before their retry time: %+v", st)
				}
				clk.add(6 * time.Minute)
			}
			st = waitEmbedded(t, svc)
			if st.Done != 3 || st.Failing != 0 || st.LastError != "" {
				t.Fatalf("after recovery: %+v, want 3 of 3 and no error", st)
			}
			n := 0
			for _, in := range srv.Embedded() {
				if strings.Contains(in, "connectivity") {
					n++
				}
			}
			if n != 1 {
				t.Errorf("mem_conn's text was embedded %d times, want once (its vector was kept)", n)
			}
		})
	}
}

// While the endpoint is down, a stored record's vector still finds the
// records near it (the vectors the bank has), and the status says why
// new records wait.
func TestRelatedUsesStoredVectorsWhileDown(t *testing.T) {
	t.Parallel()
	srv := embedtest.New(t, embedtest.Topics(8, topics))
	svc := vecBank(t, []review.Record{
		rec("mem_conn", "attrs_g2 holds connectivity for every items_g2 row", review.Fact),
		rec("mem_bt", "bluetooth gadgets list a wireless flag", review.Fact),
		rec("mem_cents", "a price is stored in cents", review.Convention),
	}, srv, app.Options{})
	waitEmbedded(t, svc)
	srv.SetFault(embedtest.Down)
	r, err := svc.Record("mem_conn")
	if err != nil {
		t.Fatal(err)
	}
	rel, err := svc.RelatedTo(context.Background(), r, []string{"mem_conn"}, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(rel) == 0 || rel[0].Record.ID != "mem_bt" || !rel[0].Similar {
		t.Fatalf("related to mem_conn while the endpoint is down = %+v, want mem_bt first, similar", rel)
	}
}
