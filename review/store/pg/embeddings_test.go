package pg

import (
	"testing"

	"github.com/memreview/memreview/review/store/storetest"
)

// The embeddings conformance suite on PostgreSQL (BYTEA vectors, BIGSERIAL
// feed), each case on a database of its own.
func TestEmbeddingsConformance(t *testing.T) {
	t.Parallel()
	storetest.RunEmbeddings(t, func(t *testing.T) storetest.EmbeddingStore { s, _ := open(t); return s })
}
