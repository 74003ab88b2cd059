package hygiene

import (
	"math"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/memreview/memreview/index"
	"github.com/memreview/memreview/review"
)

// The similarity measure.
//
// A record's terms are what the index makes of its lemma, trigger and steps
// (index.Terms: the English analyzer of the text fields), plus the parts of
// every identifier (items_g2.price_cents also gives items, g2, price,
// cents), so a paraphrase that names price_cents alone still meets one that
// names items_g2.price_cents. Each term weighs its inverse document
// frequency over the records compared, ln(1 + N/df), as BM25 weighs a
// query term, so a shared table name counts for much and a shared "task"
// for little. Two records' similarity is the weighted Jaccard overlap
//
//	Σ w(t), t in both  /  Σ w(t), t in either
//
// (1 for the same text, 0 for nothing shared). A different table, column
// or number costs a record pair its rarest terms, which is what tells "the
// same advice in other words" from "the same sentence about another table".
//
// Candidates come from an inverted index over each record's prefix (its
// rarest terms, until the rest weigh less than threshold × its total):
// two records whose similarity reaches the threshold must share a prefix
// term (the prefix-filtering principle of all-pairs similarity joins), so
// no pair above the threshold is missed and common terms never generate
// candidates. BenchmarkCandidates compares it with one Bleve query per
// record (index.Similar, the MoreLikeThis way).

// termSet is a record's terms as ids, sorted by the global order (rarest
// first), with their weights.
type termSet struct {
	ids   []int32
	total float64
}

// vocab interns terms and holds their weights.
type vocab struct {
	id     map[string]int32
	df     []int
	weight []float64
	rank   []int32 // global order: rank[id] (0 = rarest); ids are numbered by it, so rank[id] == id
}

// recordText is what similarity compares: lemma, trigger and steps.
func recordText(r *review.Record) string {
	return r.Lemma + "\n" + r.Trigger + "\n" + strings.Join(r.Steps, "\n")
}

var identSplitter = strings.NewReplacer("_", " ", ".", " ", "/", " ")

