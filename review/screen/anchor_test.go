package screen

import (
	"slices"
	"strings"
	"testing"
)

// TestAnchoredAsWhole: a rule run from its anchors finds exactly what its
// whole pattern finds over the same windows — same spans, same rules —
// on every text of the labelled set and on 64 KiB fields of them end to
// end; and most of the rules have an anchor.
func TestAnchoredAsWhole(t *testing.T) {
	set := shared().secrets
	n := 0
	for _, sr := range set.rules {
		if sr.anchored() != nil {
			n++
		}
	}
	if n < 90 {
		t.Errorf("only %d of %d secret rules have an anchor", n, len(set.rules))
	}
	records, fields := benchSamples(t)
	texts := append(records, fields[:1]...)
	found := 0
	for _, text := range texts {
		a, b := set.findWith(text, true), set.findWith(text, false)
		found += len(a)
		if !slices.EqualFunc(a, b, func(x, y secretHit) bool { return x == y }) {
			t.Fatalf("anchored %v, whole %v, in %.80q", hitList(a), hitList(b), text)
		}
	}
	if found < 100 {
		t.Errorf("only %d secrets found in %d texts: the comparison proves little", found, len(texts))
	}
}

func hitList(hs []secretHit) [][3]any {
	var out [][3]any
	for _, h := range hs {
		out = append(out, [3]any{h.rule.id, h.start, h.end})
	}
	return out
}

// TestLiteralStarts: the literals a pattern's matches begin with; and an
// opening that binds to one alternative only is not stripped.
func TestNoAnchorForOneAlternative(t *testing.T) {
	if a := newAnchor(lazyPrefix + `(?:key)=(\w+)|abc(\w+)`); a != nil {
		t.Error("an anchor for a pattern whose lazy prefix opens its first alternative only")
	}
	if a := newAnchor(lazyPrefix + `(?:key)=(\w+)`); a == nil {
		t.Error("no anchor for a lazy prefix and a keyword")
	}
}

// TestLiteralStarts: the literals a pattern's matches begin with.
func TestLiteralStarts(t *testing.T) {
	for _, c := range []struct {
		pattern string
		want    []string
	}{
		{`(?i)(?:access|auth|(?-i:[Aa]pi|API)|key)x`, []string{"access", "api", "auth", "key"}},
		{`(?i)(?:pass|key)(?:word)?=`, []string{"key", "pass"}},
		{`(?i)(?:password|pwd)\s+is`, []string{"password", "pwd"}},
		{`(?i)abc+d`, []string{"abc"}},
		{`(?i)a?bc`, nil},
		{`(?i)(?:x|y)z|\bw`, nil},
		{`(?i)\bfoo`, nil},
		{`(?i).*foo`, nil},
	} {
		if got := literalStarts(c.pattern); !slices.Equal(got, c.want) {
			t.Errorf("literalStarts(%q) = %q, want %q", c.pattern, got, c.want)
		}
	}
}

// TestAssignPrecheck: most of gitleaks' template rules skip keywords
// with no assignment after them, and the check lets through what the
// template can match.
func TestAssignPrecheck(t *testing.T) {
	n := 0
	for _, sr := range shared().secrets.rules {
		if a := sr.anchored(); a != nil && a.assign {
			n++
		}
	}
	if n < 80 {
		t.Errorf("only %d rules skip keywords without an assignment", n)
	}
	for _, c := range []struct {
		text string
		want bool
	}{
		{`key = "abcdefghij1"`, true},
		{`key_name:::=abcdefghij`, true},
		{"key \t'=> `==abcdefgh", true},
		{`key is abcdefghijklmnop`, false},
		{`key: short`, false},
		{`key` + strings.Repeat("x", 50) + `=abcdefghijk`, false},
	} {
		if got := assignmentFollows(c.text, 3); got != c.want {
			t.Errorf("assignmentFollows(%q) = %v, want %v", c.text, got, c.want)
		}
	}
}
