package hygiene

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestSplitGroup: a contradiction group split into parts of at most the
// limit, each part connected by the group's direct contradictions (so
// every member of a part contradicts another member of it directly), no
// member lost, and few members in two parts; over stars, chains and
// random trees.
func TestSplitGroup(t *testing.T) {
	const limit = 12
	trees := map[string][][2]int32{}
	star, chain := [][2]int32{}, [][2]int32{}
	for i := 1; i < 100; i++ {
		star = append(star, [2]int32{0, int32(i)})
		chain = append(chain, [2]int32{int32(i - 1), int32(i)})
	}
	trees["star"], trees["chain"] = star, chain
	rng := rand.New(rand.NewPCG(1, 2))
	for k := range 20 {
		var e [][2]int32
		for i := 1; i < 5+rng.IntN(200); i++ {
			e = append(e, [2]int32{int32(rng.IntN(i)), int32(i)})
		}
		trees[fmt.Sprintf("random%d", k)] = e
	}
	trees["small"] = [][2]int32{{0, 1}, {1, 2}}
	for name, edges := range trees {
		n := len(edges) + 1
		members := make([]int, n)
		for i := range members {
			members[i] = i
		}
		adj := map[[2]int]bool{}
		for _, e := range edges {
			adj[[2]int{int(e[0]), int(e[1])}], adj[[2]int{int(e[1]), int(e[0])}] = true, true
		}
		parts := splitGroup(members, edges, limit)
		if n <= limit && len(parts) != 1 {
			t.Errorf("%s: %d members in %d parts, want one", name, n, len(parts))
		}
		covered := map[int]int{}
		total := 0
		for _, p := range parts {
			total += len(p)
			if len(p) > limit || len(p) < 2 {
				t.Errorf("%s: a part of %d members (want 2 to %d)", name, len(p), limit)
			}
			for _, m := range p {
				covered[m]++
			}
			// connected through edges inside the part
			in := map[int]bool{}
			for _, m := range p {
				in[m] = true
			}
			reached := map[int]bool{p[0]: true}
			stack := []int{p[0]}
			for len(stack) > 0 {
				v := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				for _, w := range p {
					if !reached[w] && adj[[2]int{v, w}] {
						reached[w] = true
						stack = append(stack, w)
					}
				}
			}
			if len(reached) != len(in) {
				t.Errorf("%s: part %v is not connected by direct contradictions", name, p)
			}
		}
		if len(covered) != n {
			t.Errorf("%s: %d of %d members in a part", name, len(covered), n)
		}
		if total > n+n/2 {
			t.Errorf("%s: %d places for %d members: too many in two parts", name, total, n)
		}
	}
}