// terms returns the analysed terms of s and of its identifiers' parts.
func terms(s string) []string {
	out := index.Terms(s)
	seen := make(map[string]bool, len(out))
	for _, t := range out {
		seen[t] = true
	}
	for _, t := range index.Terms(identSplitter.Replace(s)) {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

// AnalyseOnce, the default, has recordTerms analyse a record's text once
// where it is ASCII, a word at a time, each distinct word once a run or
// so (wordCache); false analyses it as before: the whole text, the whole
// text again with the identifiers split, and the lemma alone. The terms
// are the same either way (TestRecordTermsOnce); the knob is for a
// benchmark's peer.
var AnalyseOnce = true

// recordTerms returns terms(recordText(r)) and index.Terms(r.Lemma).
//
// In ASCII text the English analyzer's tokens never span whitespace (the
// Unicode word boundaries: a newline, space or tab breaks on both sides,
// and no ASCII character joins the one before it to the one after across
// it), so a text's terms are its words' in order, the text's terms the
// lemma's followed by the rest's, and the identifiers' parts add only
// what the words holding '_', '.' or '/' make once those are spaces
// (every other word is the same in the split text). A bank's words
// repeat (templates, table and column names), so each word's terms are
// kept for the next record that has it (wordCache).
func recordTerms(r *review.Record) (text, lemma []string) {
	if !AnalyseOnce || !asciiRecord(r) {
		return terms(recordText(r)), index.Terms(r.Lemma)
	}
	c := wordCaches.Get().(*wordCache)
	defer wordCaches.Put(c)
	seen := c.seen
	defer clear(seen)
	lemma = c.appendWords(nil, seen, r.Lemma, false)
	text = append(make([]string, 0, 2*len(lemma)+8), lemma...)
	text = c.appendWords(text, seen, r.Trigger, false)
	for _, st := range r.Steps {
		text = c.appendWords(text, seen, st, false)
	}
	text = c.appendWords(text, seen, r.Lemma, true)
	text = c.appendWords(text, seen, r.Trigger, true)
	for _, st := range r.Steps {
		text = c.appendWords(text, seen, st, true)
	}
	return text, lemma
}

// textTerms is terms(s), s analysed a word at a time where it is ASCII
// (recordTerms).
func textTerms(s string) []string {
	if !AnalyseOnce || !isASCII(s) {
		return terms(s)
	}
	c := wordCaches.Get().(*wordCache)
	defer wordCaches.Put(c)
	seen := c.seen
	defer clear(seen)
	return c.appendWords(c.appendWords(nil, seen, s, false), seen, s, true)
}

// wordCache holds the terms of ASCII words: plain, index.Terms(w); split,
// index.Terms of w with '_', '.' and '/' made spaces. Each holds at most
// wordCacheMax words (past that a word is analysed each time it comes),
// so a run over a million records keeps a few megabytes of them.
type wordCache struct {
	plain, split map[string][]string
	seen         map[string]bool // a call's own, emptied after it
}

const wordCacheMax = 1 << 16

var wordCaches = sync.Pool{New: func() any {
	return &wordCache{plain: map[string][]string{}, split: map[string][]string{}, seen: map[string]bool{}}
}}

// appendWords appends to out the terms of s's words (s is ASCII) that seen
// does not hold, marking them; split, of only the words that hold '_',
// '.' or '/', those made spaces.
func (c *wordCache) appendWords(out []string, seen map[string]bool, s string, split bool) []string {
	if split && !strings.ContainsAny(s, "_./") {
		return out
	}
	m := c.plain
	if split {
		m = c.split
	}
	for w := range strings.FieldsSeq(s) {
		if split && !strings.ContainsAny(w, "_./") {
			continue
		}
		ts, ok := m[w]
		if !ok {
			if split {
				ts = index.Terms(identSplitter.Replace(w))
			} else {
				ts = index.Terms(w)
			}
			if len(m) < wordCacheMax {
				m[strings.Clone(w)] = ts
			}
		}
		for _, t := range ts {
			if !seen[t] {
				seen[t] = true
				out = append(out, t)
			}
		}
	}
	return out
}

// asciiRecord reports whether r's lemma, trigger and steps are ASCII.
func asciiRecord(r *review.Record) bool {
	if !isASCII(r.Lemma) || !isASCII(r.Trigger) {
		return false
	}
	for _, s := range r.Steps {
		if !isASCII(s) {
			return false
		}
	}
	return true
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// analyse computes the terms of n records with f, spread over the CPUs in
// chunks, and interns each chunk as it comes: the terms are held as
// strings one chunk at a time, not for the whole bank (at a million
// records the strings weighed more than the rest of a run). f may also
// fill per-record slices of its own (each index is written once).
func analyse(n int, f func(i int) []string) ([]termSet, *vocab) {
	in := newInterner(n)
	inChunks(n, func(i int) ([]string, []string) { return f(i), nil },
		func(i int, a, _ []string) { in.add(i, a) })
	return in.finish()
}

// analyse2 is analyse for two term lists a record at a time (f gives
// both from one analysis): two sets and two vocabularies, each interned in
// the records' order as analyse interns them.
func analyse2(n int, f func(i int) (a, b []string)) ([]termSet, *vocab, []termSet, *vocab) {
	ina, inb := newInterner(n), newInterner(n)
	inChunks(n, f, func(i int, a, b []string) {
		ina.add(i, a)
		inb.add(i, b)
	})
	sa, va := ina.finish()
	sb, vb := inb.finish()
	return sa, va, sb, vb
}

// inChunks runs f for 0..n-1 over the CPUs, 4,096 at a time, and gives
// each chunk's results to add on the caller's goroutine, in order, before
// the next chunk starts.
func inChunks(n int, f func(i int) (a, b []string), add func(i int, a, b []string)) {
	const chunk = 4096
	workers := runtime.GOMAXPROCS(0)
	ta, tb := make([][]string, chunk), make([][]string, chunk)
	for lo := 0; lo < n; lo += chunk {
		hi := min(lo+chunk, n)
		var wg sync.WaitGroup
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := lo + w; i < hi; i += workers {
					ta[i-lo], tb[i-lo] = f(i)
				}
			}()
		}
		wg.Wait()
		for i := lo; i < hi; i++ {
			add(i, ta[i-lo], tb[i-lo])
			ta[i-lo], tb[i-lo] = nil, nil
		}
	}
}

// interner numbers terms as they come and counts their document
// frequencies; finish renumbers them by the global order.
type interner struct {
	v   *vocab
	raw [][]int32
}

func newInterner(n int) *interner {
	return &interner{v: &vocab{id: map[string]int32{}}, raw: make([][]int32, n)}
}

// add records text i's terms.
func (in *interner) add(i int, ts []string) {
	v := in.v
	ids := make([]int32, 0, len(ts))
	for _, t := range ts {
		id, ok := v.id[t]
		if !ok {
			id = int32(len(v.df))
			v.id[strings.Clone(t)] = id // t may share a buffer with the text's other terms
			v.df = append(v.df, 0)
		}
		v.df[id]++
		ids = append(ids, id)
	}
	in.raw[i] = ids
}

// finish returns the sets and their vocabulary.
func (in *interner) finish() ([]termSet, *vocab) {
	v, raw := in.v, in.raw
	n := float64(len(raw))
	// Renumber the terms by the global order (rarest first), so that a
	// term's id is its rank and a set sorted by id is sorted by rank.
	order := make([]int32, len(v.df))
	for id := range v.df {
		order[id] = int32(id)
	}
	slices.SortFunc(order, func(a, b int32) int {
		if v.df[a] != v.df[b] {
			return v.df[a] - v.df[b]
		}
		return int(a - b)
	})
	newID := make([]int32, len(order))
	df := make([]int, len(order))
	for r, id := range order {
		newID[id] = int32(r)
		df[r] = v.df[id]
	}
	v.df = df
	for t, id := range v.id {
		v.id[t] = newID[id]
	}
	v.weight = make([]float64, len(v.df))
	v.rank = make([]int32, len(v.df))
	for id, df := range v.df {
		v.weight[id] = math.Log(1 + n/float64(df))
		v.rank[id] = int32(id)
	}
	sets := make([]termSet, len(raw))
	for i, ids := range raw {
		for k, id := range ids {
			ids[k] = newID[id]
		}
		slices.Sort(ids)
		total := 0.0
		for _, id := range ids {
			total += v.weight[id]
		}
		sets[i] = termSet{ids: ids, total: total}
	}
	return sets, v
}

// similarity is the weighted Jaccard overlap of a and b.
func (v *vocab) similarity(a, b termSet) float64 {
	shared := 0.0
	i, j := 0, 0
	for i < len(a.ids) && j < len(b.ids) {
		ra, rb := a.ids[i], b.ids[j] // ids are ranks
		switch {
		case ra == rb:
			shared += v.weight[ra]
			i++
			j++
		case ra < rb:
			i++
		default:
			j++
		}
	}
	union := a.total + b.total - shared
	if union <= 0 {
		return 0
	}
	return shared / union
}

// prefixLen is how many of s's rarest terms must hold any term s shares
// with a record at least threshold similar to it.
func (v *vocab) prefixLen(s termSet, threshold float64) int {
	rest := s.total
	for k, id := range s.ids {
		if rest < threshold*s.total {
			return k
		}
		rest -= v.weight[id]
	}
	return len(s.ids)
}

// pair is two records (indexes into the compared slice, a < b) and their
// similarity: 24 bytes, since a million records keep millions of them.
type pair struct {
	a, b int32
	sim  float64
	// vector: found by the records' embeddings (Input.Neighbours), whose
	// cosine is cos (a float32, as the vector index gives it); sim stays
	// their word similarity.
	cos    float32
	vector bool
	rare   bool // found by a rare shared identifier (rarePairs)
}

// similarPairs gives f every pair of members (indexes into sets) whose
// similarity reaches threshold, by prefix filtering, group by group;
// members are compared only within the same group key.
func similarPairs(sets []termSet, v *vocab, group []string, threshold float64, f func(pair)) {
	keys, byGroup := groupsOf(group)
	seen := make([]int, len(sets)) // candidate → the member (+1) it was last seen for
	for _, g := range keys {
		groupPairs(sets, v, byGroup[g], threshold, seen, f)
	}
}

// PairsOnCPUs, the default, spreads the similar pairs of the slots'
// sample and of an incremental run over the CPUs (similarOnWorkers);
// false makes them on one goroutine, as before. The knob is for a
// benchmark's peer.
var PairsOnCPUs = true

// pairWorkers is how many workers similarOnWorkers is given: the CPUs,
// or one where PairsOnCPUs is off.
func pairWorkers() int {
	if !PairsOnCPUs {
		return 1
	}
	return max(1, runtime.GOMAXPROCS(0))
}

// similarOnWorkers gives f(w, p) every pair similarPairs gives, the
// groups spread over workers goroutines (w is the one's number, 0 to
// workers-1, each one's calls on its own goroutine), in no order: for
// callers that sort what they keep. With one worker it is similarPairs,
// on the caller's goroutine, in its order.
func similarOnWorkers(sets []termSet, v *vocab, group []string, threshold float64, workers int, f func(w int, p pair)) {
	if workers < 2 {
		similarPairs(sets, v, group, threshold, func(p pair) { f(0, p) })
		return
	}
	keys, byGroup := groupsOf(group)
	seen := make([]int, len(sets)) // a group's members are its own: disjoint parts
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := int(next.Add(1) - 1); k < len(keys); k = int(next.Add(1) - 1) {
				groupPairs(sets, v, byGroup[keys[k]], threshold, seen, func(p pair) { f(w, p) })
			}
		}()
	}
	wg.Wait()
}

