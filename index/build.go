package index

import (
	"errors"
	"fmt"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/document"
	"github.com/blevesearch/bleve/v2/index/scorch"
	index "github.com/blevesearch/bleve_index_api"
)

// eachDoc calls f with the bleve id and document of every item of c.
func eachDoc(c chunk, f func(id string, d doc) error) error {
	for i := range c.recs {
		if err := f(docID("record", c.recs[i].ID), recordDoc(&c.recs[i])); err != nil {
			return fmt.Errorf("index: record %s: %w", c.recs[i].ID, err)
		}
	}
	for i := range c.props {
		if err := f(docID("proposal", c.props[i].ID), proposalDoc(&c.props[i])); err != nil {
			return fmt.Errorf("index: proposal %s: %w", c.props[i].ID, err)
		}
	}
	for i := range c.trajs {
		if err := f(docID("trajectory", c.trajs[i].ID), trajectoryDoc(&c.trajs[i])); err != nil {
			return fmt.Errorf("index: trajectory %s: %w", c.trajs[i].ID, err)
		}
	}
	return nil
}

// chunkWriter is what fill writes a build's items through.
type chunkWriter interface {
	writeChunk(c chunk) error
	finish(seq int64) error
}

// batchWriter writes a build's chunks into an open index, one bleve batch
// per chunk.
type batchWriter struct {
	idx    bleve.Index
	unsafe bool // opened with unsafe_batch: finish waits for persistence
	memo   bool // analyse repeated values once a batch (analysisMemo)
}

// buildUnsafe opens a building index with unsafe_batch: safe because the
// index is disposable and a build is only swapped in once finish has seen
// everything persisted.
var buildUnsafe = true

func (w batchWriter) writeChunk(c chunk) error {
	b := w.idx.NewBatch()
	memo := analysisMemo{}
	if err := eachDoc(c, func(id string, d doc) error {
		bd, err := mapDoc(w.idx.Mapping(), id, d)
		if err != nil {
			return err
		}
		if w.memo {
			memo.apply(bd)
		}
		return b.IndexAdvanced(bd)
	}); err != nil {
		return err
	}
	if err := w.idx.Batch(b); err != nil {
		return fmt.Errorf("index: write batch: %w", err)
	}
	return nil
}

// finish is called once after every chunk is written; it records the
// mapping version and the bank sequence seq read before the items.
func (w batchWriter) finish(seq int64) error { return writeMeta(w.idx, seq, w.unsafe) }

// writeMeta records the mapping version and the bank sequence in idx; with
// wait, it returns only once that batch, and so every batch before it, is
// persisted (an index opened with unsafe_batch returns from Batch before).
func writeMeta(idx bleve.Index, seq int64, wait bool) error {
	b := idx.NewBatch()
	b.SetInternal(mappingKey, []byte(mappingVersion))
	b.SetInternal(seqKey, []byte(strconv.FormatInt(seq, 10)))
	var persisted chan error
	if wait {
		persisted = make(chan error, 1)
		b.SetPersistedCallback(func(err error) { persisted <- err })
	}
	if err := idx.Batch(b); err != nil {
		return fmt.Errorf("index: write batch: %w", err)
	}
	if wait {
		return awaitPersisted(idx, persisted)
	}
	return nil
}

// awaitPersisted waits for persisted, or fails once scorch reports a failed
// persist (it retries those for ever, so a full disk would never answer).
func awaitPersisted(idx bleve.Index, persisted <-chan error) error {
	failures := func() uint64 { return 0 }
	if adv, err := idx.Advanced(); err == nil {
		if sc, ok := adv.(*scorch.Scorch); ok {
			if st, ok := sc.Stats().(*scorch.Stats); ok {
				failures = func() uint64 { return atomic.LoadUint64(&st.TotPersistLoopErr) }
			}
		}
	}
	before := failures()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-persisted:
			if err != nil {
				return fmt.Errorf("index: persist build: %w", err)
			}
			return nil
		case <-tick.C:
			if failures() > before {
				return errors.New("index: persist build: scorch failed to write the index to disk")
			}
		}
	}
}

// buildMemo is batchWriter.memo for a build (false: BenchmarkBuildTuned's
// peer).
var buildMemo = true

// memoFields are the fields whose values repeat across a bank (a handful
// of categories, statuses, confidences, days): a build analyses each
// value once per batch (analysisMemo). Free text and ids are not.
var memoFields = map[string]bool{
	"type": true, "category": true, "env": true, "status": true, "op": true, "suspect": true,
	"passed": true, "scope_env": true, "confidence": true, "priority": true, "reward": true,
	"created": true, "updated": true, sampleField: true,
}

// analysisMemo holds the analysis of the memoFields values one batch has
// met, keyed by field, type and value.
type analysisMemo map[string]*memoised

// memoised is a field whose analysis was done for an earlier document of
// the batch with the same value: scorch's own Analyze is then a no-op.
type memoised struct {
	document.Field
	length int
	freqs  index.TokenFrequencies
}

func (m *memoised) Analyze()                                         {}
func (m *memoised) AnalyzedLength() int                              { return m.length }
func (m *memoised) AnalyzedTokenFrequencies() index.TokenFrequencies { return m.freqs }

// apply analyses bd's memoFields, or takes their analysis from the memo.
// Only a field that occurs once in bd is shared: zap merges the token
// frequencies of a field's later values into its first one's.
func (m analysisMemo) apply(bd *document.Document) {
	seen := map[string]int{}
	for _, f := range bd.Fields {
		seen[f.Name()]++
	}
	for i, f := range bd.Fields {
		if !memoFields[f.Name()] || seen[f.Name()] != 1 || !f.Options().IsIndexed() || len(f.ArrayPositions()) > 0 {
			continue
		}
		key := f.Name() + "\x00" + string(f.EncodedFieldType()) + string(f.Value())
		a, ok := m[key]
		if !ok {
			f.Analyze()
			a = &memoised{length: f.AnalyzedLength(), freqs: f.AnalyzedTokenFrequencies()}
			m[key] = a
		}
		bd.Fields[i] = &memoised{Field: f, length: a.length, freqs: a.freqs}
	}
}
