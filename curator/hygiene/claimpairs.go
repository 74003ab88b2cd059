package hygiene

import "slices"

// Contradiction candidates.
//
// Two records are a contradiction candidate when one's rarest identifier
// appears in the other's (within an environment and task family) and
// their claims conflict. Many records of a bank say the same of one
// identifier ("price_cents is stored as integer cents" in a thousand
// wordings): testing every two of them for a conflict grew with the
// square of the records, and at a million records took most of a run. So
// records are numbered by claim signature (claimKey: a bank states few
// claims in many records), a conflict is decided once per two
// signatures, the records of a long posting are also held by signature,
// and a record meets only the records whose claims conflict with its
// own, in the same order as before. (Numbering by identifiers too gave
// nearly one signature a record, and a map of their pairs.)

// claimSigs numbers the records' claim signatures (those of group "\x01",
// nothing to contradict, are left 0) and returns whether the claims of
// two signatures conflict, decided once per two.
func claimSigs(claims [][]claim, group []string) ([]int32, func(s, t int32) bool) {
	sig := make([]int32, len(claims))
	numbers := map[string]int32{}
	var first [][]claim // a signature's claims: those of its first record
	for i, cs := range claims {
		if group[i] == "\x01" {
			continue
		}
		k := claimKey(cs)
		id, ok := numbers[k]
		if !ok {
			id = int32(len(first))
			numbers[k] = id
			first = append(first, cs)
		}
		sig[i] = id
	}
	decided := map[uint64]bool{}
	return sig, func(s, t int32) bool {
		k := uint64(min(s, t))<<32 | uint64(max(s, t)) // conflict is symmetric
		c, ok := decided[k]
		if !ok {
			_, c = conflict(first[s], first[t])
			decided[k] = c
		}
		return c
	}
}

// longPosting is the length from which a posting is also held by
// signature.
const longPosting = 64

// claimPosting is the records (in order) of one group that name one
// identifier, and, when they are many, the same by signature.
type claimPosting struct {
	all   []int32
	bySig map[int32][]int32
}

// eachClaimPair calls f with the pairs of records of one group such that
// one's rarest identifier appears in the other's and whose claims
// conflict (sig, conflicts: claimSigs): every conflicting pair whose
// identifiers one contains the other's is among them. They come in order of the first
// record (i) and, for each, of the other; a pair may come twice (once from
// each side).
func eachClaimPair(ids [][]string, group []string, sig []int32, conflicts func(s, t int32) bool, f func(i, j int)) {
	keys := newKeyer()
	postings := map[string]*claimPosting{}
	for i, xs := range ids {
		for _, x := range xs {
			k := keys.join(group[i], x)
			p := postings[k]
			if p == nil {
				p = &claimPosting{}
				postings[k] = p
			}
			p.all = append(p.all, int32(i))
		}
	}
	for _, p := range postings {
		if len(p.all) >= longPosting {
			p.bySig = map[int32][]int32{}
			for _, j := range p.all {
				p.bySig[sig[j]] = append(p.bySig[sig[j]], j)
			}
		}
	}
	var met []int32
	for i, xs := range ids {
		if len(xs) == 0 {
			continue
		}
		rarest := postings[keys.join(group[i], xs[0])]
		for _, x := range xs[1:] {
			if p := postings[keys.join(group[i], x)]; len(p.all) < len(rarest.all) {
				rarest = p
			}
		}
		met = met[:0]
		if rarest.bySig == nil {
			last, lastOK := int32(-1), false // runs of one signature are common
			for _, j := range rarest.all {
				if sig[j] != last {
					last, lastOK = sig[j], conflicts(sig[i], sig[j])
				}
				if lastOK {
					met = append(met, j)
				}
			}
		} else {
			for s, js := range rarest.bySig {
				if conflicts(sig[i], s) {
					met = append(met, js...)
				}
			}
			slices.Sort(met)
		}
		for _, j := range met {
			if int(j) != i {
				f(min(i, int(j)), max(i, int(j)))
			}
		}
	}
}
