package hygiene

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/memreview/memreview/sample"
)

// scanMismatch says how the scanners differ from their regexps on s, or
// "" when they give the same matches (and commute, claimsOf and
// namedSeqs' rewriting the same results).
func scanMismatch(s string) string {
	type check struct {
		name string
		got  func(string) [][]int
		want func(string) [][]int
	}
	checks := []check{
		{"commutePair", commutePairSpans, func(s string) [][]int { return commutePair.FindAllStringSubmatchIndex(s, -1) }},
		{"commuteList", commuteListSpans, func(s string) [][]int { return commuteList.FindAllStringSubmatchIndex(s, -1) }},
	}
	if isASCII(s) {
		checks = append(checks, check{"unit claim", unitClaimSpans, func(s string) [][]int { return claimPatterns[0].re.FindAllStringSubmatchIndex(s, -1) }})
	}
	for _, c := range checks {
		if got, want := c.got(s), c.want(s); !reflect.DeepEqual(got, want) {
			return c.name + ": got " + spansString(s, got) + ", want " + spansString(s, want)
		}
	}
	defer func() { Scanners = true }()
	Scanners = true
	c1, cl1 := commute(s), claimsOf(s)
	Scanners = false
	c2, cl2 := commute(s), claimsOf(s)
	if c1 != c2 {
		return "commute: got " + c1 + ", want " + c2
	}
	if !reflect.DeepEqual(cl1, cl2) {
		return "claimsOf differs"
	}
	return ""
}

func spansString(s string, spans [][]int) string {
	var parts []string
	for _, m := range spans {
		var gs []string
		for k := 0; k+1 < len(m); k += 2 {
			if m[k] < 0 {
				gs = append(gs, "-")
			} else {
				gs = append(gs, "«"+s[m[k]:m[k+1]]+"»")
			}
		}
		parts = append(parts, strings.Join(gs, " "))
	}
	return "[" + strings.Join(parts, "; ") + "]"
}

// scanPieces are what the generated texts are made of: the regexps'
// words in several cases and as parts of longer words, their
// separators, and what stops or breaks a match.
var scanPieces = []string{
	"is", "IS", "Is", "are", "ARE", "stored", "Stored", "kept", "KEPT", "given", "in", "IN", "as", "As", "on", "ON",
	"recorded", "held", "expressed", "reported", "hold", "holds", "HOLDS", "store", "stores", "Stores", "storeD",
	"and", "joins", "=", "island", "instore", "threshold", "holder", "stash", "isn't", "x", "price_cents", "items_g2.price",
	"./run.sh", "a/b", "v1.2", "100.0", "cents", "dollars", "integer", "K", "k", "s",
	" ", " ", " ", " ", "  ", "\t", "\n", "\r", "\f", "\v", "\u00a0", ";", ",", ":", "(", ")", "—", ".", ". ", ".;", ", ",
	"_", "/", "é", "ſ", "\u212a", "\xff", "2", "from 1 to 5", "ranges", "renamed to",
}

// genScanText makes a text of n pieces, most of them joined by a space.
func genScanText(r *rand.Rand, n int) string {
	var b strings.Builder
	for k := range n {
		if k > 0 && r.IntN(3) > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(scanPieces[r.IntN(len(scanPieces))])
	}
	return b.String()
}

