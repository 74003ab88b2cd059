package index

import (
	"cmp"
	"fmt"
	"os"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"

	"github.com/memreview/memreview/index/bleveext"
	"github.com/memreview/memreview/index/schema"
	"github.com/memreview/memreview/review"
)

// eachDoc calls f with the bleve id and document of every item of c.
func eachDoc(c chunk, f func(id string, d schema.Doc) error) error {
	for i := range c.recs {
		if err := f(schema.DocID("record", c.recs[i].ID), schema.RecordDoc(&c.recs[i])); err != nil {
			return fmt.Errorf("index: record %s: %w", c.recs[i].ID, err)
		}
	}
	for i := range c.props {
		if err := f(schema.DocID("proposal", c.props[i].ID), schema.ProposalDoc(&c.props[i])); err != nil {
			return fmt.Errorf("index: proposal %s: %w", c.props[i].ID, err)
		}
	}
	for i := range c.trajs {
		if err := f(schema.DocID("trajectory", c.trajs[i].ID), schema.TrajectoryDoc(&c.trajs[i])); err != nil {
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
	idx bleve.Index
	// unsafe: the index was opened with unsafe_batch (a batch returns
	// once searchable, not once on disk: safe because the index is
	// disposable and a build is only swapped in once finish has seen
	// everything persisted), so finish waits for persistence.
	unsafe bool
}

func (w batchWriter) writeChunk(c chunk) error {
	b := w.idx.NewBatch()
	if err := eachDoc(c, func(id string, d schema.Doc) error { return schema.Add(w.idx, b, id, d) }); err != nil {
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
	b.SetInternal(mappingKey, []byte(schema.Version))
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
		return bleveext.AwaitPersisted(idx, persisted)
	}
	return nil
}

// build writes every item of the bank into a new index at path, recording
// the bank's sequence as read before the items: changes made while it reads
// are applied again by the next catch-up, which is harmless. A build that
// fails removes path.
func (ix *Index) build(path string) (bleve.Index, error) {
	return buildFrom(path, ix.buildSource(), ix.report, ix.tune.Build)
}

// buildFrom is build of src's items, report told the progress.
func buildFrom(path string, src Store, report func(done, total int), bt BuildTuning) (bleve.Index, error) {
	if err := os.RemoveAll(path); err != nil {
		return nil, fmt.Errorf("index: clear %s: %w", path, err)
	}
	m, err := schema.New()
	if err != nil {
		return nil, fmt.Errorf("index: build mapping: %w", err)
	}
	// unsafe_batch: a batch returns once it is searchable, not once it is
	// on disk, so analysis and segment building never wait for a sync;
	// the last batch (the stored sequence) waits for everything before it
	// to be persisted. A build cut short leaves only dir+".new" behind.
	cfg := map[string]interface{}{"bolt_timeout": lockTimeout, "unsafe_batch": !bt.Safe}
	for k, v := range bt.Scorch {
		cfg[k] = v
	}
	idx, err := bleve.NewUsing(path, m, scorch.Name, scorch.Name, cfg)
	if bleveext.LockTimeout(err) {
		return nil, fmt.Errorf("create index %s: %w", path, ErrInUse)
	}
	if err != nil {
		return nil, fmt.Errorf("create index %s: %w", path, err)
	}
	if err := fill(batchWriter{idx: idx, unsafe: !bt.Safe}, src, bt, report); err != nil {
		_ = idx.Close()
		_ = os.RemoveAll(path) // never trusted (only a finished build is swapped in); its space is freed
		return nil, err
	}
	return idx, nil
}

// buildFeeders is how many goroutines feed batches to bleve during a
// build: while one batch's segment is being built and introduced, the
// next one is analysed.
const buildFeeders = 2

// recordPager is what a Store may offer to be read page by page during a
// build, so that a bank of a million records is never in memory at once.
// *store.Store has it.
type recordPager interface {
	RecordsAfter(afterID string, limit int) ([]review.Record, error)
	RecordCount() (int, error)
}

// chunk is one batch's worth of the bank's items.
type chunk struct {
	recs  []review.Record
	props []review.Proposal
	trajs []review.Trajectory
}

// fill writes every item of src into the empty idx, feeders goroutines
// each sending its own batches (report is told the items written after
// each), and then, in one last batch, the mapping version and the bank
// sequence read before the items. A source whose sequence is known only
// once its records are read (seqAfterer, a bank being filled) has it, its
// proposals and its trajectories read after the records.
func fill(w chunkWriter, src Store, bt BuildTuning, report func(done, total int)) error {
	feeders := cmp.Or(bt.Feeders, buildFeeders)
	late, isLate := src.(seqAfterer)
	var seq int64
	var err error
	if !isLate {
		if seq, err = src.LastSeq(); err != nil {
			return fmt.Errorf("index: read the bank's change sequence: %w", err)
		}
	}
	var props []review.Proposal
	var trajs []review.Trajectory
	rest := func() ([]review.Proposal, []review.Trajectory, error) {
		props, err := src.Proposals()
		if err != nil {
			return nil, nil, fmt.Errorf("index: read proposals: %w", err)
		}
		trajs, err := src.Trajectories()
		if err != nil {
			return nil, nil, fmt.Errorf("index: read trajectories: %w", err)
		}
		return props, trajs, nil
	}
	if !isLate {
		if props, trajs, err = rest(); err != nil {
			return err
		}
		rest = func() ([]review.Proposal, []review.Trajectory, error) { return props, trajs, nil }
	}
	pager, paged := src.(recordPager)
	var recs []review.Record
	nrecs := 0
	if paged {
		nrecs, err = pager.RecordCount()
	} else {
		recs, err = src.Records(review.RecordFilter{})
		nrecs = len(recs)
	}
	if err != nil {
		return fmt.Errorf("index: read records: %w", err)
	}
	total := nrecs + len(props) + len(trajs)

	var written atomic.Int64
	chunks := make(chan chunk, max(feeders, 1))
	errs := make(chan error, max(feeders, 1)+1)
	var wg sync.WaitGroup
	for range max(feeders, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var failed error
			for c := range chunks {
				if failed == nil {
					failed = w.writeChunk(c)
					if failed == nil {
						report(int(written.Add(int64(len(c.recs)+len(c.props)+len(c.trajs)))), total)
					}
				}
			}
			errs <- failed
		}()
	}
	errs <- sendChunks(chunks, cmp.Or(bt.Batch, buildBatch), pager, recs, rest)
	close(chunks)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			return err
		}
	}
	if isLate {
		if seq, err = late.seqAfterItems(); err != nil {
			return err
		}
	}
	return w.finish(seq)
}

