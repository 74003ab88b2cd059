package common

import "strings"

// WordDiff marks the words that differ between an old and a new line, as
// git's plain word diff does, so a change shows without colour: removed
// words as [-word-] in old, added ones as {+word+} in new. A word is a run
// of non-space characters; the LCS of the two word lists is what stays.
// Lines that share less than half their words (rewritten rather than
// changed) or have more than maxDiffWords words are returned as they are.
func WordDiff(old, new string) (string, string) {
	a, b := strings.Fields(old), strings.Fields(new)
	if len(a) == 0 || len(b) == 0 || len(a) > maxDiffWords || len(b) > maxDiffWords {
		return old, new
	}
	// lcs[i][j]: the longest common run of a[i:] and b[j:].
	lcs := make([][]int, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	if 2*lcs[0][0] < max(len(a), len(b)) {
		return old, new // mostly rewritten: the whole lines read better
	}
	var ao, bo []string
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			ao, bo = append(ao, a[i]), append(bo, b[j])
			i, j = i+1, j+1
		case j < len(b) && (i == len(a) || lcs[i][j+1] >= lcs[i+1][j]):
			bo = append(bo, "{+"+b[j]+"+}")
			j++
		default:
			ao = append(ao, "[-"+a[i]+"-]")
			i++
		}
	}
	return join(ao), join(bo)
}

// maxDiffWords bounds the quadratic word diff.
const maxDiffWords = 400

// join joins words with spaces, merging neighbouring marks of one kind:
// "[-a-] [-b-]" becomes "[-a b-]".
func join(ws []string) string {
	s := strings.Join(ws, " ")
	return strings.NewReplacer("-] [-", " ", "+} {+", " ").Replace(s)
}
