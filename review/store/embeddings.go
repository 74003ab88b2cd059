package store

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/memreview/memreview/review"
)

// Embeddings live with the bank, so a second process, or a second machine
// on a team bank, does not embed again. Four tables (schema 4→5):
//
//   - record_texts: the text key of each active record's current version
//     (what the embedder writes after reading the record), so "active
//     records without a vector of model M" is one query;
//   - embeddings: a vector per model and text key; seq orders them as a
//     feed the vector index follows (writes take the bank's write lock, so
//     on PostgreSQL too seq grows in commit order);
//   - embed_failures: texts whose embedding failed for a reason that a
//     retry at once would not fix, and when to try again;
//   - offline_models: the trained offline embedders.
//
// None of these writes appends to the change sequence: vectors are derived
// data, and the records, proposals and index followers see no change.

const embeddingsSchema = `CREATE TABLE IF NOT EXISTS record_texts(id TEXT PRIMARY KEY, version INTEGER NOT NULL, text_key TEXT NOT NULL);
	CREATE INDEX IF NOT EXISTS record_texts_key ON record_texts(text_key);
	CREATE TABLE IF NOT EXISTS embeddings(seq INTEGER PRIMARY KEY AUTOINCREMENT, model TEXT NOT NULL, text_key TEXT NOT NULL,
		dims INTEGER NOT NULL, vector BLOB NOT NULL, created TEXT NOT NULL, UNIQUE(model, text_key));
	CREATE TABLE IF NOT EXISTS embed_failures(model TEXT NOT NULL, text_key TEXT NOT NULL, attempts INTEGER NOT NULL,
		last_error TEXT NOT NULL, next_try TEXT NOT NULL, PRIMARY KEY(model, text_key));
	CREATE TABLE IF NOT EXISTS offline_models(model TEXT PRIMARY KEY, docs INTEGER NOT NULL, trained TEXT NOT NULL, data BLOB NOT NULL);`

// currentKey joins a record (alias r) to the text key of its current
// version (alias t).
const currentKey = `records r JOIN record_texts t ON t.id = r.id AND t.version = r.version`

// UnkeyedRecords returns up to limit active records, by id, whose current
// version has no text key yet (new, changed, or never keyed).
func (s *Store) UnkeyedRecords(limit int) ([]review.Record, error) {
	q := `SELECT r.body, ` + suspectOf("r") + ` FROM records r LEFT JOIN record_texts t ON t.id = r.id AND t.version = r.version
		WHERE r.status = 'active' AND t.id IS NULL ORDER BY r.id LIMIT ?`
	return queryRows(s.rd, q, []any{limit}, scanRecord)
}

// SetRecordKeys stores the text key of each record version, in one
// transaction.
func (s *Store) SetRecordKeys(keys []review.RecordKey) error {
	if len(keys) == 0 {
		return nil
	}
	return s.tx(context.Background(), func(t querier) error {
		for _, k := range keys {
			if k.ID == "" || k.TextKey == "" {
				return fmt.Errorf("record key %q: id and text_key are required", k.ID)
			}
			if _, err := t.Exec(`INSERT INTO record_texts(id, version, text_key) VALUES(?,?,?)
				ON CONFLICT(id) DO UPDATE SET version = excluded.version, text_key = excluded.text_key`, k.ID, k.Version, k.TextKey); err != nil {
				return fmt.Errorf("record key of %s: %w", k.ID, err)
			}
		}
		return nil
	})
}

// Unembedded returns up to limit active records, by id, whose current
// text has no vector of model and is not waiting for a retry after a
// failure (a failure whose next try is after now), each with its key.
func (s *Store) Unembedded(model string, now time.Time, limit int) ([]review.KeyedRecord, error) {
	q := `SELECT r.body, ` + suspectOf("r") + `, t.text_key FROM ` + currentKey + `
		WHERE r.status = 'active'
		AND NOT EXISTS (SELECT 1 FROM embeddings e WHERE e.model = ? AND e.text_key = t.text_key)
		AND NOT EXISTS (SELECT 1 FROM embed_failures f WHERE f.model = ? AND f.text_key = t.text_key AND f.next_try > ?)
		ORDER BY r.id LIMIT ?`
	return queryRows(s.rd, q, []any{model, model, ts(now), limit}, func(rows *sql.Rows) (review.KeyedRecord, error) {
		var body, key string
		var kr review.KeyedRecord
		if err := rows.Scan(&body, &kr.Record.Suspect, &key); err != nil {
			return kr, err
		}
		suspect := kr.Record.Suspect
		err := unmarshal(body, &kr.Record)
		kr.Record.Suspect, kr.TextKey = suspect, key
		return kr, err
	})
}

// suspectOf is suspectSQL for the records table under alias a.
func suspectOf(a string) string {
	return `EXISTS(SELECT 1 FROM check_results c WHERE c.record_id = ` + a + `.id AND c.verdict NOT IN ('same', 'env-changed'))`
}

