package hygiene

import "slices"

// Slot terms.
//
// Two records can share nearly all their words and still say different
// things: "attrs_g1 has one row per ref_id; stars is never NULL" and the
// same sentence about posted_on. What differs is a slot (a column, a
// table, a noun a task asks about), and a bank written by agents is full
// of sentences that differ in one slot. A paraphrase differs in other
// words ("keeps a single row for every"), which do not swap with many
// others. So hygiene learns the slot terms from the bank itself: across
// the candidate pairs whose lemmas differ in at most maxSwap terms on each
// side, a term that stands against at least minPartners distinct terms is
// a slot, unless more than maxSlotShare% of the lemmas hold it (template
// words such as "per" or "check" swap too). A pair one of whose lemmas
// holds a slot term the other lacks is two records about different things
// (or one more specific than the other), not duplicates. Only lemmas
// count: a paraphrase may drop the trigger or a step, and what they name.
const (
	maxSwap      = 2
	minPartners  = 4
	maxSlotShare = 10
)

// diffUpTo appends to dst (reused: the caller's buffer) the terms of a
// not in b (both sorted by the vocab's rank) when there are at most n of
// them; false when there are more.
func (v *vocab) diffUpTo(dst []int32, a, b termSet, n int) ([]int32, bool) {
	out := dst[:0]
	i, j := 0, 0
	for i < len(a.ids) {
		switch {
		case j >= len(b.ids) || a.ids[i] < b.ids[j]: // ids are ranks
			if len(out) == n {
				return nil, false
			}
			out = append(out, a.ids[i])
			i++
		case a.ids[i] == b.ids[j]:
			i++
			j++
		default:
			j++
		}
	}
	return out, true
}

// diffHolds reports whether a term of a not in b (both sorted by rank)
// is in slots.
func diffHolds(a, b termSet, slots map[int32]bool) bool {
	i, j := 0, 0
	for i < len(a.ids) {
		switch {
		case j >= len(b.ids) || a.ids[i] < b.ids[j]:
			if slots[a.ids[i]] {
				return true
			}
			i++
		case a.ids[i] == b.ids[j]:
			i++
			j++
		default:
			j++
		}
	}
	return false
}

// slotTerms learns the slot terms from candidate pairs, in two passes. A
// pair whose lemmas differ in one term a side links those two terms. A
// pair that differs in more ("look … stars" against "check … posted_on")
// does not say which term stood for which, so the first pass learns only
// from single swaps; the second takes the wider pairs, sets aside the slots
// already known on each side and learns from what is left: a single swap
// again, or, when one side lost only slots and the other none, the other
// side's terms as one slot written in several words ("operating profit"
// against "site").
func slotTerms(sets []termSet, v *vocab, pairs []pair) map[int32]bool {
	common := max(maxSlotShare*len(sets)/100, 2)
	partners := map[int32]map[int32]bool{}
	link := func(x, y int32) {
		if partners[x] == nil {
			partners[x] = map[int32]bool{}
		}
		partners[x][y] = true
	}
	learned := func() map[int32]bool {
		slots := map[int32]bool{}
		for t, ps := range partners {
			if len(ps) >= minPartners && v.df[t] <= common {
				slots[t] = true
			}
		}
		return slots
	}
	type swap struct{ a, b []int32 }
	var wide []swap
	var bufA, bufB [maxSwap]int32 // most pairs differ in more: nothing allocated for them
	for _, p := range pairs {
		da, okA := v.diffUpTo(bufA[:0], sets[p.a], sets[p.b], maxSwap)
		if !okA {
			continue
		}
		db, okB := v.diffUpTo(bufB[:0], sets[p.b], sets[p.a], maxSwap)
		if !okB {
			continue
		}
		switch {
		case len(da) == 0 || len(db) == 0 || len(da) > maxSwap || len(db) > maxSwap:
		case len(da) == 1 && len(db) == 1:
			link(da[0], db[0])
			link(db[0], da[0])
		default:
			wide = append(wide, swap{slices.Clone(da), slices.Clone(db)})
		}
	}
	known := learned()
	rest := func(ts []int32) (left []int32, removed []int32) {
		for _, t := range ts {
			if known[t] {
				removed = append(removed, t)
			} else {
				left = append(left, t)
			}
		}
		return left, removed
	}
	for _, w := range wide {
		la, ra := rest(w.a)
		lb, rb := rest(w.b)
		switch {
		case len(ra) > 0 && len(rb) > 0: // slots swapped: what is left swaps too
			for _, x := range la {
				for _, y := range lb {
					link(x, y)
					link(y, x)
				}
			}
		case len(ra) == 0 && len(rb) == 0: // nothing known: every term may stand for any
			for _, x := range la {
				for _, y := range lb {
					link(x, y)
					link(y, x)
				}
			}
		case len(ra) == 0 && len(lb) == 0: // la is one slot in several words
			for _, x := range la {
				for _, y := range rb {
					link(x, y)
				}
			}
		case len(rb) == 0 && len(la) == 0:
			for _, x := range lb {
				for _, y := range ra {
					link(x, y)
				}
			}
		}
	}
	return learned()
}

// swapsSlot reports whether a or b holds a slot term the other lacks.
func swapsSlot(a, b termSet, slots map[int32]bool) bool {
	return diffHolds(a, b, slots) || diffHolds(b, a, slots)
}
