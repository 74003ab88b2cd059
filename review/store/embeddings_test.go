package store_test

import (
	"testing"

	"github.com/memreview/memreview/review/store"
	"github.com/memreview/memreview/review/store/storetest"
)

// The embeddings conformance suite on the SQLite store.
func TestEmbeddingsConformance(t *testing.T) {
	t.Parallel()
	storetest.RunEmbeddings(t, func(t *testing.T) storetest.EmbeddingStore {
		s, err := store.Create(t.TempDir(), store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	})
}
