// Package vecbank is the vector side of a bank's index: for one embedding
// model at a time it holds an in-process vector index (index/vector) of
// the active records' stored vectors, labelled with their env, category
// and tags, caught up from the bank's change sequence (a record changed,
// retired or gone) and from the bank's embeddings feed (a vector stored,
// by this process or another); it embeds a query with the model it serves
// and answers nearest-records searches and the nearest pairs of a set of
// records.
//
// It lives in the process that owns the bank's Bleve index (index/share
// holds it beside Bleve and serves other processes through the same
// socket). Its files (BANK/index.vectors/) are a cache: losing them
// loses nothing, the vectors are in the bank and the index is rebuilt
// from them.
//
// While the configured model changes (an endpoint configured, another
// model named, or the offline embedder retrained), the old model's index
// keeps serving and the new one fills beside it as its vectors are
// stored; the owner swaps them once the new model covers every active
// record (Side.TargetComplete).
//
// It imports the domain (review), index/vector and index/embed; it
// writes nothing to the bank.
package vecbank

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/memreview/memreview/index/embed"
	"github.com/memreview/memreview/index/vector"
	"github.com/memreview/memreview/review"
)

// Store is what the vector side reads of the bank. *store.Store (SQLite
// and PostgreSQL) has it.
type Store interface {
	LastSeq() (int64, error)
	ChangesSince(seq int64) ([]review.Change, error)
	RecordsByID(ids []string) (map[string]*review.Record, error)
	RecordsAfter(afterID string, limit int) ([]review.Record, error)
	Embeddings(model string, keys []string) (map[string][]float32, error)
	EmbeddingsSince(model string, seq int64, limit int) ([]review.Embedding, error)
	LastEmbeddingSeq() (int64, error)
	RecordsOfKeys(keys []string) (map[string][]string, error)
}

// KeyOf is the text key of a record's embedded text (embed.RecordText).
func KeyOf(r *review.Record) string { return embed.TextKey(TextOf(r)) }

// TextOf is the text of r that is embedded.
func TextOf(r *review.Record) string { return embed.RecordText(r.Lemma, r.Trigger, r.Steps) }

// page is how many records, changes or vectors one read takes.
const page = 1000

// saveEvery is how many applied changes and vectors make a save due.
const saveEvery = 5000

// modelIndex is the vector index of one model's vectors.
type modelIndex struct {
	model string
	path  string // the index file; its cursors sit beside it (path + ".json")

	mu     sync.Mutex // one catch-up at a time
	vx     *vector.Index
	cursor cursor
	dirty  int // changes applied since the last save
	// rejected counts vectors the index refused (another length than the
	// index's: an endpoint that changed its model under one name).
	rejected int
}

// cursor is how far an index has read the bank's two feeds.
type cursor struct {
	Model      string `json:"model"`
	Changes    int64  `json:"changes"`
	Embeddings int64  `json:"embeddings"`
}

// fileFor is the index file of model in dir.
func fileFor(dir, model string) string {
	h := sha256.Sum256([]byte(model))
	return filepath.Join(dir, "vectors-"+hex.EncodeToString(h[:8])+".idx")
}

// openModel loads model's index from dir, or builds it from the bank when
// its file is missing, damaged or of another model.
func openModel(dir, model string, src Store, logf func(string, ...any)) (*modelIndex, error) {
	mi := &modelIndex{model: model, path: fileFor(dir, model)}
	if err := mi.load(); err == nil {
		return mi, mi.catchUp(src)
	} else if !errors.Is(err, os.ErrNotExist) {
		logf("vectors: %v; rebuilding it from the bank", err)
	}
	return mi, mi.build(src)
}

func (mi *modelIndex) load() error {
	b, err := os.ReadFile(mi.path + ".json")
	if err != nil {
		return err
	}
	var c cursor
	if err := json.Unmarshal(b, &c); err != nil || c.Model != mi.model {
		return fmt.Errorf("vector index cursor %s.json is damaged or of another model", mi.path)
	}
	vx, err := vector.Load(mi.path, vector.Options{Model: mi.model})
	if err != nil {
		return err
	}
	if vx.Len() == 0 {
		vx = nil // an empty index takes its length from its first vector
	}
	mi.vx, mi.cursor = vx, c
	return nil
}

