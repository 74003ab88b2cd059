package index

import (
	"fmt"
	"math"
	"slices"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/document"
	"github.com/blevesearch/bleve/v2/mapping"
	index "github.com/blevesearch/bleve_index_api"
)

// allFieldName is the catch-all field bare query terms search.
const allFieldName = "_all"

// allTextFields are the fields "_all" sums: the English text fields and
// the "text" catch-all (every field bleve's own composite "_all" took in
// mapping version 2, where the others were IncludeInAll: false).
var allTextFields = append(append([]string{}, textFields...), "text")

// allField is the "_all" field of mapping version 3. bleve's own
// composite "_all" copies every token location of every text field, so
// that each token was indexed twice with positions; this one keeps, per
// term, only the summed frequency and the summed field length. BM25 reads
// nothing else, so bare-term scores are those of version 2. Phrases and
// highlighting, which need positions, use the text fields' own term
// vectors instead (allPhraseQuery, Index.fragments).
//
// It must be the last field of its document: scorch analyses a
// document's fields in order, and Analyze reads what the text fields
// before it found.
type allField struct {
	doc    *document.Document
	length int
	freqs  index.TokenFrequencies
}

// addDoc adds d to b under id, mapped by idx's mapping, with "_all".
func addDoc(idx bleve.Index, b *bleve.Batch, id string, d doc) error {
	bd, err := mapDoc(idx.Mapping(), id, d)
	if err != nil {
		return err
	}
	return b.IndexAdvanced(bd)
}

// mapDoc maps d as bleve's Batch.Index would and adds the "_all" field.
func mapDoc(m mapping.IndexMapping, id string, d doc) (*document.Document, error) {
	bd := document.NewDocument(id)
	if err := m.MapDocument(bd, d); err != nil {
		return nil, fmt.Errorf("map document %s: %w", id, err)
	}
	bd.AddField(&allField{doc: bd})
	return bd, nil
}

func (f *allField) Name() string                        { return allFieldName }
func (f *allField) ArrayPositions() []uint64            { return nil }
func (f *allField) Options() index.FieldIndexingOptions { return index.IndexField }
func (f *allField) Value() []byte                       { return nil }
func (f *allField) NumPlainTextBytes() uint64           { return 0 }
func (f *allField) Size() int                           { return 64 + 48*len(f.freqs) }
func (f *allField) EncodedFieldType() byte              { return 'c' }
func (f *allField) AnalyzedLength() int                 { return f.length }

func (f *allField) AnalyzedTokenFrequencies() index.TokenFrequencies { return f.freqs }

// Analyze sums the analysed text fields of its document.
func (f *allField) Analyze() {
	f.length = 0
	f.freqs = index.TokenFrequencies{}
	for _, field := range f.doc.Fields {
		if field == f || !slices.Contains(allTextFields, field.Name()) {
			continue
		}
		tfs := field.AnalyzedTokenFrequencies()
		if tfs == nil { // not analysed yet (the order scorch keeps)
			field.Analyze()
			tfs = field.AnalyzedTokenFrequencies()
		}
		f.length += field.AnalyzedLength()
		for term, tf := range tfs {
			if have, ok := f.freqs[term]; ok {
				have.SetFrequency(have.Frequency() + tf.Frequency())
				continue
			}
			sum := &index.TokenFreq{Term: tf.Term}
			sum.SetFrequency(tf.Frequency())
			f.freqs[term] = sum
		}
	}
}

// queryNorm is what bleve's phrase searcher sets on the conjunction of its
// terms, 1/√weight.
func queryNorm(weight float64) float64 { return 1.0 / math.Sqrt(weight) }
