package index

import (
	"errors"
	"fmt"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
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
}

// buildUnsafe opens a building index with unsafe_batch: safe because the
// index is disposable and a build is only swapped in once finish has seen
// everything persisted.
var buildUnsafe = true

func (w batchWriter) writeChunk(c chunk) error {
	b := w.idx.NewBatch()
	if err := eachDoc(c, func(id string, d doc) error { return addDoc(w.idx, b, id, d) }); err != nil {
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
