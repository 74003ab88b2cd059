package app

import (
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/memreview/memreview/index/embed"
	"github.com/memreview/memreview/index/vecbank"
	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/store"
	"github.com/memreview/memreview/review/store/pg"
)

// Embeddings: each active record version's text (embed.RecordText: lemma,
// trigger, steps) is embedded once per model, keyed by a hash of the text,
// and stored with the bank; the vector index in the index-owning process
// (index/vecbank) serves them. The model is the configured endpoint's
// ([embeddings] base_url and model in memreview.toml, or
// MEMREVIEW_EMBEDDINGS_URL and MEMREVIEW_EMBEDDINGS_MODEL), else the
// bank's offline embedder (embed.TrainOffline on the bank's own text,
// trained again when the bank has grown by a fifth): the fallback. The
// embedder (embedworker.go) runs in the index owner: in the background in
// the TUI and serve (Options.BackgroundEmbedding), and for the few
// records a one-shot command's retrieval finds unembedded, at once.

// Environment variables that name the embeddings endpoint; they take
// precedence over memreview.toml.
const (
	EnvEmbeddingsURL   = "MEMREVIEW_EMBEDDINGS_URL"
	EnvEmbeddingsModel = "MEMREVIEW_EMBEDDINGS_MODEL"
)

// embeddingStore is what embedding needs of the store; both stores have
// it (and pass storetest.RunEmbeddings).
type embeddingStore interface {
	vecbank.Store
	UnkeyedRecords(limit int) ([]review.Record, error)
	SetRecordKeys(keys []review.RecordKey) error
	Unembedded(model string, now time.Time, limit int) ([]review.KeyedRecord, error)
	PutEmbeddings(model string, vecs []review.Embedding) error
	FailEmbeddings(fs []review.EmbedFailure) error
	EmbedCounts(model string) (review.EmbedCounts, error)
	// ActiveRecordsUpTo counts the active records up to n (no more is
	// read than it takes to find n).
	ActiveRecordsUpTo(n int) (int, error)
	SaveOfflineModel(m review.OfflineModel) error
	OfflineModel(model string) (*review.OfflineModel, error)
}

var (
	_ embeddingStore = (*store.Store)(nil)
	_ embeddingStore = (*pg.Store)(nil)
)

// endpoint is the configured embeddings endpoint, if any.
type endpoint struct {
	cfg          embed.OpenAIConfig
	queryTimeout time.Duration
}

// endpointConfig reads the endpoint from the environment and the bank's
// config; nil when none is configured. Half a configuration (a URL
// without a model) is an error that says what is missing.
func endpointConfig(c review.EmbeddingsConfig) (*endpoint, error) {
	url := firstSet(os.Getenv(EnvEmbeddingsURL), c.BaseURL)
	model := firstSet(os.Getenv(EnvEmbeddingsModel), c.Model)
	switch {
	case url == "" && model == "":
		return nil, nil
	case url == "":
		return nil, fmt.Errorf("embeddings: model %q is set but no base_url (set [embeddings] base_url or %s)", model, EnvEmbeddingsURL)
	case model == "":
		return nil, fmt.Errorf("embeddings: base_url %q is set but no model (set [embeddings] model or %s)", url, EnvEmbeddingsModel)
	}
	ep := &endpoint{cfg: embed.OpenAIConfig{BaseURL: url, Model: model, APIKeyEnv: c.APIKeyEnv, Dims: c.Dims,
		// The embedder retries and backs off itself: a request fails fast.
		Retries: 1, Backoff: 500 * time.Millisecond}, queryTimeout: vecbank.DefaultQueryTimeout}
	var err error
	if ep.cfg.Timeout, err = duration(c.Timeout, "timeout"); err != nil {
		return nil, err
	}
	if d, err := duration(c.QueryTimeout, "query_timeout"); err != nil {
		return nil, err
	} else if d > 0 {
		ep.queryTimeout = d
	}
	return ep, nil
}

// endpointOf is endpointConfig with the service's EmbedBackoff, when
// set, also bounding the embedder's own wait before it tries a failed
// request again (tests shorten both).
func (s *Service) endpointOf(c review.EmbeddingsConfig) (*endpoint, error) {
	ep, err := endpointConfig(c)
	if ep != nil && s.opt.EmbedBackoff > 0 {
		ep.cfg.Backoff = min(ep.cfg.Backoff, s.opt.EmbedBackoff)
	}
	return ep, err
}

