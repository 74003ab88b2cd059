package hygiene

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

// diff returns the terms of a not in b (both sorted by the vocab's rank).
func (v *vocab) diff(a, b termSet) []int32 {
	var out []int32
	i, j := 0, 0
	for i < len(a.ids) {
		switch {
		case j >= len(b.ids) || a.ids[i] < b.ids[j]: // ids are ranks
			out = append(out, a.ids[i])
			i++
		case a.ids[i] == b.ids[j]:
			i++
			j++
		default:
			j++
		}
	}
	return out
}

// slotTerms learns the slot terms from candidate pairs.
func slotTerms(sets []termSet, v *vocab, pairs []pair) map[int32]bool {
	partners := map[int32]map[int32]bool{}
	for _, p := range pairs {
		da, db := v.diff(sets[p.a], sets[p.b]), v.diff(sets[p.b], sets[p.a])
		if len(da) == 0 || len(db) == 0 || len(da) > maxSwap || len(db) > maxSwap {
			continue
		}
		for _, x := range da {
			for _, y := range db {
				if partners[x] == nil {
					partners[x] = map[int32]bool{}
				}
				if partners[y] == nil {
					partners[y] = map[int32]bool{}
				}
				partners[x][y], partners[y][x] = true, true
			}
		}
	}
	slots := map[int32]bool{}
	common := max(maxSlotShare*len(sets)/100, 2)
	for t, ps := range partners {
		if len(ps) >= minPartners && v.df[t] <= common {
			slots[t] = true
		}
	}
	return slots
}

// swapsSlot reports whether a or b holds a slot term the other lacks.
func swapsSlot(a, b termSet, v *vocab, slots map[int32]bool) bool {
	has := func(ts []int32) bool {
		for _, t := range ts {
			if slots[t] {
				return true
			}
		}
		return false
	}
	return has(v.diff(a, b)) || has(v.diff(b, a))
}
