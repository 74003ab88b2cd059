package schema

import (
	"sync"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/registry"
)

// textAnalyzer is the English analyzer the text fields are indexed with,
// built once.
var textAnalyzer = sync.OnceValues(func() (analysis.Analyzer, error) {
	return registry.NewCache().AnalyzerNamed(en.AnalyzerName)
})

// Terms returns the distinct terms the index makes of text in its English
// text fields (lemma, trigger, steps): lower-cased, stop words dropped,
// stemmed, in order of first appearance. Similarity measured on them agrees
// with what a search for the text would match.
func Terms(text string) []string {
	a, err := textAnalyzer()
	if err != nil {
		panic("index: the English analyzer is not registered: " + err.Error())
	}
	seen := map[string]bool{}
	var out []string
	for _, tok := range a.Analyze([]byte(text)) {
		t := string(tok.Term)
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}
