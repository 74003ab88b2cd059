package app_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/app"
	"github.com/memreview/memreview/review/store/pg"
	"github.com/memreview/memreview/review/store/pg/pgtest"
	"github.com/memreview/memreview/sample"
)

// BenchmarkTeam puts four operators and one serve process (each its own
// service, so its own connection pool) on one PostgreSQL bank of 10,000
// records for $MEMREVIEW_TEAM_SECONDS (default 10): each operator takes
// the first proposal nobody else has claimed, claims it, decides it
// (accept or reject) and releases it, as the TUI does; the serve process
// searches without pause. It reports decisions per second, conflicts
// (a claim or a decision another operator won) and the searches' p99.
//
//	MEMREVIEW_TEAM_SECONDS=60 go test ./review/app/ -run '^$' -bench Team -benchtime 1x
func BenchmarkTeam(b *testing.B) {
	secs, _ := strconv.Atoi(os.Getenv("MEMREVIEW_TEAM_SECONDS"))
	if secs <= 0 {
		secs = 10
	}
	srv, err := pgtest.StartDurable()
	if err != nil {
		if err.Error() == pgtest.Missing {
			b.Skip(pgtest.Missing)
		}
		b.Fatal(err)
	}
	defer srv.Close()
	home := b.TempDir()
	b.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "config"))
	b.Setenv("XDG_CACHE_HOME", filepath.Join(home, "cache"))
	ctx := context.Background()
	url, err := srv.CreateDB(ctx)
	if err != nil {
		b.Fatal(err)
	}
	open := func(op string) *app.Service {
		svc, err := app.Open(ctx, url, app.Options{Operator: op})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { svc.Close() })
		return svc
	}
	serve := open("serve")
	direct, err := pg.Open(ctx, url, pg.Options{})
	if err != nil {
		b.Fatal(err)
	}
	if err := direct.PutRecords(sample.SynthRecords(10_000, 1), "bench", "import"); err != nil {
		b.Fatal(err)
	}
	direct.Close()
	ps := make([]review.Proposal, 2_000)
	for i := range ps {
		ps[i] = review.Proposal{Op: review.OpCreate, Record: &review.Record{Lemma: fmt.Sprintf("finding %d about orders", i), Category: review.Fact, Confidence: 0.5}}
	}
	if err := serve.AddProposals(ps, nil); err != nil {
		b.Fatal(err)
	}
	if _, err := serve.Reindex(); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	deadline := time.Now().Add(time.Duration(secs) * time.Second)
	var decided, conflicts atomic.Int64
	var tQueue, tClaim, tDecide, tRelease atomic.Int64 // summed nanoseconds per step
	since := func(sum *atomic.Int64, t0 time.Time) { sum.Add(int64(time.Since(t0))) }
	var wg sync.WaitGroup
	for i := range 4 {
		op := fmt.Sprintf("op%d", i)
		svc := open(op)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; time.Now().Before(deadline); n++ {
				t0 := time.Now()
				q, err := svc.Queue()
				if err != nil {
					b.Error(err)
					return
				}
				claims, err := svc.Claims()
				since(&tQueue, t0)
				if err != nil {
					b.Error(err)
					return
				}
				free := review.Unclaimed(q, claims, op)
				if len(free) == 0 {
					return
				}
				p := free[0]
				t0 = time.Now()
				_, err = svc.Claim(p.ID, op, review.ClaimTTL)
				since(&tClaim, t0)
				if err != nil {
					conflicts.Add(1)
					continue
				}
				verb := review.Accept
				if n%3 == 2 {
					verb = review.Reject
				}
				t0 = time.Now()
				_, err = svc.Decide(ctx, review.DecideRequest{Proposal: p.ID, Verb: verb, Operator: op})
				since(&tDecide, t0)
				var ce *review.ConflictError
				switch {
				case err == nil:
					decided.Add(1)
				case errors.As(err, &ce):
					conflicts.Add(1)
				default:
					b.Error(err)
					return
				}
				t0 = time.Now()
				svc.Release(p.ID, op)
				since(&tRelease, t0)
			}
		}()
	}
	var lat []time.Duration
	for time.Now().Before(deadline) {
		t0 := time.Now()
		if _, err := serve.Search(app.SearchRequest{Query: "orders join", Type: "record", Size: 10}); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t0))
	}
	wg.Wait()
	b.StopTimer()
	ds, err := serve.Decisions()
	if err != nil {
		b.Fatal(err)
	}
	seen := map[string]bool{}
	for _, d := range ds {
		if seen[d.Proposal] {
			b.Fatalf("proposal %s was decided twice", d.Proposal)
		}
		seen[d.Proposal] = true
	}
	if int64(len(ds)) != decided.Load() {
		b.Fatalf("the bank holds %d decisions, the operators saw %d succeed", len(ds), decided.Load())
	}
	slices.Sort(lat)
	b.ReportMetric(float64(decided.Load())/float64(secs), "decisions/s")
	b.ReportMetric(float64(conflicts.Load()), "conflicts")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "search-p99-ms")
	b.ReportMetric(float64(len(lat)), "searches")
	if n := decided.Load() + conflicts.Load(); n > 0 {
		for _, m := range []struct {
			name string
			sum  *atomic.Int64
		}{{"queue", &tQueue}, {"claim", &tClaim}, {"decide", &tDecide}, {"release", &tRelease}} {
			b.ReportMetric(float64(m.sum.Load())/float64(n)/1e6, m.name+"-ms")
		}
	}
}