// build reads every active record and its stored vector. The feeds'
// positions are read first, so what is written meanwhile is caught up.
func (mi *modelIndex) build(src Store) error {
	mi.mu.Lock()
	defer mi.mu.Unlock()
	recSeq, err := src.LastSeq()
	if err != nil {
		return err
	}
	embSeq, err := src.LastEmbeddingSeq()
	if err != nil {
		return err
	}
	mi.vx, mi.cursor = nil, cursor{Model: mi.model}
	for after := ""; ; {
		recs, err := src.RecordsAfter(after, page)
		if err != nil {
			return fmt.Errorf("vectors: read records after %q: %w", after, err)
		}
		if len(recs) == 0 {
			break
		}
		after = recs[len(recs)-1].ID
		byID := make(map[string]*review.Record, len(recs))
		for i := range recs {
			byID[recs[i].ID] = &recs[i]
		}
		if err := mi.apply(src, byID, nil); err != nil {
			return err
		}
	}
	mi.cursor.Changes, mi.cursor.Embeddings = recSeq, embSeq
	mi.dirty = saveEvery // a build is saved at once
	return mi.saveLocked()
}

// apply brings the index in line with recs (id → the record now, nil when
// gone): active records with a stored vector of the model are added with
// their labels, others removed. vecs, when given, are vectors by key
// known already (the feed's); the rest are read from the bank.
func (mi *modelIndex) apply(src Store, recs map[string]*review.Record, vecs map[string][]float32) error {
	keys := map[string]string{}
	var need []string
	for id, r := range recs {
		if r == nil || r.Status != review.Active {
			continue
		}
		k := KeyOf(r)
		keys[id] = k
		if _, ok := vecs[k]; !ok {
			need = append(need, k)
		}
	}
	if len(need) > 0 {
		got, err := src.Embeddings(mi.model, need)
		if err != nil {
			return fmt.Errorf("vectors: read stored vectors of %s: %w", mi.model, err)
		}
		if vecs == nil {
			vecs = got
		} else {
			for k, v := range got {
				vecs[k] = v
			}
		}
	}
	for id, r := range recs {
		v, ok := vecs[keys[id]]
		if r == nil || r.Status != review.Active || !ok {
			if mi.vx != nil && mi.vx.Delete(id) {
				mi.dirty++
			}
			continue
		}
		if mi.vx == nil {
			vx, err := vector.New(vector.Options{Model: mi.model, Dims: len(v)})
			if err != nil {
				return err
			}
			mi.vx = vx
		}
		e := vector.Entry{ID: id, Vector: v, Env: r.Scope.Env, Category: string(r.Category), Tags: r.Scope.Tags}
		if err := mi.vx.Add(e); err != nil {
			// A vector of another length than the index's (the endpoint
			// changed its model under one name): left out and counted.
			mi.rejected++
			mi.vx.Delete(id)
			continue
		}
		mi.dirty++
	}
	return nil
}

// catchUp applies the records changed and the vectors stored since the
// index's cursor. A change feed longer than a quarter of the index is
// rebuilt instead.
func (mi *modelIndex) catchUp(src Store) error {
	mi.mu.Lock()
	changes, err := src.ChangesSince(mi.cursor.Changes)
	if err != nil {
		mi.mu.Unlock()
		return fmt.Errorf("vectors: read changes since %d: %w", mi.cursor.Changes, err)
	}
	if len(changes) > 2*page && len(changes) > mi.lenLocked()/4 {
		mi.mu.Unlock()
		return mi.build(src)
	}
	defer mi.mu.Unlock()
	var ids []string
	last := mi.cursor.Changes
	for _, c := range changes {
		last = max(last, c.Seq)
		if c.Kind == "record" {
			ids = append(ids, c.ID)
		}
	}
	for lo := 0; lo < len(ids); lo += page {
		part := ids[lo:min(lo+page, len(ids))]
		got, err := src.RecordsByID(part)
		if err != nil {
			return fmt.Errorf("vectors: read changed records: %w", err)
		}
		recs := make(map[string]*review.Record, len(part))
		for _, id := range part {
			recs[id] = got[id] // nil: gone
		}
		if err := mi.apply(src, recs, nil); err != nil {
			return err
		}
	}
	mi.cursor.Changes = last
	if err := mi.followEmbeddings(src); err != nil {
		return err
	}
	if mi.dirty >= saveEvery {
		return mi.saveLocked()
	}
	return nil
}

