package plan

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/memreview/memreview/index/bleveext"
	"github.com/memreview/memreview/index/schema"
)

// syntaxHint follows bleve's terse parse errors.
const syntaxHint = `use terms, field:value, +required, -excluded, "a phrase", field:>number or field:>"2006-01-02"`

// ParseQuery parses a query string and checks the fields it names; dates
// are moved to day bounds and quoted keyword values become exact terms.
func ParseQuery(s string) (query.Query, error) {
	if strings.TrimSpace(s) == "" {
		return query.NewMatchAllQuery(), nil
	}
	q, err := query.NewQueryStringQuery(s).Parse()
	if err != nil {
		return nil, &QueryError{Query: s, Err: err}
	}
	if f := unknownField(q); f != "" {
		return nil, &QueryError{Query: s, Field: f}
	}
	return dayBounds(keywordPhrases(q)), nil
}

// QueryError is a query a search cannot read: one Bleve cannot parse
// (Err), or one naming a field the index does not have (Field). Query is
// the query as the error names it; the service puts back the text the
// operator typed where it read that as another (RequireAll).
type QueryError struct {
	Query string
	Field string
	Err   error
}

func (e *QueryError) Error() string {
	if e.Field != "" {
		return fmt.Sprintf("search: query %q names unknown field %q; fields are %s", e.Query, e.Field, strings.Join(schema.Fields(), ", "))
	}
	return fmt.Sprintf("search: cannot parse query %q: %v (%s)", e.Query, e.Err, syntaxHint)
}

func (e *QueryError) Unwrap() error { return e.Err }

// dayBounds turns date ranges on the date fields, which hold days
// ("2006-01-02" terms, schema.DayFormat), into ranges of those terms that
// select what the ranges selected on timestamps: a lower bound becomes
// its day, inclusive; an upper bound at midnight excludes that day, one
// inside a day includes all of it. On day bounds (created:>="2026-01-01",
// updated:<"2026-02-01") nothing changes but a record stamped exactly at
// a midnight that a > or <= bound names. A range no indexed day falls in
// matches nothing (bleveext.KeptQuery).
func dayBounds(q query.Query) query.Query {
	return bleveext.RewriteLeaves(q, func(q query.Query) query.Query {
		t, ok := q.(*query.DateRangeQuery)
		if !ok || !slices.Contains(schema.DateFields, t.FieldVal) {
			return q
		}
		var lo, hi string
		yes, no := true, false
		inLo, inHi := &yes, &yes
		if !t.Start.IsZero() {
			lo = schema.Day(t.Start.Time).Format(schema.DayFormat)
		}
		if !t.End.IsZero() {
			end := t.End.Time.UTC()
			hi = schema.Day(end).Format(schema.DayFormat)
			if end.Equal(schema.Day(end)) {
				inHi = &no
			}
		}
		tr := query.NewTermRangeInclusiveQuery(lo, hi, inLo, inHi)
		tr.SetField(t.FieldVal)
		if t.BoostVal != nil {
			tr.SetBoost(float64(*t.BoostVal))
		}
		return &bleveext.KeptQuery{Query: tr} // no day in range: no match, not a dropped clause
	})
}

// keywordPhrases turns quoted values on keyword and date fields
// (id:"mem_0004", tags:"g1", created:"2026-01-01") into exact term
// queries. Such a field holds its whole value as one term without
// positions, so a phrase search on it never matches.
func keywordPhrases(q query.Query) query.Query {
	return bleveext.RewriteLeaves(q, func(q query.Query) query.Query {
		t, ok := q.(*query.MatchPhraseQuery)
		if !ok || !slices.Contains(schema.KeywordFields, t.FieldVal) && !slices.Contains(schema.DateFields, t.FieldVal) {
			return q
		}
		tq := query.NewTermQuery(strings.ToLower(t.MatchPhrase))
		tq.SetField(t.FieldVal)
		if t.BoostVal != nil {
			tq.SetBoost(float64(*t.BoostVal))
		}
		return tq
	})
}

// unknownField returns the first field q names that the mapping lacks.
func unknownField(q query.Query) string {
	var subs []query.Query
	switch q := q.(type) {
	case *query.BooleanQuery:
		subs = []query.Query{q.Must, q.Should, q.MustNot, q.Filter}
	case *query.ConjunctionQuery:
		subs = q.Conjuncts
	case *query.DisjunctionQuery:
		subs = q.Disjuncts
	case query.FieldableQuery:
		f := q.Field()
		if f != "" && f != schema.AllField && !slices.Contains(schema.Fields(), f) {
			return f
		}
	}
	for _, s := range subs {
		if s == nil {
			continue
		}
		if f := unknownField(s); f != "" {
			return f
		}
	}
	return ""
}

// Keyword matches a keyword field exactly, lower-cased as it was indexed.
func Keyword(field, value string) query.Query {
	tq := query.NewTermQuery(strings.ToLower(value))
	tq.SetField(field)
	return tq
}

// onAll reports whether q searches the "_all" field.
func onAll(q query.Query) bool {
	f, ok := q.(query.FieldableQuery)
	return ok && (f.Field() == "" || f.Field() == schema.AllField)
}

// allPhrases replaces, in place, every phrase on "_all" in q by an
// AllPhraseQuery: "_all" has no positions since mapping version 3.
func allPhrases(q query.Query) query.Query {
	return bleveext.RewriteLeaves(q, func(q query.Query) query.Query {
		if p, ok := q.(*query.MatchPhraseQuery); ok && onAll(p) {
			if p.Fuzziness != 0 {
				return perField(p) // not written by the query-string syntax
			}
			return &bleveext.AllPhraseQuery{Phrase: p, All: schema.AllField, Fields: schema.AllTextFields}
		}
		return q
	})
}

// perField replaces, in place, every query on "_all" in q by the
// disjunction of the same query on each of the fields "_all" sums. It
// matches the same documents, and its term locations are those "_all"
// held in version 2 (where each location named the field it came from),
// so highlighting it gives the same fragments; its scores differ, so it
// only serves for fragments.
func perField(q query.Query) query.Query {
	return bleveext.RewriteLeaves(q, func(q query.Query) query.Query {
		if !onAll(q) {
			return q
		}
		var any []query.Query
		for _, f := range schema.AllTextFields {
			c := reflect.New(reflect.TypeOf(q).Elem())
			c.Elem().Set(reflect.ValueOf(q).Elem())
			fq := c.Interface().(query.FieldableQuery)
			fq.SetField(f)
			any = append(any, fq)
		}
		return query.NewDisjunctionQuery(any)
	})
}

// requiredPhrases appends to out the phrases on "_all" that every hit of q
// must hold: those reached from q through required clauses only (a
// boolean query's must, a conjunction), not through should or must-not
// clauses, where leaving the phrase check out would change which
// documents match other than by adding some.
func requiredPhrases(q query.Query, out []*bleveext.AllPhraseQuery) []*bleveext.AllPhraseQuery {
	switch t := q.(type) {
	case *bleveext.AllPhraseQuery:
		out = append(out, t)
	case *query.BooleanQuery:
		if t.Must != nil {
			out = requiredPhrases(t.Must, out)
		}
	case *query.ConjunctionQuery:
		for _, c := range t.Conjuncts {
			out = requiredPhrases(c, out)
		}
	}
	return out
}
