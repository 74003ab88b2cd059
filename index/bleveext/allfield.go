package bleveext

import (
	"math"
	"slices"

	"github.com/blevesearch/bleve/v2/document"
	index "github.com/blevesearch/bleve_index_api"
)

// AllField is a catch-all field that holds, per term, only the summed
// frequency and the summed length of the text fields of its document.
// bleve's own composite "_all" copies every token location of every text
// field, so that each token is indexed twice with positions; BM25 reads
// nothing but frequencies and lengths, so bare terms score on AllField as
// they did on the composite field. Phrases and highlighting, which need
// positions, use the text fields' own term vectors (AllPhraseQuery).
//
// It must be the last field of its document: scorch analyses a
// document's fields in order, and Analyze reads what the text fields
// before it found (analysing one itself when scorch has not yet).
type AllField struct {
	name   string
	fields []string // the text fields it sums
	doc    *document.Document
	length int
	freqs  index.TokenFrequencies
}

// NewAllField is the field name of doc that sums doc's fields named in
// fields; add it to doc last.
func NewAllField(doc *document.Document, name string, fields []string) *AllField {
	return &AllField{name: name, fields: fields, doc: doc}
}

func (f *AllField) Name() string                        { return f.name }
func (f *AllField) ArrayPositions() []uint64            { return nil }
func (f *AllField) Options() index.FieldIndexingOptions { return index.IndexField }
func (f *AllField) Value() []byte                       { return nil }
func (f *AllField) NumPlainTextBytes() uint64           { return 0 }
func (f *AllField) Size() int                           { return 64 + 48*len(f.freqs) }
func (f *AllField) EncodedFieldType() byte              { return 'c' }
func (f *AllField) AnalyzedLength() int                 { return f.length }

func (f *AllField) AnalyzedTokenFrequencies() index.TokenFrequencies { return f.freqs }

// Analyze sums the analysed text fields of its document.
func (f *AllField) Analyze() {
	f.length = 0
	f.freqs = index.TokenFrequencies{}
	for _, field := range f.doc.Fields {
		if field == f || !slices.Contains(f.fields, field.Name()) {
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
