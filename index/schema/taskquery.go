package schema

// What a retrieval searches for: the task text's distinct terms, at most
// MaxTaskTerms of them (index/plan puts a time limit on every search). bleve's match
// query makes one term searcher per word of the text, repeats included:
// a word repeated 4,000 times became 4,000 searchers over the same
// postings, and every hit was scored by each (33 s at 50,000 records).

import "github.com/blevesearch/bleve/v2/search/query"

// MaxTaskTerms caps how many distinct terms of a task's text a retrieval
// searches for: the first, in the order the text gives them. A task
// statement of a few paragraphs has fewer.
const MaxTaskTerms = 256

// TaskQuery is task as a query on "_all" that scores as bleve's match
// query of it does: any of its terms may match, each a term query. Each
// distinct term is searched once, boosted by how often the text says it,
// so a repeated word weighs as it did without a searcher per repeat (a
// match counts each distinct term once where bleve counted each repeat).
// Only the first MaxTaskTerms distinct terms are kept. A text with no
// terms matches nothing, as the match query did.
func TaskQuery(task string) query.Query {
	terms, boosts := TaskTerms(task)
	if len(terms) == 0 {
		return query.NewMatchNoneQuery()
	}
	clauses := make([]query.Query, len(terms))
	for i, t := range terms {
		tq := query.NewTermQuery(t)
		tq.SetField(AllField)
		tq.SetBoost(boosts[i])
		clauses[i] = tq
	}
	q := query.NewDisjunctionQuery(clauses)
	q.SetMin(1)
	return q
}

// TaskTerms are the terms of TaskQuery's clauses on "_all", in its
// order, and their boosts (how often the text says each).
func TaskTerms(task string) (terms []string, boosts []float64) {
	a, err := textAnalyzer()
	if err != nil {
		panic("index: the English analyzer is not registered: " + err.Error())
	}
	count := map[string]int{}
	for _, tok := range a.Analyze([]byte(task)) {
		t := string(tok.Term)
		if _, ok := count[t]; !ok {
			if len(terms) == MaxTaskTerms {
				continue
			}
			terms = append(terms, t)
		}
		count[t]++
	}
	boosts = make([]float64, len(terms))
	for i, t := range terms {
		boosts[i] = float64(count[t])
	}
	return terms, boosts
}
