package bleveext

import (
	"strings"
	"sync"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
)

// SharedTermsCache keeps what the SharedTermsQuery searches of one
// snapshot share: each filter's documents per segment and each term's
// postings and live count. An incremental hygiene run searches for a
// thousand records whose filters (type, status, env, category) and
// terms (a templated vocabulary) repeat; without it every search
// ANDs the filter's postings lists afresh and counts each term's
// deleted documents again. It keeps the last snapshot searched only,
// and at most maxCachedTerms terms; a search of another snapshot starts
// it afresh. Its bitmaps may be a segment's own, so they are handed only
// to a search of the snapshot they came from (which the search holds
// open). Safe for concurrent use; the zero value is ready.
type SharedTermsCache struct {
	mu      sync.Mutex
	snap    *scorch.IndexSnapshot
	filters map[string][]*roaring.Bitmap
	terms   map[string]*sharedTerm
}

// maxCachedTerms bounds the terms a SharedTermsCache keeps (a bank's
// identifiers are many, each searched for once or twice).
const maxCachedTerms = 1 << 16

// sharedCache is a SharedTermsCache's view of one snapshot: nil when
// there is no cache (everything is read afresh).
type sharedCache struct {
	c    *SharedTermsCache
	snap *scorch.IndexSnapshot
}

// on is c for searches of snap.
func (c *SharedTermsCache) on(snap *scorch.IndexSnapshot) *sharedCache {
	if c == nil {
		return nil
	}
	return &sharedCache{c, snap}
}

// get runs f under the cache's lock, on maps for snap (emptied when the
// cache kept another snapshot's).
func (sc *sharedCache) get(f func(filters map[string][]*roaring.Bitmap, terms map[string]*sharedTerm)) {
	c := sc.c
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.snap != sc.snap || c.filters == nil || len(c.terms) >= maxCachedTerms {
		c.snap, c.filters, c.terms = sc.snap, map[string][]*roaring.Bitmap{}, map[string]*sharedTerm{}
	}
	f(c.filters, c.terms)
}

// filter is the documents of each of segs that pass filter
// (segmentFilter), kept or made.
func (sc *sharedCache) filter(segs []*scorch.SegmentSnapshot, filter []FieldTerm) ([]*roaring.Bitmap, error) {
	var key strings.Builder
	for _, ft := range filter {
		key.WriteString(ft.Field + "\x00" + ft.Term + "\x00")
	}
	var out []*roaring.Bitmap
	if sc != nil {
		sc.get(func(filters map[string][]*roaring.Bitmap, _ map[string]*sharedTerm) { out = filters[key.String()] })
		if out != nil {
			return out, nil
		}
	}
	out = make([]*roaring.Bitmap, len(segs))
	for j, s := range segs {
		var err error
		if out[j], err = segmentFilter(s, filter); err != nil {
			return nil, err
		}
	}
	if sc != nil {
		sc.get(func(filters map[string][]*roaring.Bitmap, _ map[string]*sharedTerm) { filters[key.String()] = out })
	}
	return out, nil
}

// term is text's postings in field and its live count (termPostings),
// kept or read; never modify it.
func (sc *sharedCache) term(segs []*scorch.SegmentSnapshot, field, text string) (*sharedTerm, error) {
	key := field + "\x00" + text
	var t *sharedTerm
	if sc != nil {
		sc.get(func(_ map[string][]*roaring.Bitmap, terms map[string]*sharedTerm) { t = terms[key] })
		if t != nil {
			return t, nil
		}
	}
	t, err := termPostings(segs, field, text)
	if err != nil || sc == nil {
		return t, err
	}
	sc.get(func(_ map[string][]*roaring.Bitmap, terms map[string]*sharedTerm) { terms[key] = t })
	return t, nil
}