// The scanners give their regexps' matches on every lemma of the sample
// world and of synthetic banks, on texts made of the regexps' words and
// separators, and on edge texts; enough of those match, in all the ways
// a match can end, that a scanner a step off fails.
func TestScannersMatchRegexps(t *testing.T) {
	var texts []string
	in, err := Load(sampleStore(t), "")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range append(in.Records, sample.SynthRecords(3000, 1)...) {
		texts = append(texts, r.Lemma, r.Trigger)
	}
	texts = append(texts, "", " ", "holds", "holds ", "holds  ", "holds  ;", "holds ;", "is in  ", "is in", "stores x as",
		"stores x as  ", "stores  x.y  as  v. w", "are kept in (cents)", "is stored in cents.", "is stored in cents.x", "is given in a.b.",
		"IS STORED IN CENTS; then", "x holds a, b holds c", "is\tin\ncents", "is\vin cents", "(a, b) and (c, d)", "((a, b)", "(a, b, c)",
		"(b, a)", "(b, a)(d, c)", "x=(b, a),(d, c)", "(,)", "( , )", "a and b and c", "b = a = c", "z joins y joins x", "a  and b", "a and  b", "é and a", "a and é",
		"stored inside", "kept as-is", "held in: x", "isn't in x", "this is in x", "_is in x", "2is in x", "is ſtored in x")
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		texts = append(texts, genScanText(r, 1+r.IntN(14)))
	}
	counts := map[string]int{}
	for _, s := range texts {
		if d := scanMismatch(s); d != "" {
			t.Fatalf("%q: %s", s, d)
		}
		if !isASCII(s) {
			continue
		}
		for _, m := range unitClaimSpans(s) {
			switch v := s[m[2]:m[3]]; {
			case strings.TrimSpace(v) == "":
				counts["unit value of spaces"]++
			case m[1] == len(s) && m[3] == len(s):
				counts["unit value to the end"]++
			case s[m[1]-1] == '.' || isSpaceRE(s[m[1]-1]):
				counts["unit value to a point"]++
			default:
				counts["unit value to a stop"]++
			}
		}
		if n := len(unitClaimSpans(s)); n > 1 {
			counts["two unit claims"]++
		}
		counts["commute pairs"] += len(commutePairSpans(s))
		counts["commute lists"] += len(commuteListSpans(s))
	}
	for _, k := range []string{"unit value of spaces", "unit value to the end", "unit value to a point", "unit value to a stop", "two unit claims", "commute pairs", "commute lists"} {
		if counts[k] < 20 {
			t.Errorf("%s: %d of the texts; the test needs more", k, counts[k])
		}
	}
	t.Logf("%d texts: %v", len(texts), counts)
	if !Scanners {
		t.Error("Scanners is off by default")
	}
}

// FuzzScanners: the scanners give their regexps' matches on any text.
func FuzzScanners(f *testing.F) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 200 {
		f.Add(genScanText(r, 1+r.IntN(10)))
	}
	f.Add("holds  ;")
	f.Add("(a, b) = c and b")
	f.Fuzz(func(t *testing.T, s string) {
		if d := scanMismatch(s); d != "" {
			t.Fatalf("%q: %s", s, d)
		}
	})
}

// namedSeqs rewrites a lemma's commuting constructions the same with the
// scanners as with the regexps.
func TestNamedSeqsScanners(t *testing.T) {
	recs := sample.SynthRecords(2000, 5)
	r := rand.New(rand.NewPCG(5, 6))
	for k := range 2000 {
		recs = append(recs, recs[k])
		recs[len(recs)-1].Lemma = genScanText(r, 2+r.IntN(12))
	}
	b := &builder{recs: recs, sim: &simIndex{}}
	b.sim.lv = &vocab{id: map[string]int32{}}
	slots := map[int32]bool{}
	// Every lemma term a slot, so that namedSeqs keeps every name.
	for i := range recs {
		for _, w := range strings.Fields(recs[i].Lemma) {
			if _, ok := b.sim.lv.id[strings.ToLower(w)]; !ok {
				id := int32(len(b.sim.lv.id))
				b.sim.lv.id[strings.ToLower(w)] = id
				slots[id] = true
			}
		}
	}
	defer func() { Scanners = true }()
	changed := 0
	for i := range recs {
		Scanners = true
		got := newNamedSeqs(b, slots).of(i)
		Scanners = false
		want := newNamedSeqs(b, slots).of(i)
		if !slices.Equal(got, want) {
			t.Fatalf("%q: got %q, want %q", recs[i].Lemma, got, want)
		}
		if c := commute(recs[i].Lemma); c != recs[i].Lemma {
			changed++
		}
	}
	if changed < 50 {
		t.Errorf("only %d lemmas hold a commuting construction that commute changes", changed)
	}
}