func duration(s, field string) (time.Duration, error) {
	if strings.TrimSpace(s) == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("[embeddings] field %q: %q is not a positive Go duration (such as 30s)", field, s)
	}
	return d, nil
}

func firstSet(v ...string) string {
	for _, s := range v {
		if s = strings.TrimSpace(s); s != "" {
			return s
		}
	}
	return ""
}

// embedding is the service's embedding state: the embedder it embeds
// records with now (target), its status, the owner's vector side, and
// the offline embedders loaded from the bank.
type embedding struct {
	mu       sync.Mutex // guards the fields; step holds stepMu
	stepMu   sync.Mutex // one embedding step at a time
	side     *vecbank.Side
	target   *target
	tracker  *embed.Tracker
	offline  map[string]*embed.Offline
	stepped  int64 // the change sequence at the end of the last complete step
	tooBig   int64 // the change sequence at which the bank was too big to embed at once (0: never)
	counting bool  // a retrieval's catch-up is counting the bank: the others do not count too
	running  bool  // the background embedder runs in this process
	cfgError string
}

// target is the embedder records are embedded with now.
type target struct {
	e        embed.Embedder
	model    string
	fallback bool   // the offline embedder: no endpoint is configured
	where    string // the endpoint's URL, for the status
}

// vectorOptions are the owner's vector side's options, or nil when the
// store keeps no embeddings.
func (s *Service) vectorOptions(ixDir string) *vecbank.Options {
	src, ok := s.b.(vecbank.Store)
	if !ok || ixDir == "" {
		return nil
	}
	return &vecbank.Options{Store: src, Dir: ixDir + ".vectors", Embedder: s.queryEmbedder,
		QueryTimeout: s.queryTimeout(), Logf: s.opt.Logf, Worker: s.embedWorker}
}

// embStore is the store's embeddings, or nil.
func (s *Service) embStore() embeddingStore {
	es, _ := s.b.(embeddingStore)
	return es
}

func (s *Service) queryTimeout() time.Duration {
	cfg, err := s.b.Config()
	if err != nil {
		return 0
	}
	if ep, err := s.endpointOf(cfg.Embeddings); err == nil && ep != nil {
		return ep.queryTimeout
	}
	return 0
}

// queryEmbedder is the embedder of model for queries: the endpoint's
// (its configured model, or an older model of the same endpoint still
// being served), or an offline embedder stored in the bank.
func (s *Service) queryEmbedder(model string) (embed.Embedder, error) {
	if strings.HasPrefix(model, embed.OfflinePrefix) {
		return s.offlineModel(model)
	}
	cfg, err := s.b.Config()
	if err != nil {
		return nil, err
	}
	ep, err := s.endpointOf(cfg.Embeddings)
	if err != nil {
		return nil, err
	}
	if ep == nil {
		return nil, fmt.Errorf("model %s is served but no embeddings endpoint is configured", model)
	}
	c := ep.cfg
	c.Model, c.Timeout, c.Retries, c.MaxWait = model, ep.queryTimeout, 1, ep.queryTimeout
	return embed.NewOpenAI(c)
}

// offlineModel loads a stored offline embedder (once a process).
func (s *Service) offlineModel(model string) (*embed.Offline, error) {
	e := &s.emb
	e.mu.Lock()
	if o := e.offline[model]; o != nil {
		e.mu.Unlock()
		return o, nil
	}
	e.mu.Unlock()
	es := s.embStore()
	if es == nil {
		return nil, errors.New("this bank keeps no embeddings")
	}
	m, err := es.OfflineModel(model)
	if err != nil {
		return nil, err
	}
	o, err := embed.UnmarshalOffline(m.Data)
	if err != nil {
		return nil, fmt.Errorf("offline embedder %s: %w", m.Model, err)
	}
	e.mu.Lock()
	if e.offline == nil {
		e.offline = map[string]*embed.Offline{}
	}
	e.offline[o.Model()] = o
	e.mu.Unlock()
	return o, nil
}

