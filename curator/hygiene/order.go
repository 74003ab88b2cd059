package hygiene

import (
	"strings"

	"github.com/memreview/memreview/index"
)

// Two rules of a duplicate that a bag of words cannot see: the names two
// lemmas share come in the same order ("a lags b" is not "b lags a",
// though "a and b" is "b and a"), and neither states a number the other
// does not.

// namedSeqs holds, for the records of candidate pairs, the names of each
// lemma in the order they occur (every occurrence): its identifiers and its
// slot terms, except those of a commuting construction (see commute).
type namedSeqs struct {
	b     *builder
	slots map[int32]bool
	term  map[string]int32 // word → its lemma term id (-1: none)
	seq   map[int][]string
	ident map[string]bool // word → whether identifiers finds one in it (at most namedCache)
}

// namedCache bounds namedSeqs' cache: the pairs of one block come
// together, so a cache of the recent records serves them.
const namedCache = 1 << 15

func newNamedSeqs(b *builder, slots map[int32]bool) *namedSeqs {
	return &namedSeqs{b: b, slots: slots, term: map[string]int32{}, seq: map[int][]string{}, ident: map[string]bool{}}
}

func (n *namedSeqs) of(i int) []string {
	if s, ok := n.seq[i]; ok {
		return s
	}
	if len(n.seq) >= namedCache {
		clear(n.seq)
	}
	var out []string
	// Names in a commuting construction ("a and b", "(a, b)") have no
	// order: they are left out.
	// (A lemma without the constructions' words is left as it is: the
	// regexps cost most of this where they are run for nothing.)
	l := n.b.recs[i].Lemma
	switch {
	case Scanners: // the regexps' matches, without them (scan.go)
		l = replaceSpans(l, commutePairSpans(l), func(m []int) string { return " " + l[m[4]:m[5]] + " " })
		l = replaceSpans(l, commuteListSpans(l), func([]int) string { return "()" })
	default:
		if strings.Contains(l, " and ") || strings.Contains(l, " joins ") || strings.Contains(l, " = ") {
			l = commutePair.ReplaceAllString(l, " $2 ")
		}
		if strings.Contains(l, ", ") && strings.Contains(l, "(") {
			l = commuteList.ReplaceAllString(l, "()")
		}
	}
	for _, w := range strings.FieldsFunc(l, func(r rune) bool {
		return !(r == '_' || r == '.' || r == '/' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) {
		w = strings.Trim(w, "./")
		if w == "" {
			continue
		}
		ident, ok := n.ident[w]
		if !ok {
			if len(n.ident) >= namedCache {
				clear(n.ident)
			}
			ident = len(identifiers(w)) > 0
			n.ident[w] = ident
		}
		if ident {
			out = append(out, strings.ToLower(w))
			continue
		}
		lw := strings.ToLower(w)
		id, ok := n.term[lw]
		if !ok {
			id = -1
			if ts := index.Terms(lw); len(ts) == 1 {
				if x, ok := n.b.sim.lv.id[ts[0]]; ok {
					id = x
				}
			}
			n.term[lw] = id
		}
		if id >= 0 && n.slots[id] {
			out = append(out, lw)
		}
	}
	n.seq[i] = out
	return out
}

// sameOrder: the names both lemmas hold (outside commuting constructions)
// occur in the same order in each.
func (n *namedSeqs) sameOrder(a, b int) bool {
	return sameShared(n.of(a), n.of(b))
}

// sameShared: the names of sa that sb holds, in sa's order, are those of
// sb that sa holds, in sb's order (every occurrence). The two lists are
// walked together, a name's membership looked up in the other list (a
// lemma names a few), not collected.
func sameShared(sa, sb []string) bool {
	i, j := 0, 0
	for {
		for i < len(sa) && !contains(sb, sa[i]) {
			i++
		}
		for j < len(sb) && !contains(sa, sb[j]) {
			j++
		}
		if i == len(sa) || j == len(sb) {
			return i == len(sa) && j == len(sb)
		}
		if sa[i] != sb[j] {
			return false
		}
		i, j = i+1, j+1
	}
}

// numbersDiffer: one list of identifiers holds a number the other lacks.
func numbersDiffer(a, b []string) bool {
	isNum := func(x string) bool { _, ok := number(x); return ok }
	for _, x := range a {
		if isNum(x) && !contains(b, x) {
			return true
		}
	}
	for _, x := range b {
		if isNum(x) && !contains(a, x) {
			return true
		}
	}
	return false
}
