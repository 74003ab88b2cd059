package hygiene

import (
	"context"
	"maps"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/memreview/memreview/index"
	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/sample"
)

// recordTerms analyses a record's text once where it is ASCII (and
// textTerms any text, as the contradictions' subjects are); the terms
// must be those of the three analyses it replaces (the whole text, the
// whole text with its identifiers split, the lemma), in the same order
// (the order numbers the vocabulary's ties), for every record of the
// sample world, of synthetic banks and of texts made to sit on the
// analyzer's boundaries.
func TestRecordTermsOnce(t *testing.T) {
	if !AnalyseOnce {
		t.Fatal("AnalyseOnce is off by default")
	}
	s := sampleStore(t)
	in, err := Load(s, "")
	if err != nil {
		t.Fatal(err)
	}
	recs := in.Records
	recs = append(recs, sample.SynthRecords(4000, 1)...)
	recs = append(recs, sample.SynthRecords(1000, 7)...)
	edge := []string{
		"items_g2.price_cents is integer cents", "a.b 3.5 x/y/z foo_ _bar a__b ..dots.. end.", "don't the_a it's users' x's",
		"a:b a,b a;b 1,000.50 v1.2.3 /usr/local/bin ./run.sh", "tab\there\vvt\fff\r\ncrlf\rcr", "  lead  and trail  ",
		"THE_TABLE Orders_V2.Amount_USD", "a_1.b_2/c_3", "e.g. i.e. U.S.A. etc.", "", "_", ".", "/", "x_", "__init__.py",
		"café_au.lait", "naïve_x.y", "résumé", "a\u00a0b_c", "x\u0301_y.z", "snake_case\u2019s", "emoji 🎉_x.y",
	}
	for i, l := range edge {
		for j, tr := range []string{"", edge[(i+1)%len(edge)]} {
			recs = append(recs, review.Record{ID: "edge", Lemma: l, Trigger: tr, Steps: [][]string{nil, {""}, {edge[(i+3)%len(edge)], edge[(i+5)%len(edge)]}}[(i+j)%3]})
		}
	}
	ascii := 0
	for i := range recs {
		r := &recs[i]
		if asciiRecord(r) {
			ascii++
		}
		text, lemma := recordTerms(r)
		wantText, wantLemma := terms(recordText(r)), index.Terms(r.Lemma)
		if got := textTerms(recordText(r)); !slices.Equal(got, wantText) {
			t.Fatalf("record %d (%s): textTerms %q, want %q", i, r.ID, got, wantText)
		}
		subject := recordText(r) // as contradictions makes it
		for _, c := range claimsOf(r.Lemma) {
			subject = strings.ReplaceAll(subject, c.text, " ")
		}
		if got, want := textTerms(subject), terms(subject); !slices.Equal(got, want) {
			t.Fatalf("record %d (%s) subject %q: textTerms %q, want %q", i, r.ID, subject, got, want)
		}
		if !slices.Equal(text, wantText) || !slices.Equal(lemma, wantLemma) {
			t.Fatalf("record %d (%s) %q / %q / %q:\n text  %q\n want  %q\n lemma %q\n want  %q", i, r.ID, r.Lemma, r.Trigger, r.Steps, text, wantText, lemma, wantLemma)
		}
	}
	if ascii < len(recs)*9/10 {
		t.Errorf("only %d of %d records took the one analysis", ascii, len(recs))
	}
}

// similarOnWorkers gives the pairs similarPairs gives, each once, on
// the workers it names (in similarPairs' order with one).
func TestSimilarOnWorkers(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	recs := sample.SynthRecords(3000, 3)
	sets, v := analyse(len(recs), func(i int) []string { ts, _ := recordTerms(&recs[i]); return ts })
	group := make([]string, len(recs))
	for i, r := range recs {
		group[i] = r.Scope.Env + "\x00" + r.Scope.TaskFamily + "\x00" + string(r.Category)
	}
	for _, th := range []float64{DuplicateThreshold, 0.5} {
		var want []pair
		similarPairs(sets, v, group, th, func(p pair) { want = append(want, p) })
		if len(want) < 10 {
			t.Fatalf("threshold %v: %d pairs: too few to tell", th, len(want))
		}
		for _, workers := range []int{1, 2, 4} {
			by := make([][]pair, workers)
			similarOnWorkers(sets, v, group, th, workers, func(w int, p pair) { by[w] = append(by[w], p) })
			got := slices.Concat(by...)
			if workers > 1 {
				if len(by[1]) == 0 {
					t.Errorf("threshold %v, %d workers: worker 1 was given nothing", th, workers)
				}
				slices.SortFunc(got, byRecords)
				want := slices.Clone(want)
				slices.SortFunc(want, byRecords)
				if !slices.Equal(got, want) {
					t.Fatalf("threshold %v, %d workers: %d pairs, %d by similarPairs (the same: %v)", th, workers, len(got), len(want), slices.Equal(got, want))
				}
			} else if !slices.Equal(got, want) {
				t.Fatalf("threshold %v, one worker: not similarPairs' pairs in its order", th)
			}
		}
	}
}