// resolveTarget returns the embedder records are embedded with now: the
// configured endpoint, else the bank's offline embedder, trained (and
// stored) first when there is none or the bank has outgrown it. active is
// the number of active records, read only when train is set; train false
// only reports what would be used (the model name; nil e when it is not
// trained yet).
func (s *Service) resolveTarget(active int, train bool) (*target, error) {
	cfg, err := s.b.Config()
	if err != nil {
		return nil, err
	}
	ep, cfgErr := s.endpointOf(cfg.Embeddings)
	s.emb.mu.Lock()
	s.emb.cfgError = ""
	if cfgErr != nil {
		s.emb.cfgError = cfgErr.Error()
	}
	cur := s.emb.target
	s.emb.mu.Unlock()
	if ep != nil {
		if cur != nil && !cur.fallback && cur.model == ep.cfg.Model && cur.where == ep.cfg.BaseURL {
			return cur, nil
		}
		tr := embed.NewTracker(ep.cfg.Model, false, s.b.Now)
		o, err := embed.NewOpenAI(ep.cfg, embed.WithTracker(tr))
		if err != nil {
			return nil, err
		}
		return s.setTarget(&target{e: o, model: ep.cfg.Model, where: ep.cfg.BaseURL}, tr), nil
	}
	es := s.embStore()
	if es == nil {
		return nil, errors.New("this bank keeps no embeddings")
	}
	stored, err := es.OfflineModel("")
	if err != nil && !errors.Is(err, review.ErrNotFound) {
		return nil, err
	}
	if stored != nil && (!train || s.opt.ReadOnly || !embed.NeedsRetrain(stored.Docs, active, 0)) {
		if cur != nil && cur.fallback && cur.model == stored.Model {
			return cur, nil
		}
		o, err := s.offlineModel(stored.Model)
		if err != nil {
			return nil, err
		}
		return s.setTarget(&target{e: o, model: o.Model(), fallback: true}, nil), nil
	}
	if !train || s.opt.ReadOnly || active == 0 {
		return &target{fallback: true}, nil // nothing to learn from yet
	}
	o, err := s.trainOffline(es)
	if err != nil {
		return nil, err
	}
	return s.setTarget(&target{e: o, model: o.Model(), fallback: true}, nil), nil
}

// setTarget makes t the embedder; a new one gets a tracker of its own.
func (s *Service) setTarget(t *target, tr *embed.Tracker) *target {
	if tr == nil {
		tr = embed.NewTracker(t.model, t.fallback, s.b.Now)
	}
	s.emb.mu.Lock()
	s.emb.target, s.emb.tracker = t, tr
	side := s.emb.side
	s.emb.mu.Unlock()
	if side != nil && t.model != "" {
		if err := side.SetTarget(t.model); err != nil {
			s.opt.Warnf("vectors: index of %s: %v", t.model, err)
		}
	}
	return t
}

// trainOffline trains the offline embedder on every active record's text
// (by id: the same bank gives the same model) and stores it.
func (s *Service) trainOffline(es embeddingStore) (*embed.Offline, error) {
	recs, err := s.b.Records(review.RecordFilter{Status: review.Active})
	if err != nil {
		return nil, err
	}
	sort.Slice(recs, func(i, j int) bool { return recs[i].ID < recs[j].ID })
	texts := make([]string, 0, len(recs))
	for i := range recs {
		texts = append(texts, vecbank.TextOf(&recs[i]))
	}
	o, err := embed.TrainOffline(texts, embed.OfflineOptions{})
	if err != nil {
		return nil, fmt.Errorf("train the offline embedder: %w", err)
	}
	data, err := o.MarshalBinary()
	if err != nil {
		return nil, err
	}
	if err := es.SaveOfflineModel(review.OfflineModel{Model: o.Model(), Docs: len(texts), Trained: s.b.Now(), Data: data}); err != nil {
		return nil, err
	}
	s.emb.mu.Lock()
	if s.emb.offline == nil {
		s.emb.offline = map[string]*embed.Offline{}
	}
	s.emb.offline[o.Model()] = o
	s.emb.mu.Unlock()
	s.opt.Logf("embeddings: trained the offline embedder %s on %d records", o.Model(), len(texts))
	return o, nil
}
