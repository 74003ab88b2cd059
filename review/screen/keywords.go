package screen

import "strings"

// keywordSet finds which of a fixed set of keywords occur in a text, in
// one pass (an Aho–Corasick automaton over bytes, compiled to a table).
// It is the prefilter both rule sets use: a rule whose keywords are all
// absent is not run. Matching folds ASCII upper case to lower case;
// keywords are given in lower case.
type keywordSet struct {
	class    [256]uint8 // byte → column; 0 for bytes in no keyword
	ncls     int
	next     []int32   // state*ncls + class → state
	out      [][]int32 // state → keywords that end here (through suffixes too)
	keywords []string
}

func newKeywordSet(keywords []string) *keywordSet {
	k := &keywordSet{keywords: keywords, ncls: 1}
	for _, w := range keywords {
		for i := 0; i < len(w); i++ {
			c := lowerByte(w[i])
			if k.class[c] == 0 {
				k.class[c] = uint8(k.ncls)
				k.ncls++
			}
		}
	}
	for c := 'a'; c <= 'z'; c++ {
		k.class[c-'a'+'A'] = k.class[c]
	}
	// The trie, with -1 for "no edge".
	type node struct {
		edge []int32
		out  []int32
	}
	newNode := func() node {
		e := make([]int32, k.ncls)
		for i := range e {
			e[i] = -1
		}
		return node{edge: e}
	}
	nodes := []node{newNode()}
	for id, w := range keywords {
		s := int32(0)
		for i := 0; i < len(w); i++ {
			c := k.class[lowerByte(w[i])]
			if nodes[s].edge[c] < 0 {
				nodes = append(nodes, newNode())
				nodes[s].edge[c] = int32(len(nodes) - 1)
			}
			s = nodes[s].edge[c]
		}
		nodes[s].out = append(nodes[s].out, int32(id))
	}
	// Breadth first: fail links, then complete the transition table.
	fail := make([]int32, len(nodes))
	queue := []int32{}
	for c := 0; c < k.ncls; c++ {
		if t := nodes[0].edge[c]; t >= 0 {
			queue = append(queue, t)
		} else {
			nodes[0].edge[c] = 0
		}
	}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		nodes[s].out = append(nodes[s].out, nodes[fail[s]].out...)
		for c := 0; c < k.ncls; c++ {
			t := nodes[s].edge[c]
			if t < 0 {
				nodes[s].edge[c] = nodes[fail[s]].edge[c]
				continue
			}
			if s != 0 {
				fail[t] = nodes[fail[s]].edge[c]
			}
			queue = append(queue, t)
		}
	}
	k.next = make([]int32, len(nodes)*k.ncls)
	k.out = make([][]int32, len(nodes))
	for i, n := range nodes {
		copy(k.next[i*k.ncls:], n.edge)
		k.out[i] = n.out
	}
	return k
}

func lowerByte(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// find returns found[i] == true for each keyword i that occurs in text.
func (k *keywordSet) find(text string) []bool {
	found := make([]bool, len(k.keywords))
	s := int32(0)
	for i := 0; i < len(text); i++ {
		s = k.next[int(s)*k.ncls+int(k.class[text[i]])]
		for _, id := range k.out[s] {
			found[id] = true
		}
	}
	return found
}

// lineHits returns, for each keyword, the start offsets of the lines it
// occurs in (in order, each once); nil for a keyword that does not occur.
func (k *keywordSet) lineHits(text string) [][]int32 {
	hits := make([][]int32, len(k.keywords))
	s, line := int32(0), int32(0)
	for i := 0; i < len(text); i++ {
		c := text[i]
		s = k.next[int(s)*k.ncls+int(k.class[c])]
		for _, id := range k.out[s] {
			// a keyword that spans a line break belongs to its first line
			start := line
			if j := i + 1 - len(k.keywords[id]); j < int(line) {
				start = int32(strings.LastIndexByte(text[:max(j, 0)+1], '\n') + 1)
			}
			if h := hits[id]; len(h) == 0 || h[len(h)-1] != start {
				hits[id] = append(hits[id], start)
			}
		}
		if c == '\n' {
			line = int32(i + 1)
		}
	}
	return hits
}

// positions returns, for each keyword, the offsets just past each of its
// occurrences (at most maxPositions of each).
func (k *keywordSet) positions(text string) [][]int32 {
	const maxPositions = 1 << 14
	pos := make([][]int32, len(k.keywords))
	s := int32(0)
	for i := 0; i < len(text); i++ {
		s = k.next[int(s)*k.ncls+int(k.class[text[i]])]
		for _, id := range k.out[s] {
			if len(pos[id]) < maxPositions {
				pos[id] = append(pos[id], int32(i+1))
			}
		}
	}
	return pos
}