// PutEmbeddings stores vectors of model under their text keys (a key
// stored already keeps its vector) and clears their failures, in one
// transaction. Every vector must be finite, not all zero, and of one
// length; nothing is stored otherwise.
func (s *Store) PutEmbeddings(model string, vecs []review.Embedding) error {
	if model == "" {
		return errors.New("put embeddings: field \"model\" is empty")
	}
	if len(vecs) == 0 {
		return nil
	}
	dims := len(vecs[0].Vector)
	for i, v := range vecs {
		if v.TextKey == "" {
			return fmt.Errorf("put embeddings: vector %d: field \"text_key\" is empty", i+1)
		}
		if err := checkVector(v.Vector, dims); err != nil {
			return fmt.Errorf("put embeddings: vector %d (%s): %w", i+1, v.TextKey, err)
		}
	}
	now := ts(s.Now())
	return s.tx(context.Background(), func(t querier) error {
		for _, v := range vecs {
			if _, err := t.Exec(`INSERT INTO embeddings(model, text_key, dims, vector, created) VALUES(?,?,?,?,?)
				ON CONFLICT(model, text_key) DO NOTHING`, model, v.TextKey, dims, encodeVector(v.Vector), now); err != nil {
				return fmt.Errorf("put embeddings: %w", err)
			}
			if _, err := t.Exec(`DELETE FROM embed_failures WHERE model = ? AND text_key = ?`, model, v.TextKey); err != nil {
				return err
			}
		}
		return nil
	})
}

func checkVector(v []float32, dims int) error {
	if len(v) == 0 || len(v) != dims {
		return fmt.Errorf("%d values, want %d", len(v), dims)
	}
	zero := true
	for j, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return fmt.Errorf("value %d is %v", j, x)
		}
		zero = zero && x == 0
	}
	if zero {
		return errors.New("every value is zero")
	}
	return nil
}

// Embeddings returns the stored vectors of model for those of keys that
// have one.
func (s *Store) Embeddings(model string, keys []string) (map[string][]float32, error) {
	out := make(map[string][]float32, len(keys))
	err := inChunks(keys, func(in string, args []any) error {
		rows, err := s.rd.Query(`SELECT text_key, vector FROM embeddings WHERE model = ? AND text_key IN (`+in+`)`, append([]any{model}, args...)...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var key string
			var b []byte
			if err := rows.Scan(&key, &b); err != nil {
				return err
			}
			v, err := decodeVector(b)
			if err != nil {
				return fmt.Errorf("embedding %s of %s: %w", key, model, err)
			}
			out[key] = v
		}
		return rows.Err()
	})
	return out, err
}

// EmbeddingsSince returns up to limit vectors of model stored after seq,
// in seq order: the feed a vector index follows.
func (s *Store) EmbeddingsSince(model string, seq int64, limit int) ([]review.Embedding, error) {
	return queryRows(s.rd, `SELECT seq, text_key, vector FROM embeddings WHERE model = ? AND seq > ? ORDER BY seq LIMIT ?`,
		[]any{model, seq, limit}, func(rows *sql.Rows) (review.Embedding, error) {
			var e review.Embedding
			var b []byte
			if err := rows.Scan(&e.Seq, &e.TextKey, &b); err != nil {
				return e, err
			}
			v, err := decodeVector(b)
			e.Vector = v
			return e, err
		})
}

// LastEmbeddingSeq is the seq of the newest vector stored (of any model);
// 0 when there is none.
func (s *Store) LastEmbeddingSeq() (int64, error) {
	var n sql.NullInt64
	err := s.rd.QueryRow(`SELECT max(seq) FROM embeddings`).Scan(&n)
	return n.Int64, err
}

// RecordsOfKeys returns, for each of keys, the records whose keyed
// version has that text.
func (s *Store) RecordsOfKeys(keys []string) (map[string][]string, error) {
	out := map[string][]string{}
	err := inChunks(keys, func(in string, args []any) error {
		rows, err := s.rd.Query(`SELECT text_key, id FROM record_texts WHERE text_key IN (`+in+`) ORDER BY id`, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var key, id string
			if err := rows.Scan(&key, &id); err != nil {
				return err
			}
			out[key] = append(out[key], id)
		}
		return rows.Err()
	})
	return out, err
}

// FailEmbeddings records that embedding these texts failed: each one's
// attempts grow by one and its next try, error and model are set.
func (s *Store) FailEmbeddings(fs []review.EmbedFailure) error {
	if len(fs) == 0 {
		return nil
	}
	return s.tx(context.Background(), func(t querier) error {
		for _, f := range fs {
			if f.Model == "" || f.TextKey == "" {
				return errors.New("embedding failure: model and text_key are required")
			}
			if _, err := t.Exec(`INSERT INTO embed_failures(model, text_key, attempts, last_error, next_try) VALUES(?,?,1,?,?)
				ON CONFLICT(model, text_key) DO UPDATE SET attempts = embed_failures.attempts + 1,
				last_error = excluded.last_error, next_try = excluded.next_try`, f.Model, f.TextKey, f.LastError, ts(f.NextTry)); err != nil {
				return fmt.Errorf("embedding failure: %w", err)
			}
		}
		return nil
	})
}

