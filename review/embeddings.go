package review

import "time"

// A bank keeps, beside its records, the vectors its records' text was
// embedded to (the index's vector search and hybrid retrieval use them):
// each text is embedded once per model and stored under its key (a hash
// of the text, index/embed.TextKey), so a record version whose text did
// not change, or a second process, does not embed it again. These are the
// types the stores read and write them as.

// EmbeddingsConfig is memreview.toml [embeddings]: an OpenAI-compatible
// /v1/embeddings endpoint (ollama, vLLM, llama.cpp's server, OpenAI).
// Without base_url and model the bank uses its offline embedder.
type EmbeddingsConfig struct {
	BaseURL string `toml:"base_url,omitempty"`
	Model   string `toml:"model,omitempty"`
	// APIKeyEnv names the environment variable that holds the key (none
	// for servers that take no key).
	APIKeyEnv string `toml:"api_key_env,omitempty"`
	// Dims is the vector length the model gives (0: what it answers).
	Dims int `toml:"dims,omitempty"`
	// Timeout bounds one request (a Go duration; default 30s), and
	// QueryTimeout the embedding of a task at retrieval (default 3s).
	Timeout      string `toml:"timeout,omitempty"`
	QueryTimeout string `toml:"query_timeout,omitempty"`
}

// RetrievalConfig is memreview.toml [retrieval].
type RetrievalConfig struct {
	// Select turns LLM-guided selection on for every retrieval (the
	// curator's chat endpoint chooses filters and the query).
	Select bool `toml:"select,omitempty"`
	// SelectTimeout bounds the selection call (a Go duration; default 10s).
	SelectTimeout string `toml:"select_timeout,omitempty"`
	// GuidelineTokens is the token budget of the guidelines format
	// (default 1,200).
	GuidelineTokens int `toml:"guideline_tokens,omitempty"`
}

// RecordKey is the text key of one version of a record.
type RecordKey struct {
	ID      string
	Version int
	TextKey string
}

// Embedding is a stored vector: a text's key, its vector, and the
// position (Seq) it was stored at in the bank's embeddings feed.
type Embedding struct {
	Seq     int64
	TextKey string
	Vector  []float32
}

// EmbedFailure says that embedding a text with a model failed for a
// reason that trying at once will not fix (a bad answer, a refusal); it is
// tried again from NextTry on, so no record stays unembedded for good.
type EmbedFailure struct {
	Model     string    `json:"model"`
	TextKey   string    `json:"text_key"`
	Attempts  int       `json:"attempts"`
	LastError string    `json:"last_error"`
	NextTry   time.Time `json:"next_try"`
}

// EmbedCounts is how far a model's embedding of the active records has
// come: Done of Active have a vector of it; Failing more wait for a retry
// after a failure (EmbedFailure), the newest of which said LastError.
type EmbedCounts struct {
	Active    int    `json:"active"`
	Done      int    `json:"done"`
	Failing   int    `json:"failing,omitempty"`
	LastError string `json:"last_error,omitempty"`
}

// OfflineModel is a trained offline embedder stored with the bank
// (index/embed.Offline in its binary form), so every process embeds with
// the same one.
type OfflineModel struct {
	Model   string
	Docs    int // texts it was trained on
	Trained time.Time
	Data    []byte
}

// KeyedRecord is an active record and the text key of its version.
type KeyedRecord struct {
	Record  Record
	TextKey string
}
