package schema

import (
	"errors"
	"fmt"
	"slices"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/document"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/mapping"

	"github.com/memreview/memreview/index/bleveext"
	"github.com/memreview/memreview/review"
)

// Types lists the document types the index holds.
var Types = []string{"record", "proposal", "trajectory"}

// AllField is the catch-all field bare query terms search.
const AllField = "_all"

// AllTextFields are the fields "_all" sums: the English text fields and
// the "text" catch-all (every field bleve's own composite "_all" took in
// mapping version 2, where the others were IncludeInAll: false).
var AllTextFields = append(slices.Clone(TextFields), "text")

// NewMem is an empty in-memory index under the mapping (a first build's
// stand-in, the tail's indexes).
func NewMem() (bleve.Index, error) {
	m, err := New()
	if err != nil {
		return nil, fmt.Errorf("index: build mapping: %w", err)
	}
	idx, err := bleve.NewUsing("", m, scorch.Name, scorch.Name, nil)
	if err != nil {
		return nil, fmt.Errorf("index: open an in-memory index: %w", err)
	}
	return idx, nil
}

// Add adds d to b under id, mapped by idx's mapping, with "_all".
func Add(idx bleve.Index, b *bleve.Batch, id string, d Doc) error {
	bd, err := MapDoc(idx.Mapping(), id, d)
	if err != nil {
		return err
	}
	return b.IndexAdvanced(bd)
}

// MapDoc maps d as bleve's Batch.Index would and adds the "_all" field.
func MapDoc(m mapping.IndexMapping, id string, d Doc) (*document.Document, error) {
	bd := document.NewDocument(id)
	if err := m.MapDocument(bd, d); err != nil {
		return nil, fmt.Errorf("map document %s: %w", id, err)
	}
	bd.AddField(bleveext.NewAllField(bd, AllField, AllTextFields))
	return bd, nil
}

// Items is what Load reads a changed item from (index.Store has it).
type Items interface {
	Record(id string) (*review.Record, error)
	Proposal(id string) (*review.Proposal, error)
	Trajectory(id string) (*review.Trajectory, error)
}

// Load reads the item a change names and returns its document; nil, nil
// for kinds the index does not hold. An item the bank no longer has is an
// error wrapping review.ErrNotFound.
func Load(src Items, c review.Change) (Doc, error) {
	switch c.Kind {
	case "record":
		r, err := src.Record(c.ID)
		if err != nil {
			return nil, fmt.Errorf("index: read record %s: %w", c.ID, err)
		}
		return RecordDoc(r), nil
	case "proposal":
		p, err := src.Proposal(c.ID)
		if err != nil {
			return nil, fmt.Errorf("index: read proposal %s: %w", c.ID, err)
		}
		return ProposalDoc(p), nil
	case "trajectory":
		t, err := src.Trajectory(c.ID)
		if err != nil {
			return nil, fmt.Errorf("index: read trajectory %s: %w", c.ID, err)
		}
		return TrajectoryDoc(t), nil
	}
	return nil, nil
}

// Bulk is the bulk read an Items may offer, to read many changed items in
// a few queries rather than one per item. *store.Store (SQLite and
// PostgreSQL) has it.
type Bulk interface {
	RecordsByID(ids []string) (map[string]*review.Record, error)
	ProposalsByID(ids []string) (map[string]*review.Proposal, error)
	TrajectoriesByID(ids []string) (map[string]*review.Trajectory, error)
}

// LoadAll reads the items changes name as src holds them now, in bulk when
// src is a Bulk, and returns their documents by bleve id (DocID); an item
// src no longer holds, or of a kind the index does not hold, has none.
func LoadAll(src Items, changes []review.Change) (map[string]Doc, error) {
	docs := make(map[string]Doc, len(changes))
	bulk, ok := src.(Bulk)
	if !ok {
		for _, c := range changes {
			d, err := Load(src, c)
			if err != nil && !errors.Is(err, review.ErrNotFound) {
				return nil, err
			}
			if d != nil {
				docs[DocID(c.Kind, c.ID)] = d
			}
		}
		return docs, nil
	}
	byKind := map[string][]string{}
	for _, c := range changes {
		byKind[c.Kind] = append(byKind[c.Kind], c.ID)
	}
	if ids := byKind["record"]; len(ids) > 0 {
		recs, err := bulk.RecordsByID(ids)
		if err != nil {
			return nil, fmt.Errorf("index: read changed records: %w", err)
		}
		for id, r := range recs {
			docs[DocID("record", id)] = RecordDoc(r)
		}
	}
	if ids := byKind["proposal"]; len(ids) > 0 {
		props, err := bulk.ProposalsByID(ids)
		if err != nil {
			return nil, fmt.Errorf("index: read changed proposals: %w", err)
		}
		for id, p := range props {
			docs[DocID("proposal", id)] = ProposalDoc(p)
		}
	}
	if ids := byKind["trajectory"]; len(ids) > 0 {
		trajs, err := bulk.TrajectoriesByID(ids)
		if err != nil {
			return nil, fmt.Errorf("index: read changed trajectories: %w", err)
		}
		for id, t := range trajs {
			docs[DocID("trajectory", id)] = TrajectoryDoc(t)
		}
	}
	return docs, nil
}