// similarKeys are key of every pair similarPairs gives, in no order, made
// on the CPUs (similarOnWorkers; each worker keeps its own).
func similarKeys(sets []termSet, v *vocab, group []string, threshold float64, key func(pair) uint64) []uint64 {
	workers := pairWorkers()
	parts := make([][]uint64, workers)
	similarOnWorkers(sets, v, group, threshold, workers, func(w int, p pair) { parts[w] = append(parts[w], key(p)) })
	return slices.Concat(parts...)
}

// groupsOf returns the group keys, sorted, and each one's members in order.
func groupsOf(group []string) ([]string, map[string][]int) {
	byGroup := map[string][]int{}
	for i, g := range group {
		byGroup[g] = append(byGroup[g], i)
	}
	keys := make([]string, 0, len(byGroup))
	for g := range byGroup {
		keys = append(keys, g)
	}
	sort.Strings(keys)
	return keys, byGroup
}

// groupPairs gives f the pairs of one group's members (in order) whose
// similarity reaches threshold; seen is similarPairs' (only the members'
// entries are read and written).
func groupPairs(sets []termSet, v *vocab, group []int, threshold float64, seen []int, f func(pair)) {
	// Members in order of total weight, so that every record indexed
	// before i weighs at most what i does (ppjoin): then a pair that
	// reaches the threshold shares at least 2t/(1+t) of the lighter
	// one's weight, and the indexed prefix can stop there.
	members := append([]int(nil), group...)
	sort.SliceStable(members, func(x, y int) bool { return sets[members[x]].total < sets[members[y]].total })
	postings := map[int32][]int{}
	indexed := 2 * threshold / (1 + threshold)
	for _, i := range members {
		s := sets[i]
		for _, id := range s.ids[:v.prefixLen(s, threshold)] {
			for _, j := range postings[id] {
				if seen[j] == i+1 {
					continue
				}
				seen[j] = i + 1
				// Size filter: the weighted Jaccard overlap is at most
				// the lighter total over the heavier (sets[j] is the
				// lighter), so no pair above the threshold is lost.
				if sets[j].total < threshold*s.total {
					continue
				}
				if sim := v.similarity(s, sets[j]); sim >= threshold {
					f(pair{a: int32(min(i, j)), b: int32(max(i, j)), sim: sim})
				}
			}
		}
		for _, id := range s.ids[:v.prefixLen(s, indexed)] {
			postings[id] = append(postings[id], i)
		}
	}
}

// byRecords orders pairs by their records.
func byRecords(x, y pair) int {
	if x.a != y.a {
		return int(x.a) - int(y.a)
	}
	return int(x.b) - int(y.b)
}
