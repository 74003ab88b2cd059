package hygiene

import "slices"

// Contradiction candidates.
//
// Two records are a contradiction candidate when one's rarest identifier
// appears in the other's (within an environment and task family), their
// claims conflict and they are about the same subject (sameSubject: the
// identifiers of one appear in the other's, in order). Many records of a
// bank say the same of one identifier ("price_cents is stored as integer
// cents" in a thousand wordings): testing every two of them grew with the
// square of the records, and at a million records took most of a run. So
// records are numbered by signature (their claims, claimKey, and their
// identifiers): both tests are decided once per two signatures, the
// records of a long posting are also held by signature, and a record
// meets only the records whose signature passes with its own, in the
// same order as before.

// claimSigs numbers the records' signatures (those of group "\x01",
// nothing to contradict, are left 0) and returns whether the records of
// two signatures conflict on a claim and are about the same subject,
// decided once per two.
func claimSigs(claims [][]claim, ids [][]string, group []string) ([]int32, func(s, t int32) bool) {
	sig := make([]int32, len(claims))
	numbers := map[string]int32{}
	var first []int // a signature's first record
	var key []byte
	for i, cs := range claims {
		if group[i] == "\x01" {
			continue
		}
		key = append(key[:0], claimKey(cs)...)
		for _, x := range ids[i] {
			key = append(key, 0)
			key = append(key, x...)
		}
		id, ok := numbers[string(key)]
		if !ok {
			id = int32(len(first))
			numbers[string(key)] = id
			first = append(first, i)
		}
		sig[i] = id
	}
	decided := map[[2]int32]bool{}
	return sig, func(s, t int32) bool {
		k := [2]int32{min(s, t), max(s, t)} // both tests are symmetric
		c, ok := decided[k]
		if !ok {
			i, j := first[s], first[t]
			_, c = conflict(claims[i], claims[j])
			c = c && sameSubject(ids[i], ids[j], true)
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
// one's rarest identifier appears in the other's and whose signatures
// pass (sig, conflicts: claimSigs): every pair that conflicts on a claim
// and is about the same subject. They come in order of the first
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
			for _, j := range rarest.all {
				if conflicts(sig[i], sig[j]) {
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
