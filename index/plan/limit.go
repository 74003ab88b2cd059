package plan

// Every search of the index has a time limit (issue 23 item 19: a query
// that makes thousands of searchers must not hold the index for minutes).

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/blevesearch/bleve/v2"
)

// SearchLimit is how long one search of the index may take; a search
// that runs longer stops with ErrSearchLimit.
const SearchLimit = 10 * time.Second

// ErrSearchLimit is a search stopped at SearchLimit.
var ErrSearchLimit = errors.New("the search took too long and was stopped")

// SearchWithin runs sr on idx for at most limit.
func SearchWithin(idx bleve.Index, sr *bleve.SearchRequest, limit time.Duration) (*bleve.SearchResult, error) {
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	res, err := idx.SearchInContext(ctx, sr)
	if err != nil && errors.Is(err, context.DeadlineExceeded) {
		return nil, fmt.Errorf("%w (after %v): ask for fewer or rarer words", ErrSearchLimit, limit)
	}
	return res, err
}
