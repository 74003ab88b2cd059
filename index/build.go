package index

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/document"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/util"
	bolterrors "go.etcd.io/bbolt/errors"
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

// offlineWriter builds an index with scorch's offline builder: no
// introducer, persister or tiered merger runs. Each feeder maps and
// analyses its chunk's documents itself (in parallel); the builder cuts
// them into segment files of builderSegment documents, one at a time, and
// at close merges them all, in one pass while there are at most
// builderMergeMax, into the single segment the index starts with. A
// single segment also keeps BM25's statistics those of the whole bank
// (see sendChunks), at every size.
type offlineWriter struct {
	m        mapping.IndexMapping
	b        *scorch.Builder
	internal map[string][]byte // written into the index at close
}

// builderSegment is how many documents the offline builder puts in one
// segment file before the final merge; builderMergeMax is how many
// segments one merge takes (the merge of a million records' 100 segments
// is then one pass).
var (
	builderSegment  = 1000
	builderMergeMax = 1000
)

// newOfflineWriter prepares an offline build of an index with mapping m
// at path (which must not exist). bleve writes the index's metadata, as
// for an index it creates; the builder then writes its store. Its scratch
// segments live inside path, so a build cut short leaves only path behind.
func newOfflineWriter(path string, m mapping.IndexMapping) (*offlineWriter, error) {
	idx, err := bleve.NewUsing(path, m, scorch.Name, scorch.Name, map[string]interface{}{"bolt_timeout": lockTimeout})
	if errors.Is(err, bolterrors.ErrTimeout) {
		return nil, fmt.Errorf("create index %s: %w", path, ErrInUse)
	}
	if err != nil {
		return nil, fmt.Errorf("create index %s: %w", path, err)
	}
	if err := idx.Close(); err != nil {
		return nil, fmt.Errorf("create index %s: %w", path, err)
	}
	store := filepath.Join(path, "store")
	if err := os.RemoveAll(store); err != nil {
		return nil, fmt.Errorf("create index %s: %w", path, err)
	}
	mj, err := util.MarshalJSON(m)
	if err != nil {
		return nil, fmt.Errorf("create index %s: mapping: %w", path, err)
	}
	internal := map[string][]byte{string(util.MappingInternalKey): mj}
	b, err := scorch.NewBuilder(map[string]interface{}{
		"path": store, "buildPathPrefix": path, "internal": internal,
		"batchSize": builderSegment, "mergeMax": builderMergeMax,
	})
	if err != nil {
		return nil, fmt.Errorf("create index %s: %w", path, err)
	}
	return &offlineWriter{m: m, b: b, internal: internal}, nil
}

func (w *offlineWriter) writeChunk(c chunk) error {
	return eachDoc(c, func(id string, d doc) error {
		bd, err := mapDoc(w.m, id, d)
		if err != nil {
			return err
		}
		for i, f := range bd.Fields {
			if f.Options().IsIndexed() {
				f.Analyze()
				bd.Fields[i] = analysed{f}
			}
		}
		if err := w.b.Index(bd); err != nil {
			return fmt.Errorf("index: build segment: %w", err)
		}
		return nil
	})
}

// finish stores the mapping version and seq with the builder's own
// internal data, writes the remaining documents and merges the segments.
// Nothing in path is an index until the builder's last step writes
// store/root.bolt.
func (w *offlineWriter) finish(seq int64) error {
	w.internal[string(mappingKey)] = []byte(mappingVersion)
	w.internal[string(seqKey)] = []byte(strconv.FormatInt(seq, 10))
	if err := w.b.Close(); err != nil {
		return fmt.Errorf("index: finish build: %w", err)
	}
	return nil
}

// analysed is a field its feeder has analysed already: the builder's own
// analysis (one goroutine for the whole build) skips it.
type analysed struct{ document.Field }

func (analysed) Analyze() {}
