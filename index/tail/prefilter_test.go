package tail

import (
	"strings"
	"testing"

	"github.com/memreview/memreview/index/schema"
	"github.com/memreview/memreview/sample"
)

// benchSeed is the seed of the index package's corpora.
const benchSeed = 1

// TestStemPrefixInWord checks the prefilter's premise on the English
// analyzer: every word of the corpus contains the stemPrefix of its stem,
// so a word whose stem a query asks for is never filtered out.
func TestStemPrefixInWord(t *testing.T) {
	t.Parallel()
	m, err := schema.New()
	if err != nil {
		t.Fatal(err)
	}
	a := m.AnalyzerNamed("en")
	words := map[string]bool{}
	var texts []string
	for _, r := range sample.SynthRecords(300, benchSeed) {
		texts = append(texts, r.Lemma, r.Trigger, strings.Join(r.Steps, " "))
	}
	texts = append(texts, "happy happiness hoping hoped possibly possible abilities dying lying skies "+
		"generously relational rationalisation organization early gently ugly cried flies news cats' John's "+
		"naïve Ärger crème brûlée ČEŠTINA façade")
	checked := 0
	for _, text := range texts {
		for _, tok := range a.Analyze([]byte(text)) {
			word := strings.ToLower(text[tok.Start:tok.End])
			if words[word] {
				continue
			}
			words[word] = true
			checked++
			if p := stemPrefix(string(tok.Term)); !strings.Contains(word, p) {
				t.Errorf("word %q (stem %q) lacks the stem prefix %q", word, tok.Term, p)
			}
		}
	}
	if checked < 100 {
		t.Fatalf("checked %d words", checked)
	}
}
