package bleveext

import (
	"context"
	"slices"

	index "github.com/blevesearch/bleve_index_api"
)

// PhraseCheck tells whether a phrase occurs in one of some text fields of
// a given document, as bleve's phrase searcher on a composite "_all" with
// positions decided it: within one field and one array element, each term right after the
// one before (an empty slot, a stop word, skips one position). Unlike a
// phrase searcher it never scans ahead: it reads the term vectors of the
// document it is asked about only, so checking a sample of the documents
// costs that sample.
type PhraseCheck struct {
	slots  [][]string
	fields []*fieldCheck
}

// fieldCheck is the phrase's terms in one field.
type fieldCheck struct {
	readers map[string]*termCursor
}

// termCursor is a term field reader and the document it stands on.
type termCursor struct {
	r    index.TermFieldReader
	cur  *index.TermFieldDoc
	done bool
}

// NewPhraseCheck opens readers for slots (the phrase's terms at each
// position) in every one of fields that holds a term of each non-empty
// slot.
func NewPhraseCheck(ctx context.Context, r index.IndexReader, slots [][]string, fields []string) (*PhraseCheck, error) {
	pc := &PhraseCheck{slots: slots}
	for _, f := range fields {
		fc := &fieldCheck{readers: map[string]*termCursor{}}
		ok := true
		for _, slot := range slots {
			found := false
			for _, t := range slot {
				if t == "" {
					continue
				}
				if _, seen := fc.readers[t]; !seen {
					tr, err := r.TermFieldReader(ctx, []byte(t), f, false, false, true)
					if err != nil {
						fc.close()
						pc.Close()
						return nil, err
					}
					fc.readers[t] = &termCursor{r: tr}
				}
				if fc.readers[t].r.Count() > 0 {
					found = true
				}
			}
			if !found && slices.ContainsFunc(slot, func(t string) bool { return t != "" }) {
				ok = false
				break
			}
		}
		if !ok {
			fc.close()
			continue
		}
		pc.fields = append(pc.fields, fc)
	}
	return pc, nil
}

// Holds reports whether the phrase occurs in document id. Calls must come
// in ascending id order.
func (pc *PhraseCheck) Holds(id index.IndexInternalID) bool {
	for _, fc := range pc.fields {
		if fc.holds(id, pc.slots) {
			return true
		}
	}
	return false
}

func (fc *fieldCheck) holds(id index.IndexInternalID, slots [][]string) bool {
	locs := map[string][]*index.TermFieldVector{}
	for _, slot := range slots {
		any := len(slot) == 0
		for _, t := range slot {
			if t == "" {
				any = true
				continue
			}
			if v := fc.readers[t].at(id); v != nil {
				locs[t] = v
				any = true
			}
		}
		if !any {
			return false
		}
	}
	return phraseAt(slots, locs, 0, nil)
}

// phraseAt is bleve's findPhrasePaths with no slop, as a yes or no: the
// slots from here on follow position prev (0: anywhere) in array element
// ap.
func phraseAt(slots [][]string, locs map[string][]*index.TermFieldVector, prev uint64, ap []uint64) bool {
	if len(slots) == 0 {
		return true
	}
	slot := slots[0]
	if len(slot) == 0 || (len(slot) == 1 && slot[0] == "") {
		next := prev + 1
		if prev == 0 {
			next = 0
		}
		return phraseAt(slots[1:], locs, next, ap)
	}
	for _, t := range slot {
		for _, l := range locs[t] {
			if prev != 0 && (l.Pos != prev+1 || !slices.Equal(l.ArrayPositions, ap)) {
				continue
			}
			if phraseAt(slots[1:], locs, l.Pos, l.ArrayPositions) {
				return true
			}
		}
	}
	return false
}

// at returns the term's locations in document id, or nil when the term is
// not there; the cursor moves forward only.
func (c *termCursor) at(id index.IndexInternalID) []*index.TermFieldVector {
	if c.done {
		return nil
	}
	if c.cur == nil || c.cur.ID.Compare(id) < 0 {
		next, err := c.r.Advance(id, c.cur)
		if err != nil || next == nil {
			c.done = true
			return nil
		}
		c.cur = next
	}
	if !c.cur.ID.Equals(id) {
		return nil
	}
	return c.cur.Vectors
}

func (fc *fieldCheck) close() {
	for _, c := range fc.readers {
		_ = c.r.Close()
	}
}

// Close closes every reader.
func (pc *PhraseCheck) Close() error {
	for _, fc := range pc.fields {
		fc.close()
	}
	pc.fields = nil
	return nil
}
