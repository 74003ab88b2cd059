package index

import (
	"context"
	"encoding/binary"

	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/mapping"
	bsearch "github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	index "github.com/blevesearch/bleve_index_api"
)

// sampleBlocks is how many runs of doc numbers a facet sample takes.
// Facets are read from doc values, which zap stores in compressed chunks
// of consecutive documents: a sample spread document by document over the
// index (as version 3's hash parts of the ids were) decompresses nearly every chunk
// of every field counted (at 1,000,000 records, 2,000 hits cost 60–90 ms
// that way), while a few dozen runs of consecutive documents decompress
// a few chunks each. Runs spread evenly over the index keep the sample
// from leaning on one part of it.
const sampleBlocks = 64

// blockSampleQuery matches what inner matches, but only in sampleBlocks
// runs of doc numbers spread evenly over the index, each sized for
// target/sampleBlocks of inner's total hits, stepping over the rest
// (Advance) instead of visiting it.
type blockSampleQuery struct {
	inner         query.Query
	total, target uint64
}

func (q *blockSampleQuery) Searcher(ctx context.Context, r index.IndexReader, m mapping.IndexMapping, options bsearch.SearcherOptions) (bsearch.Searcher, error) {
	s, err := q.inner.Searcher(ctx, r, m, options)
	if err != nil {
		return nil, err
	}
	var space uint64
	if snap, ok := r.(*scorch.IndexSnapshot); ok {
		for _, seg := range snap.Segments() {
			space += uint64(seg.FullSize())
		}
	}
	if space == 0 || q.total == 0 {
		return s, nil
	}
	period := max(1, space/sampleBlocks)
	block := max(1, uint64(float64(q.target)/sampleBlocks*float64(space)/float64(q.total)))
	if block >= period {
		return s, nil
	}
	return &blockSampler{Searcher: s, period: period, block: block}, nil
}

// blockSampler passes on the hits whose doc number n has n % period <
// block, advancing past the others to the next run.
type blockSampler struct {
	bsearch.Searcher
	period, block uint64
}

func (s *blockSampler) Next(ctx *bsearch.SearchContext) (*bsearch.DocumentMatch, error) {
	d, err := s.Searcher.Next(ctx)
	return s.keep(ctx, d, err)
}

func (s *blockSampler) Advance(ctx *bsearch.SearchContext, id index.IndexInternalID) (*bsearch.DocumentMatch, error) {
	d, err := s.Searcher.Advance(ctx, id)
	return s.keep(ctx, d, err)
}

// keep returns d when it lies in a run, else the first hit of a later run.
func (s *blockSampler) keep(ctx *bsearch.SearchContext, d *bsearch.DocumentMatch, err error) (*bsearch.DocumentMatch, error) {
	for d != nil && err == nil && len(d.IndexInternalID) == 8 {
		n := binary.BigEndian.Uint64(d.IndexInternalID)
		if n%s.period < s.block {
			return d, nil
		}
		ctx.DocumentMatchPool.Put(d)
		next := make(index.IndexInternalID, 8)
		binary.BigEndian.PutUint64(next, (n/s.period+1)*s.period)
		d, err = s.Searcher.Advance(ctx, next)
	}
	return d, err
}
