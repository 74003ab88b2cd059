package hygiene

import (
	"slices"
	"strconv"
)

// Candidate pairs at scale.
//
// Word overlap alone pairs every two records of a template that differ in
// one slot (a column, a table): on a bank written from few templates such
// pairs grow with the square of the records (1.4 million candidates at
// 30,000 synthetic records, nine times those of 10,000), while the rules
// keep a number that grows with the records. Two of those rules need no
// pair to apply: a kept pair's lemmas hold the same slot terms
// (swapsSlot) and state the same numbers (numbersDiffer). So above
// slotSample records, hygiene learns the slot terms from the candidate
// pairs of an even sample of slotSample records, then compares records
// only within a block (same scope and category, same slot terms in the
// lemma, same numbers), where the template siblings that differ in a
// slot never meet. At or below slotSample records every candidate pair
// is made and the slots are learned from all of them, as before.

// slotSample is the most records whose candidate pairs the slot terms are
// learned from.
var slotSample = 20000

// sampleOf returns an even sample of n of the indexes 0..total-1, in order.
func sampleOf(total, n int) []int {
	out := make([]int, 0, n)
	for k := range n {
		out = append(out, int(int64(k)*int64(total)/int64(n)))
	}
	return out
}

// sampleSlots learns the slot terms from the candidate pairs (similar and
// rare) among an even sample of slotSample records.
func (b *builder) sampleSlots(group []string) map[int32]bool {
	six := b.index()
	at := sampleOf(len(b.recs), slotSample)
	sets := make([]termSet, len(at))
	g := make([]string, len(at))
	idents := make([][]string, len(at))
	for k, i := range at {
		sets[k], g[k], idents[k] = six.sets[i], group[i], six.idents[i]
	}
	// The pairs back at the run's indexes, in record order, each once:
	// slotTerms reads only a pair's records, so each is kept as two int32s
	// in one uint64 (a sort of numbers, without a comparison function;
	// a third of a pair's bytes), made as the pairs are found, in no
	// order (similarKeys).
	key := func(p pair) uint64 { return uint64(uint32(at[p.a]))<<32 | uint64(uint32(at[p.b])) }
	keys := similarKeys(sets, six.v, g, DuplicateThreshold, key)
	for _, p := range rarePairsOf(sets, six.v, idents, g) {
		keys = append(keys, key(p))
	}
	slices.Sort(keys)
	keys = slices.Compact(keys)
	pairs := make([]pair, len(keys))
	for k, key := range keys {
		pairs[k] = pair{a: int32(key >> 32), b: int32(uint32(key))}
	}
	return slotTerms(six.lemmas, six.lv, pairs)
}

// blockKeys extends each record's group with the slot terms of its lemma
// and the numbers it states: records of different blocks are never
// duplicates.
func (b *builder) blockKeys(group []string, slots map[int32]bool) []string {
	six := b.index()
	out := make([]string, len(group))
	keys := newKeyer()
	var key []byte
	var nums []string
	for i, g := range group {
		key = append(key[:0], g...)
		for _, id := range six.lemmas[i].ids { // sorted: the same set gives the same key
			if slots[id] {
				key = append(key, "\x00s"...)
				key = strconv.AppendInt(key, int64(id), 10)
			}
		}
		nums = nums[:0]
		for _, x := range six.idents[i] {
			if _, ok := number(x); ok {
				nums = append(nums, x)
			}
		}
		slices.Sort(nums)
		for _, x := range nums {
			key = append(key, "\x00n"...)
			key = append(key, x...)
		}
		out[i] = keys.of(key)
	}
	return out
}
