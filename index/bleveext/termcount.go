package bleveext

import (
	"context"

	"github.com/blevesearch/bleve/v2"
	index "github.com/blevesearch/bleve_index_api"
)

// TermCounts returns, for every term of field, how many live documents
// of idx hold it: the terms from the field's dictionary, each count from
// the term's postings less the deleted documents (a postings lookup per
// term and segment, no walk over documents). The dictionary's own counts
// are not used: they include deleted documents, and zapx reports 1 for
// terms read after a single-document term in the same segment.
func TermCounts(idx bleve.Index, field string) (map[string]uint64, error) {
	fd, err := idx.FieldDict(field)
	if err != nil {
		return nil, err
	}
	var terms []string
	for {
		e, err := fd.Next()
		if err != nil {
			fd.Close()
			return nil, err
		}
		if e == nil {
			break
		}
		terms = append(terms, e.Term)
	}
	fd.Close()
	counts := make(map[string]uint64, len(terms))
	err = Snapshot(idx, func(r index.IndexReader) error {
		for _, t := range terms {
			n, err := TermCount(r, field, t)
			if err != nil {
				return err
			}
			if n > 0 {
				counts[t] = n
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return counts, nil
}

// TermCount is how many live documents of r hold term in field.
func TermCount(r index.IndexReader, field, term string) (uint64, error) {
	tfr, err := r.TermFieldReader(context.Background(), []byte(term), field, false, false, false)
	if err != nil {
		return 0, err
	}
	defer tfr.Close()
	return tfr.Count(), nil
}