// EmbedFailures returns model's failures, the latest next try first, at
// most limit.
func (s *Store) EmbedFailures(model string, limit int) ([]review.EmbedFailure, error) {
	return queryRows(s.rd, `SELECT model, text_key, attempts, last_error, next_try FROM embed_failures WHERE model = ?
		ORDER BY next_try DESC, text_key LIMIT ?`, []any{model, limit}, func(rows *sql.Rows) (review.EmbedFailure, error) {
		var f review.EmbedFailure
		var next string
		if err := rows.Scan(&f.Model, &f.TextKey, &f.Attempts, &f.LastError, &next); err != nil {
			return f, err
		}
		t, err := time.Parse(review.TimestampLayout, next)
		f.NextTry = t
		return f, err
	})
}

// ActiveRecordsUpTo is how many active records there are, counted up to
// n: no more is read than it takes to find n.
func (s *Store) ActiveRecordsUpTo(n int) (int, error) {
	var c int
	err := s.rd.QueryRow(`SELECT count(*) FROM (SELECT 1 FROM records WHERE status = 'active' LIMIT ?) AS active`, n).Scan(&c)
	return c, err
}

// EmbedCounts says how many active records there are, how many of them
// have a vector of model, and how many wait for a retry after a failure.
func (s *Store) EmbedCounts(model string) (review.EmbedCounts, error) {
	var c review.EmbedCounts
	if err := s.rd.QueryRow(`SELECT count(*) FROM records WHERE status = 'active'`).Scan(&c.Active); err != nil {
		return c, err
	}
	has := `EXISTS (SELECT 1 FROM embeddings e WHERE e.model = ? AND e.text_key = t.text_key)`
	if err := s.rd.QueryRow(`SELECT count(*) FROM `+currentKey+` WHERE r.status = 'active' AND `+has, model).Scan(&c.Done); err != nil {
		return c, err
	}
	if err := s.rd.QueryRow(`SELECT count(*) FROM `+currentKey+` WHERE r.status = 'active' AND NOT `+has+`
		AND EXISTS (SELECT 1 FROM embed_failures f WHERE f.model = ? AND f.text_key = t.text_key)`, model, model).Scan(&c.Failing); err != nil {
		return c, err
	}
	if c.Failing > 0 {
		fs, err := s.EmbedFailures(model, 1)
		if err != nil {
			return c, err
		}
		if len(fs) > 0 {
			c.LastError = fs[0].LastError
		}
	}
	return c, nil
}

// EmbeddingModels returns how many vectors each model has stored.
func (s *Store) EmbeddingModels() (map[string]int, error) {
	rows, err := s.rd.Query(`SELECT model, count(*) FROM embeddings GROUP BY model`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var m string
		var n int
		if err := rows.Scan(&m, &n); err != nil {
			return nil, err
		}
		out[m] = n
	}
	return out, rows.Err()
}

// SaveOfflineModel stores a trained offline embedder (a model stored
// already is kept as it is: the same name is the same training).
func (s *Store) SaveOfflineModel(m review.OfflineModel) error {
	if m.Model == "" || len(m.Data) == 0 {
		return errors.New("offline model: model and data are required")
	}
	return s.tx(context.Background(), func(t querier) error {
		_, err := t.Exec(`INSERT INTO offline_models(model, docs, trained, data) VALUES(?,?,?,?) ON CONFLICT(model) DO NOTHING`,
			m.Model, m.Docs, ts(m.Trained), m.Data)
		return err
	})
}

// OfflineModel returns the stored offline embedder named model, or the
// newest one when model is ""; a wrapped review.ErrNotFound when there is
// none.
func (s *Store) OfflineModel(model string) (*review.OfflineModel, error) {
	q, args := `SELECT model, docs, trained, data FROM offline_models WHERE model = ?`, []any{model}
	if model == "" {
		q, args = `SELECT model, docs, trained, data FROM offline_models ORDER BY trained DESC, model DESC LIMIT 1`, nil
	}
	var m review.OfflineModel
	var trained string
	err := s.rd.QueryRow(q, args...).Scan(&m.Model, &m.Docs, &trained, &m.Data)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, notFound("offline model", model)
	}
	if err != nil {
		return nil, err
	}
	if m.Trained, err = time.Parse(review.TimestampLayout, trained); err != nil {
		return nil, fmt.Errorf("offline model %s: trained %q: %w", m.Model, trained, err)
	}
	return &m, nil
}

// encodeVector is a vector as stored: little-endian float32s.
func encodeVector(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

func decodeVector(b []byte) ([]float32, error) {
	if len(b) == 0 || len(b)%4 != 0 {
		return nil, fmt.Errorf("corrupt vector: %d bytes", len(b))
	}
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v, nil
}