// claimsOf skips a pattern whose word the lemma lacks: no lemma of the
// sample world or of a synthetic bank that lacks the word is matched by
// the pattern, and every one the pattern matches is kept.
func TestClaimWordsPrefilter(t *testing.T) {
	lemmas := []string{"Amounts RANGE from 1 to 5", "the column was ReNaMeD to price_usd", "ranges  from 3 to 9; renamed\tto x.y"}
	for _, r := range sample.SynthRecords(5000, 1) {
		lemmas = append(lemmas, r.Lemma)
	}
	in, err := Load(sampleStore(t), "")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range in.Records {
		lemmas = append(lemmas, r.Lemma)
	}
	matched := map[string]int{}
	for _, l := range lemmas {
		for _, p := range claimPatterns {
			if p.needs == "" {
				continue
			}
			m := p.re.MatchString(l)
			if m {
				matched[p.kind]++
			}
			if m && !containsFoldASCII(l, p.needs) {
				t.Fatalf("%s matches %q, which lacks %q", p.kind, l, p.needs)
			}
		}
	}
	if matched["range"] < 10 || matched["name"] < 10 {
		t.Fatalf("too few lemmas matched to tell: %v", matched)
	}
}

// namedSeqs.of runs the commuting constructions' regexps only on lemmas
// holding their words: on every other lemma of a synthetic bank they
// change nothing.
func TestCommutePrefilter(t *testing.T) {
	changed := 0
	for _, r := range sample.SynthRecords(5000, 2) {
		l := r.Lemma
		pair := strings.Contains(l, " and ") || strings.Contains(l, " joins ") || strings.Contains(l, " = ")
		if got := commutePair.ReplaceAllString(l, " $2 "); got != l {
			changed++
			if !pair {
				t.Fatalf("commutePair changes %q, which lacks its words", l)
			}
		}
		if got := commuteList.ReplaceAllString(l, "()"); got != l && !(strings.Contains(l, ", ") && strings.Contains(l, "(")) {
			t.Fatalf("commuteList changes %q, which lacks ', ' or '('", l)
		}
	}
	if changed < 10 {
		t.Fatalf("only %d lemmas hold a commuting pair: too few to tell", changed)
	}
}

// sampleSlots learns the slots the pairs sorted and compacted as pairs
// (the way before) give: the same slot terms, on a synthetic bank over a
// lowered slotSample, with the pairs on the CPUs and on one goroutine.
func TestSampleSlotsSame(t *testing.T) {
	defer func(n int) { slotSample = n }(slotSample)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	slotSample = 1500
	recs := sample.SynthRecords(4000, 5)
	b := &builder{recs: recs}
	group := make([]string, len(recs))
	for i, r := range recs {
		group[i] = r.Scope.Env + "\x00" + r.Scope.TaskFamily + "\x00" + string(r.Category)
	}
	six := b.index()
	// The way before.
	at := sampleOf(len(recs), slotSample)
	sets, g, idents := make([]termSet, len(at)), make([]string, len(at)), make([][]string, len(at))
	for k, i := range at {
		sets[k], g[k], idents[k] = six.sets[i], group[i], six.idents[i]
	}
	var pairs []pair
	similarPairs(sets, six.v, g, DuplicateThreshold, func(p pair) { pairs = append(pairs, p) })
	pairs = append(pairs, rarePairsOf(sets, six.v, idents, g)...)
	for k := range pairs {
		pairs[k].a, pairs[k].b = int32(at[pairs[k].a]), int32(at[pairs[k].b])
	}
	slices.SortFunc(pairs, byRecords)
	pairs = slices.CompactFunc(pairs, func(x, y pair) bool { return x.a == y.a && x.b == y.b })
	want := slotTerms(six.lemmas, six.lv, pairs)
	if len(want) < 3 {
		t.Fatalf("only %d slot terms learned: too few to tell", len(want))
	}
	for _, onCPUs := range []bool{true, false} {
		PairsOnCPUs = onCPUs
		got := b.sampleSlots(group)
		PairsOnCPUs = true
		if !maps.Equal(got, want) {
			t.Fatalf("on the CPUs %v: %d slot terms, want %d", onCPUs, len(got), len(want))
		}
	}
}

// An incremental run's candidate pairs made and decided on the workers
// (candidatePairs with several) give the findings of one goroutine
// (PairsOnCPUs off), above slotSample (the blocks) and at or below it
// (every candidate collected first).
func TestIncrementalPairsOnWorkers(t *testing.T) {
	defer func(n int) { slotSample = n }(slotSample)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	recs := sample.SynthRecords(3000, 9)
	for i := range recs {
		recs[i].Version = 1
	}
	focus := map[string]bool{}
	for i := 0; i < len(recs); i += 5 {
		focus[recs[i].ID] = true
	}
	for _, sampled := range []int{1000, 20000} {
		slotSample = sampled
		fingerprints := func() []string {
			rep, err := Run(context.Background(), Input{Records: recs, Now: time.Unix(1e9, 0)}, Options{Only: Duplicates, Focus: focus})
			if err != nil {
				t.Fatal(err)
			}
			var out []string
			for _, f := range rep.Findings {
				out = append(out, f.Fingerprint+" "+f.Proposal.Rationale)
			}
			return out
		}
		got := fingerprints()
		PairsOnCPUs = false
		want := fingerprints()
		PairsOnCPUs = true
		if len(want) < 20 || !slices.Equal(got, want) {
			t.Fatalf("slot sample %d: %d findings on the workers, %d on one goroutine (the same: %v)", sampled, len(got), len(want), slices.Equal(got, want))
		}
	}
}