// followEmbeddings adds the vectors stored after the cursor to the records
// whose current text they embed.
func (mi *modelIndex) followEmbeddings(src Store) error {
	for {
		es, err := src.EmbeddingsSince(mi.model, mi.cursor.Embeddings, page)
		if err != nil {
			return fmt.Errorf("vectors: read the embeddings feed of %s: %w", mi.model, err)
		}
		if len(es) == 0 {
			return nil
		}
		vecs := make(map[string][]float32, len(es))
		keys := make([]string, 0, len(es))
		for _, e := range es {
			vecs[e.TextKey] = e.Vector
			keys = append(keys, e.TextKey)
		}
		byKey, err := src.RecordsOfKeys(keys)
		if err != nil {
			return err
		}
		var ids []string
		for _, k := range keys {
			ids = append(ids, byKey[k]...)
		}
		got, err := src.RecordsByID(ids)
		if err != nil {
			return err
		}
		recs := make(map[string]*review.Record, len(got))
		for id, r := range got {
			if _, ok := vecs[KeyOf(r)]; ok { // its current text: an older key's record waits for its own
				recs[id] = r
			}
		}
		if err := mi.apply(src, recs, vecs); err != nil {
			return err
		}
		mi.cursor.Embeddings = es[len(es)-1].Seq
		if len(es) < page {
			return nil
		}
	}
}

// lenLocked is how many vectors the index holds.
func (mi *modelIndex) lenLocked() int {
	if mi.vx == nil {
		return 0
	}
	return mi.vx.Len()
}

// Len is how many vectors the index holds.
func (mi *modelIndex) Len() int {
	mi.mu.Lock()
	defer mi.mu.Unlock()
	return mi.lenLocked()
}

// cursorNow is the index's cursor.
func (mi *modelIndex) cursorNow() cursor {
	mi.mu.Lock()
	defer mi.mu.Unlock()
	return mi.cursor
}

// index is the vector index to search (nil before the first vector). A
// search runs beside a catch-up: vector.Index takes its own locks.
func (mi *modelIndex) index() *vector.Index {
	mi.mu.Lock()
	defer mi.mu.Unlock()
	return mi.vx
}

// save writes the index and then its cursor, each atomically: a crash
// between them leaves an older cursor, which only replays changes.
func (mi *modelIndex) save() error {
	mi.mu.Lock()
	defer mi.mu.Unlock()
	return mi.saveLocked()
}

func (mi *modelIndex) saveLocked() error {
	if mi.dirty == 0 {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(mi.path), 0o755); err != nil {
		return err
	}
	vx := mi.vx
	if vx == nil {
		var err error
		if vx, err = vector.New(vector.Options{Model: mi.model, Dims: 1}); err != nil {
			return err
		}
	}
	if err := vx.Save(mi.path); err != nil {
		return err
	}
	b, _ := json.Marshal(mi.cursor)
	tmp := mi.path + ".json.tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return err
	}
	if err := os.Rename(tmp, mi.path+".json"); err != nil {
		return err
	}
	mi.dirty = 0
	return nil
}

// remove deletes the index's files (a model no longer served).
func (mi *modelIndex) remove() {
	os.Remove(mi.path)
	os.Remove(mi.path + ".json")
}
