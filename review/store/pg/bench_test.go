package pg

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/store"
	"github.com/memreview/memreview/review/store/pg/pgtest"
	"github.com/memreview/memreview/review/store/storetest"
	"github.com/memreview/memreview/sample"
)

var durableSrv *pgtest.Server

// durable is a server with fsync on (the tests' shared one has it off), so
// that PostgreSQL pays for durability as SQLite (synchronous=FULL) does.
func durable(b *testing.B) *pgtest.Server {
	if durableSrv == nil {
		pgtest.Shared(b) // skips when PostgreSQL is absent
		s, err := pgtest.StartDurable()
		if err != nil {
			b.Fatal(err)
		}
		durableSrv = s
	}
	return durableSrv
}

// stores opens the two peers side by side: a SQLite bank directory and a
// PostgreSQL bank on the package's throwaway server.
func stores(b *testing.B) []struct {
	name string
	open func() (storetest.Store, storetest.Store) // writer, and a second store on the same bank (another "process")
} {
	return []struct {
		name string
		open func() (storetest.Store, storetest.Store)
	}{
		{"sqlite", func() (storetest.Store, storetest.Store) {
			dir := filepath.Join(b.TempDir(), "bank")
			w, err := store.Create(dir, store.Options{})
			if err != nil {
				b.Fatal(err)
			}
			r, err := store.Open(dir, store.Options{})
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { w.Close(); r.Close() })
			return w, r
		}},
		{"postgres", func() (storetest.Store, storetest.Store) {
			url, err := durable(b).CreateDB(context.Background())
			if err != nil {
				b.Fatal(err)
			}
			return openURL(b, url), openURL(b, url)
		}},
	}
}

// BenchmarkDecide is one accept of a create proposal (the decision, its new
// record version and the proposal's status in one transaction).
//
//	go test ./review/store/pg/ -run '^$' -bench Decide -benchtime 200x -count 3
func BenchmarkDecide(b *testing.B) {
	for _, st := range stores(b) {
		b.Run("store="+st.name, func(b *testing.B) {
			s, _ := st.open()
			ps := make([]review.Proposal, b.N)
			for i := range ps {
				ps[i] = review.Proposal{Op: review.OpCreate, Record: &review.Record{Lemma: fmt.Sprintf("fact %d", i), Category: review.Fact, Confidence: 0.5}}
			}
			if err := s.AddProposals(ps, nil); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := range b.N {
				if _, err := s.Decide(context.Background(), review.DecideRequest{Proposal: ps[i].ID, Verb: review.Accept, Operator: "bench"}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkImport100k imports 100,000 synthetic records in PutRecords
// batches of 5,000, as the importer does.
//
//	go test ./review/store/pg/ -run '^$' -bench Import -benchtime 1x -count 1 -timeout 30m
func BenchmarkImport100k(b *testing.B) {
	recs := sample.SynthRecords(100_000, 1)
	for _, st := range stores(b) {
		b.Run("store="+st.name, func(b *testing.B) {
			for range b.N {
				b.StopTimer()
				s, _ := st.open()
				b.StartTimer()
				for i := 0; i < len(recs); i += 5000 {
					if err := s.PutRecords(recs[i:min(i+5000, len(recs))], "bench", "import"); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(len(recs)*b.N)/b.Elapsed().Seconds(), "records/s")
		})
	}
}

// BenchmarkCommitToVisible is the time from a commit in one store to the
// moment a second store on the same bank (another connection pool, as
// another process would have) has it in ChangesSince. The PostgreSQL
// follower waits on Watch (LISTEN/NOTIFY); the SQLite follower, which has
// no notification, polls LastSeq every 10 ms.
//
//	go test ./review/store/pg/ -run '^$' -bench Visible -benchtime 100x -count 3
func BenchmarkCommitToVisible(b *testing.B) {
	for _, st := range stores(b) {
		b.Run("store="+st.name, func(b *testing.B) {
			w, r := st.open()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var wake <-chan struct{}
			if pg, ok := r.(*Store); ok {
				wake = pg.Watch(ctx)
				<-wake // listening
			}
			var total time.Duration
			b.ResetTimer()
			for i := range b.N {
				b.StopTimer()
				seen, _ := r.LastSeq()
				for len(wake) > 0 {
					<-wake
				}
				b.StartTimer()
				t0 := time.Now()
				if err := w.PutTrajectories([]review.Trajectory{{ID: fmt.Sprintf("traj_%d", i), Task: "t"}}); err != nil {
					b.Fatal(err)
				}
				for {
					if wake != nil {
						select {
						case <-wake:
						case <-time.After(2 * time.Second):
							b.Fatal("no NOTIFY within 2 s")
						}
					} else {
						time.Sleep(10 * time.Millisecond)
					}
					if chs, err := r.ChangesSince(seen); err != nil {
						b.Fatal(err)
					} else if len(chs) > 0 {
						break
					}
				}
				total += time.Since(t0)
			}
			b.ReportMetric(float64(total.Microseconds())/float64(b.N), "µs/visible")
		})
	}
}
