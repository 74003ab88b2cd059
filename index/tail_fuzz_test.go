package index

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/memreview/memreview/index/plan"
	"github.com/memreview/memreview/review"
)

// FuzzTailSearch feeds any query, as an operator types it in the search
// box or after `memreview search` (RequireAll first, as the service does),
// to an index that is behind its bank and to one caught up with it: the
// tail (the records changed since the index's sequence, searched directly)
// must agree with the index itself — both refuse the query, or both find
// the same hits and total — and neither may panic. `go test` runs the
// seeds; the text is also given to Retrieve as an agent's task, which
// must answer. `go test ./index/ -run '^$' -fuzz FuzzTailSearch -fuzztime 2m`
// looks for more.
func FuzzTailSearch(f *testing.F) {
	for _, q := range []string{
		"join", "orders refunds", `"one row per"`, "-join orders", "+join -edited",
		"category:warning", "env:shop join", "confidence:>0.5", "priority:>=1 join",
		`created:>"2026-01-01"`, `updated:<"2027-01-01T00:00:00Z"`, "status:retired",
		"jo*", "j?in", "join~1", "join^2 orders", "(join OR orders)", "a / b", "+/",
		`\/`, `"unterminated`, "field:", ":", "-", "+", "*", "~", "^", `\`, "((", "))",
		"tags:g1", "_id:mem_1", "id:mem_1", "lemma:edited", "NOT join", "join AND",
		"日本語 テキスト", "\x00\x1b[31m", strings.Repeat("join ", 50), "confidence:>abc",
		`created:>"not a date"`, "-category:warning -env:shop", "+-join", "--join",
		"/regex.*/", "lemma:/ed.*/", `"join" "orders"`, "join\torders\nrefunds",
	} {
		f.Add(q)
	}
	f.Fuzz(func(t *testing.T, q string) {
		behind, caught, _, _, _ := behindAndCaughtUp(t)
		// The same text as an agent's task: retrieval reads it as words,
		// so no text may make it fail.
		for _, ix := range []*Index{behind, caught} {
			got, err := ix.Retrieve(q, review.Scope{Env: "shop"}, 5)
			if err != nil {
				t.Fatalf("retrieve %q: %v", q, err)
			}
			seen := map[string]bool{}
			for _, h := range got {
				if seen[h.ID] {
					t.Fatalf("retrieve %q: %s twice in %v", q, h.ID, got)
				}
				seen[h.ID] = true
			}
			if len(got) > 5 {
				t.Fatalf("retrieve %q: %d records, asked for 5", q, len(got))
			}
		}
		req := Request{Query: RequireAll(q), Type: "record", Size: 5000}
		got, gerr := behind.Search(req)
		want, werr := caught.Search(req)
		if (gerr == nil) != (werr == nil) {
			t.Fatalf("%q: behind says %v, caught up says %v", q, gerr, werr)
		}
		if gerr != nil {
			return
		}
		if got.Behind == 0 || got.Direct == 0 {
			t.Fatalf("%q: behind %d, direct %d: the index searched is not behind its bank", q, got.Behind, got.Direct)
		}
		if got.Total != want.Total {
			t.Errorf("%q: %d hits behind, %d caught up", q, got.Total, want.Total)
		}
		g, w := hitMap(got), hitMap(want)
		if extra, missed := setDiff(g, w), setDiff(w, g); len(extra)+len(missed) > 0 {
			t.Errorf("%q: behind finds %v more, %v fewer than caught up", q, extra, missed)
		}
	})
}

// FuzzRequireAll: reading a query as AND (RequireAll, what the search box
// and `memreview search` do) never breaks a query that parses as typed.
// RequireAll takes any white space (a tab, a carriage return, a no-break
// space) for a space, where Bleve ends a term only at a space, so "as
// typed" is the query with its white space made spaces.
func FuzzRequireAll(f *testing.F) {
	for _, q := range []string{"join orders", "a / b", "+x -y", `"a b" c`, "x OR y", "x AND y", `\+x`, "f:v g:>1", "-", "~", `"`,
		"\r", "x \\", "join\r\norders", "a\u00a0b"} {
		f.Add(q)
	}
	f.Fuzz(func(t *testing.T, q string) {
		typed := strings.Map(func(r rune) rune {
			if unicode.IsSpace(r) {
				return ' '
			}
			return r
		}, q)
		if _, err := plan.ParseQuery(typed); err != nil {
			return
		}
		if _, err := plan.ParseQuery(RequireAll(q)); err != nil {
			t.Fatalf("%q parses, but not as RequireAll reads it, %q: %v", typed, RequireAll(q), err)
		}
	})
}

// FuzzTailSort: the same agreement for a query with a sort, a facet and
// a page (from), as the bank screen asks: both refuse it, or both give
// the same hits in the same order (after the score sorts, the same set)
// and the same facet counts.
func FuzzTailSort(f *testing.F) {
	for _, c := range []struct {
		q, sort, facet string
		from           uint8
	}{
		{"join", "-updated,_id", "category", 0}, {"", "_id", "env", 5}, {"edited", "-_score", "status", 0},
		{"category:warning", "-confidence,_id", "tags", 3}, {"", "priority,-_id", "category", 40},
		{"join", "nosuchfield", "category", 0}, {"", "-", "nosuchfacet", 0}, {"x", "_id,_id", "", 0},
		{"", "created,_id", "env", 1}, {"orders", "lemma", "category", 0},
	} {
		f.Add(c.q, c.sort, c.facet, c.from)
	}
	f.Fuzz(func(t *testing.T, q, sort, facet string, from uint8) {
		behind, caught, _, _, _ := behindAndCaughtUp(t)
		req := Request{Query: RequireAll(q), Type: "record", Size: 30, From: int(from)}
		if sort != "" {
			req.Sort = strings.Split(sort, ",")
		}
		if facet != "" {
			req.Facets = []string{facet}
		}
		if scoreSorted(req.Sort) {
			req.From, req.Size = 0, 5000
		}
		got, gerr := behind.Search(req)
		want, werr := caught.Search(req)
		if (gerr == nil) != (werr == nil) {
			t.Fatalf("%+v: behind says %v, caught up says %v", req, gerr, werr)
		}
		if gerr != nil {
			return
		}
		if got.Total != want.Total {
			t.Errorf("%+v: %d hits behind, %d caught up", req, got.Total, want.Total)
		}
		if !reflect.DeepEqual(got.Facets, want.Facets) {
			t.Errorf("%+v: facets %v behind, %v caught up", req, got.Facets, want.Facets)
		}
		if scoreSorted(req.Sort) {
			g, w := hitMap(got), hitMap(want)
			if extra, missed := setDiff(g, w), setDiff(w, g); len(extra)+len(missed) > 0 {
				t.Errorf("%+v: behind finds %v more, %v fewer", req, extra, missed)
			}
		} else if !slices.Equal(hitOrder(got), hitOrder(want)) {
			t.Errorf("%+v: hits %v behind, %v caught up", req, hitOrder(got), hitOrder(want))
		}
	})
}