// seqAfterer is a Store whose sequence a build reads after its items
// (followSource).
type seqAfterer interface {
	seqAfterItems() (int64, error)
}

// buildBatch is how many documents a build puts in one chunk (one bleve
// batch, so one segment, in the online build).
const buildBatch = batchSize

// sendChunks cuts the bank's items into chunks of batch items, reading the
// records page by page from pager when it is set. A chunk may hold items
// of several kinds, so that a small bank is one batch and one segment
// (as one feeder wrote it): BM25's statistics are per segment until a
// merge, so a bank split into more segments would score differently
// before and after its first merge.
// rest gives the proposals and trajectories, once the records are sent.
func sendChunks(out chan<- chunk, batch int, pager recordPager, recs []review.Record, rest func() ([]review.Proposal, []review.Trajectory, error)) error {
	var cur chunk
	n := 0
	flush := func(force bool) {
		if n > 0 && (force || n >= batch) {
			out <- cur
			cur, n = chunk{}, 0
		}
	}
	if pager != nil {
		after := ""
		for {
			page, err := pager.RecordsAfter(after, batch)
			if err != nil {
				return fmt.Errorf("index: read records after %q: %w", after, err)
			}
			if len(page) == 0 {
				break
			}
			for _, r := range page {
				cur.recs = append(cur.recs, r)
				n++
				flush(false)
			}
			after = page[len(page)-1].ID
		}
	}
	for _, r := range recs {
		cur.recs = append(cur.recs, r)
		n++
		flush(false)
	}
	props, trajs, err := rest()
	if err != nil {
		return err
	}
	for _, p := range props {
		cur.props = append(cur.props, p)
		n++
		flush(false)
	}
	for _, t := range trajs {
		cur.trajs = append(cur.trajs, t)
		n++
		flush(false)
	}
	flush(true)
	return nil
}
