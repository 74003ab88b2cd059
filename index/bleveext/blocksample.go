package bleveext

import (
	"context"

	"github.com/blevesearch/bleve/v2/mapping"
	bsearch "github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	index "github.com/blevesearch/bleve_index_api"
)

// SampleBlocks is how many runs of doc numbers a BlockSampleQuery takes.
// Facets are read from doc values, which zap stores in compressed chunks
// of consecutive documents: a sample spread document by document over the
// index (as mapping version 3's hash parts of the ids were) decompresses
// nearly every chunk of every field counted (at 1,000,000 records, 2,000
// hits cost 60–90 ms that way), while a few dozen runs of consecutive
// documents decompress a few chunks each. Runs spread evenly over the
// index keep the sample from leaning on one part of it.
const SampleBlocks = 64

// BlockSampleQuery matches what Inner matches, but only in SampleBlocks
// runs of doc numbers spread evenly over the index, each sized for
// Target/SampleBlocks of Inner's Total hits, stepping over the rest
// (Advance) instead of visiting it.
type BlockSampleQuery struct {
	Inner         query.Query
	Total, Target uint64
}

func (q *BlockSampleQuery) Searcher(ctx context.Context, r index.IndexReader, m mapping.IndexMapping, options bsearch.SearcherOptions) (bsearch.Searcher, error) {
	s, err := q.Inner.Searcher(ctx, r, m, options)
	if err != nil {
		return nil, err
	}
	space := DocSpace(r)
	if space == 0 || q.Total == 0 {
		return s, nil
	}
	period := max(1, space/SampleBlocks)
	block := max(1, uint64(float64(q.Target)/SampleBlocks*float64(space)/float64(q.Total)))
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
	for d != nil && err == nil {
		n, ok := DocNumber(d.IndexInternalID)
		if !ok {
			break
		}
		if n%s.period < s.block {
			return d, nil
		}
		ctx.DocumentMatchPool.Put(d)
		d, err = s.Searcher.Advance(ctx, docID((n/s.period+1)*s.period))
	}
	return d, err
}
