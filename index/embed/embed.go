// Package embed turns record text into vectors: the Embedder interface,
// the text of a record that is embedded (RecordText) and its key
// (TextKey), a client for any OpenAI-compatible /v1/embeddings endpoint
// (OpenAI), an offline embedder trained on the bank's own text (Offline,
// the fallback when no endpoint is configured), and the status line the
// app shows while embedding runs (Tracker).
//
// It knows nothing of records, stores or the index: callers pass texts.
// It imports the standard library, go-openai and the Porter stemmer bleve
// uses (the SVD is its own: a randomised range finder and Jacobi).
package embed

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// Embedder turns texts into vectors of Dims() values, one per text, in
// order. Model names the vector space: vectors of different models are
// never compared.
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
	Model() string
	Dims() int
}

// RecordText is the text of a record that is embedded: its lemma, then
// its trigger, then its steps, one to a line, empty parts left out. These
// are the record's generalised description; category, scope and checks
// are not text to match on (scope is a filter of the vector search).
func RecordText(lemma, trigger string, steps []string) string {
	parts := make([]string, 0, 2+len(steps))
	for _, p := range append([]string{lemma, trigger}, steps...) {
		if p = strings.TrimSpace(p); p != "" {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, "\n")
}

// TextKey is the key a vector is stored under with its model: a hash of
// the text, so a record version whose text did not change is not
// embedded again.
func TextKey(text string) string {
	h := sha256.Sum256([]byte(text))
	return hex.EncodeToString(h[:16])
}
