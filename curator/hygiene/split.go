package hygiene

import "slices"

// MaxContradictionMembers is the most records one contradiction proposal
// names: as many as its rationale describes with their evidence
// (describedMembers), so an operator can judge every record it names
// from the proposal alone. A larger subject group is split (splitGroup).
const MaxContradictionMembers = describedMembers

// splitGroup splits a contradiction group (members, in record order,
// connected by edges: the direct contradictions that joined it, a
// spanning tree) into parts of at most limit members, each connected by
// those edges, so that every member of a part contradicts another member
// of it directly. Every member is in a part; a member that joins the
// parts of two subtrees (a hub) may be in more than one. A group of at
// most limit members is one part.
func splitGroup(members []int, edges [][2]int32, limit int) [][]int {
	if len(members) <= limit {
		return [][]int{members}
	}
	limit = max(limit, 2)
	adj := make(map[int][]int, len(members))
	for _, e := range edges {
		a, b := int(e[0]), int(e[1])
		adj[a] = append(adj[a], b)
		adj[b] = append(adj[b], a)
	}
	// Breadth first from the first member: parents before children.
	root := members[0]
	order := []int{root}
	parent := map[int]int{root: -1}
	for k := 0; k < len(order); k++ {
		v := order[k]
		ns := adj[v]
		slices.Sort(ns)
		for _, w := range ns {
			if _, seen := parent[w]; !seen {
				parent[w] = v
				order = append(order, w)
			}
		}
	}
	// Children first: a node's pending part is itself and the pending
	// parts of its children that fit; a child's part that does not fit
	// is a part of its own (connected: it holds the child), or, a lone
	// child, starts the node's next part.
	var parts [][]int
	pending := map[int][]int{}
	children := map[int][]int{}
	for _, v := range order[1:] {
		children[parent[v]] = append(children[parent[v]], v)
	}
	for k := len(order) - 1; k >= 0; k-- {
		v := order[k]
		cur := []int{v}
		for _, c := range children[v] {
			p := pending[c]
			delete(pending, c)
			switch {
			case len(cur)+len(p) <= limit:
				cur = append(cur, p...)
			case len(p) >= 2:
				parts = append(parts, p)
			default: // cur is full and p is c alone
				parts = append(parts, cur)
				cur = append([]int{v}, p...)
			}
		}
		pending[v] = cur
	}
	if last := pending[root]; len(last) >= 2 {
		parts = append(parts, last)
	} else if c := children[root]; len(c) > 0 { // the root alone: with one child, again
		parts = append(parts, []int{root, c[0]})
	}
	for _, p := range parts {
		slices.Sort(p) // in record order, as a group is
	}
	slices.SortFunc(parts, func(x, y []int) int { return x[0] - y[0] })
	return parts
}
