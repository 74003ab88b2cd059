package index

// idPageMax is the deepest page (From) idPage serves; deeper pages of a
// blank query go through bleve's sort.
const idPageMax = 10_000

// idPage answers the hits of a blank query over one type sorted by _id
// alone (the bank browser's blank list) from the _id field's dictionary,
// which holds every document's id in that order, instead of loading the
// id of every hit to sort them: it reads From+Size terms with the type's
// prefix and keeps the live ones (a replaced or deleted document's id
// stays in the dictionary until a merge). ok is false when it cannot
// answer. Callers hold ix.mu.
func (ix *Index) idPage(typ string, from, size int) (hits []Hit, ok bool) {
	if from > idPageMax {
		return nil, false
	}
	fd, err := ix.idx.FieldDictPrefix("_id", []byte(typ+"/"))
	if err != nil {
		return nil, false
	}
	defer fd.Close()
	adv, err := ix.idx.Advanced()
	if err != nil {
		return nil, false
	}
	r, err := adv.Reader()
	if err != nil {
		return nil, false
	}
	defer r.Close()
	hits = []Hit{}
	for n := 0; len(hits) < size; {
		e, err := fd.Next()
		if err != nil {
			return nil, false
		}
		if e == nil {
			break
		}
		live, err := termCount(r, "_id", e.Term)
		if err != nil {
			return nil, false
		}
		if live == 0 {
			continue
		}
		if n++; n <= from {
			continue
		}
		kind, id := splitDocID(e.Term)
		hits = append(hits, Hit{ID: id, Type: kind, Score: matchAllScore})
	}
	return hits, true
}
