package storetest

import (
	"errors"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/memreview/memreview/review"
)

// EmbeddingStore is a Store that keeps its records' embeddings: text keys
// per record version, vectors per model and key (a feed in seq order),
// failures to retry, and trained offline embedders.
type EmbeddingStore interface {
	Store
	UnkeyedRecords(limit int) ([]review.Record, error)
	SetRecordKeys(keys []review.RecordKey) error
	Unembedded(model string, now time.Time, limit int) ([]review.KeyedRecord, error)
	PutEmbeddings(model string, vecs []review.Embedding) error
	Embeddings(model string, keys []string) (map[string][]float32, error)
	EmbeddingsSince(model string, seq int64, limit int) ([]review.Embedding, error)
	LastEmbeddingSeq() (int64, error)
	RecordsOfKeys(keys []string) (map[string][]string, error)
	FailEmbeddings(fs []review.EmbedFailure) error
	EmbedCounts(model string) (review.EmbedCounts, error)
	ActiveRecordsUpTo(n int) (int, error)
	EmbeddingModels() (map[string]int, error)
	SaveOfflineModel(m review.OfflineModel) error
	OfflineModel(model string) (*review.OfflineModel, error)
}

// RunEmbeddings checks a store's embeddings: which records need a key or
// a vector, what a write refuses, the feed's order, failures that wait
// for their retry, the counts, and offline models.
func RunEmbeddings(t *testing.T, open func(t *testing.T) EmbeddingStore) {
	t.Run("KeysFollowVersions", func(t *testing.T) {
		t.Parallel()
		b := open(t)
		Fixture(t, b)
		unkeyed := func() []string {
			t.Helper()
			rs, err := b.UnkeyedRecords(10)
			must(t, err)
			var ids []string
			for _, r := range rs {
				ids = append(ids, r.ID)
			}
			return ids
		}
		if got := unkeyed(); !slices.Equal(got, []string{"mem_a", "mem_b", "mem_c"}) {
			t.Fatalf("unkeyed = %v, want every active record", got)
		}
		must(t, b.SetRecordKeys([]review.RecordKey{{ID: "mem_a", Version: 1, TextKey: "ka"}, {ID: "mem_b", Version: 1, TextKey: "kb"}}))
		if got := unkeyed(); !slices.Equal(got, []string{"mem_c"}) {
			t.Fatalf("unkeyed after keying a and b = %v, want [mem_c]", got)
		}
		// A new version needs its key again; a retired record none.
		edit := *record(t, b, "mem_b")
		edit.Lemma = "prices are stored in whole cents"
		_, err := b.DecideRecords(ctx, review.RecordRequest{Verb: review.Edit, Record: &edit, Operator: "ana"})
		must(t, err)
		_, err = b.DecideRecords(ctx, review.RecordRequest{Verb: review.Delete, IDs: []string{"mem_c"}, Seen: map[string]int{"mem_c": 1}, Operator: "ana"})
		must(t, err)
		if got := unkeyed(); !slices.Equal(got, []string{"mem_b"}) {
			t.Fatalf("unkeyed after editing b and retiring c = %v, want [mem_b]", got)
		}
		if err := b.SetRecordKeys([]review.RecordKey{{ID: "mem_b", Version: 2}}); err == nil {
			t.Fatal("a key without text_key was stored")
		}
		if got := unkeyed(); !slices.Equal(got, []string{"mem_b"}) {
			t.Fatalf("a refused key changed what is unkeyed: %v", got)
		}
	})

	// The count of active records stops at n and leaves out the records
	// that are not active (the embedder asks whether a bank is small).
	t.Run("ActiveRecordsUpTo", func(t *testing.T) {
		t.Parallel()
		b := open(t)
		Fixture(t, b)
		must(t, b.PutRecords([]review.Record{{ID: "mem_d", Lemma: "a retired record", Category: review.Convention, Status: review.Retired, Confidence: 0.5}}, "test", "fixture"))
		for _, c := range []struct{ n, want int }{{2, 2}, {3, 3}, {10, 3}} {
			if got, err := b.ActiveRecordsUpTo(c.n); err != nil || got != c.want {
				t.Errorf("ActiveRecordsUpTo(%d) = %d, %v; want %d", c.n, got, err, c.want)
			}
		}
	})

	t.Run("VectorsAndTheFeed", func(t *testing.T) {
		t.Parallel()
		b := open(t)
		Fixture(t, b)
		must(t, b.SetRecordKeys([]review.RecordKey{{ID: "mem_a", Version: 1, TextKey: "ka"}, {ID: "mem_b", Version: 1, TextKey: "kb"}, {ID: "mem_c", Version: 1, TextKey: "kb"}}))
		va, vb := []float32{1, -2.5, 3e-7}, []float32{0, 0, math.MaxFloat32}
		// Refused whole: a bad vector among good ones stores nothing.
		for name, bad := range map[string][]review.Embedding{
			"NaN":        {{TextKey: "ka", Vector: va}, {TextKey: "kb", Vector: []float32{1, float32(math.NaN()), 0}}},
			"Inf":        {{TextKey: "kb", Vector: []float32{float32(math.Inf(1)), 0, 0}}},
			"dimensions": {{TextKey: "ka", Vector: va}, {TextKey: "kb", Vector: []float32{1, 2}}},
			"zero":       {{TextKey: "kb", Vector: []float32{0, 0, 0}}},
			"no key":     {{Vector: va}},
		} {
			if err := b.PutEmbeddings("m1", bad); err == nil {
				t.Errorf("PutEmbeddings with a %s vector succeeded", name)
			}
		}
		if n, err := b.LastEmbeddingSeq(); err != nil || n != 0 {
			t.Fatalf("refused writes stored vectors: last seq %d, %v", n, err)
		}
		must(t, b.PutEmbeddings("m1", []review.Embedding{{TextKey: "ka", Vector: va}}))
		must(t, b.PutEmbeddings("m2", []review.Embedding{{TextKey: "ka", Vector: vb}}))
		must(t, b.PutEmbeddings("m1", []review.Embedding{{TextKey: "kb", Vector: vb}, {TextKey: "ka", Vector: vb}})) // ka kept as it was
		got, err := b.Embeddings("m1", []string{"ka", "kb", "kz"})
		must(t, err)
		if len(got) != 2 || !slices.Equal(got["ka"], va) || !slices.Equal(got["kb"], vb) {
			t.Fatalf("Embeddings(m1) = %v, want ka %v and kb %v exactly", got, va, vb)
		}
		feed, err := b.EmbeddingsSince("m1", 0, 10)
		must(t, err)
		if len(feed) != 2 || feed[0].TextKey != "ka" || feed[1].TextKey != "kb" || feed[0].Seq >= feed[1].Seq {
			t.Fatalf("feed of m1 = %+v, want ka then kb in rising seq", feed)
		}
		rest, err := b.EmbeddingsSince("m1", feed[0].Seq, 10)
		must(t, err)
		if len(rest) != 1 || rest[0].TextKey != "kb" {
			t.Fatalf("feed after ka = %+v, want kb", rest)
		}
		last, err := b.LastEmbeddingSeq()
		must(t, err)
		if last != feed[1].Seq {
			t.Fatalf("last seq %d, want %d (m2's vector came before kb's)", last, feed[1].Seq)
		}
		byKey, err := b.RecordsOfKeys([]string{"kb", "ka"})
		must(t, err)
		if !slices.Equal(byKey["kb"], []string{"mem_b", "mem_c"}) || !slices.Equal(byKey["ka"], []string{"mem_a"}) {
			t.Fatalf("RecordsOfKeys = %v", byKey)
		}
		models, err := b.EmbeddingModels()
		must(t, err)
		if models["m1"] != 2 || models["m2"] != 1 {
			t.Fatalf("models = %v", models)
		}
	})

	t.Run("UnembeddedCountsAndFailures", func(t *testing.T) {
		t.Parallel()
		b := open(t)
		Fixture(t, b)
		must(t, b.SetRecordKeys([]review.RecordKey{{ID: "mem_a", Version: 1, TextKey: "ka"}, {ID: "mem_b", Version: 1, TextKey: "kb"}, {ID: "mem_c", Version: 1, TextKey: "kc"}}))
		now := b.Now()
		missing := func(at time.Time) []string {
			t.Helper()
			ks, err := b.Unembedded("m", at, 10)
			must(t, err)
			var ids []string
			for _, k := range ks {
				ids = append(ids, k.Record.ID+"="+k.TextKey)
				if k.Record.Lemma == "" {
					t.Errorf("unembedded %s came without its text", k.Record.ID)
				}
			}
			return ids
		}
		if got := missing(now); !slices.Equal(got, []string{"mem_a=ka", "mem_b=kb", "mem_c=kc"}) {
			t.Fatalf("unembedded = %v", got)
		}
		must(t, b.PutEmbeddings("m", []review.Embedding{{TextKey: "ka", Vector: []float32{1, 0}}}))
		must(t, b.FailEmbeddings([]review.EmbedFailure{{Model: "m", TextKey: "kb", LastError: "bad answer: 3 dimensions, want 2", NextTry: now.Add(5 * time.Minute)}}))
		must(t, b.FailEmbeddings([]review.EmbedFailure{{Model: "m", TextKey: "kb", LastError: "bad answer: NaN", NextTry: now.Add(5 * time.Minute)}}))
		if got := missing(now); !slices.Equal(got, []string{"mem_c=kc"}) {
			t.Fatalf("unembedded now = %v, want only mem_c (a has a vector, b waits for its retry)", got)
		}
		if got := missing(now.Add(6 * time.Minute)); !slices.Equal(got, []string{"mem_b=kb", "mem_c=kc"}) {
			t.Fatalf("unembedded after the retry time = %v, want b again", got)
		}
		c, err := b.EmbedCounts("m")
		must(t, err)
		if c.Active != 3 || c.Done != 1 || c.Failing != 1 || c.LastError != "bad answer: NaN" {
			t.Fatalf("counts = %+v, want 3 active, 1 done, 1 failing with the latest error", c)
		}
		if other, err := b.EmbedCounts("other"); err != nil || other.Active != 3 || other.Done != 0 || other.Failing != 0 {
			t.Fatalf("counts of a model with no vectors = %+v, %v", other, err)
		}
		// A vector clears the failure.
		must(t, b.PutEmbeddings("m", []review.Embedding{{TextKey: "kb", Vector: []float32{0, 1}}}))
		if c, err := b.EmbedCounts("m"); err != nil || c.Done != 2 || c.Failing != 0 || c.LastError != "" {
			t.Fatalf("counts after b's vector = %+v, %v", c, err)
		}
	})

	t.Run("OfflineModels", func(t *testing.T) {
		t.Parallel()
		b := open(t)
		if _, err := b.OfflineModel(""); !errors.Is(err, review.ErrNotFound) {
			t.Fatalf("newest offline model of an empty bank: %v, want ErrNotFound", err)
		}
		t0 := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
		must(t, b.SaveOfflineModel(review.OfflineModel{Model: "off-1", Docs: 10, Trained: t0, Data: []byte{1, 2, 3}}))
		must(t, b.SaveOfflineModel(review.OfflineModel{Model: "off-2", Docs: 13, Trained: t0.Add(time.Hour), Data: []byte{4, 5}}))
		must(t, b.SaveOfflineModel(review.OfflineModel{Model: "off-1", Docs: 99, Trained: t0.Add(2 * time.Hour), Data: []byte{9}})) // kept as first saved
		if err := b.SaveOfflineModel(review.OfflineModel{Model: "off-3"}); err == nil {
			t.Fatal("an offline model without data was saved")
		}
		m, err := b.OfflineModel("")
		must(t, err)
		if m.Model != "off-2" || m.Docs != 13 || !slices.Equal(m.Data, []byte{4, 5}) || !m.Trained.Equal(t0.Add(time.Hour)) {
			t.Fatalf("newest = %+v, want off-2", m)
		}
		m, err = b.OfflineModel("off-1")
		must(t, err)
		if m.Docs != 10 || !slices.Equal(m.Data, []byte{1, 2, 3}) {
			t.Fatalf("off-1 = %+v, want the first save", m)
		}
	})
}
