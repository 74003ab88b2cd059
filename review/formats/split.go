package formats

// Splitting a long memory block (Letta core memory holds whole documents:
// policies, tool guides, skill lists of 20 KB) into the parts a person can
// judge one at a time: paragraphs and list items, each with the heading
// it sits under and the line that introduces its list, fenced code kept
// whole. Every part is text of the block as written.

import (
	"strings"
	"unicode/utf8"
)

// splitAbove is the size past which a block is split into parts; a part
// is at most about as long (a paragraph or item longer than that is cut
// at line, then sentence, then word boundaries).
const splitAbove = 2 << 10

// part is one piece of a block: its text (with its heading and list lead
// line before it) and what it is.
type part struct {
	text, kind string // kind: "paragraph", "list item", "code", "heading"
}

// blockParts splits v into parts when it is longer than splitAbove; a
// shorter block is one part (kind "").
func blockParts(v string) []part {
	if len(v) <= splitAbove {
		return []part{{text: v}}
	}
	var out []part
	// The headings the text is under (outermost first), and whether a part
	// has cited each: one that none cites is a part of its own.
	type head struct {
		line  string
		level int
		used  bool
	}
	var heads []head
	var lead string
	leadUsed := false
	var cur []string
	kind, itemIndent := "", 0
	fence := ""
	add := func(text, k string) {
		ctx := ""
		for i := range heads {
			ctx = joinLines(ctx, heads[i].line)
			heads[i].used = true
		}
		for _, piece := range cut(text, splitAbove) {
			out = append(out, part{text: joinLines(ctx, piece), kind: k})
		}
	}
	// popHeads ends the headings of level or deeper.
	popHeads := func(level int) {
		for len(heads) > 0 && heads[len(heads)-1].level >= level {
			h := heads[len(heads)-1]
			if !h.used {
				heads = heads[:len(heads)-1]
				add(h.line, "heading")
				continue
			}
			heads = heads[:len(heads)-1]
		}
	}
	// dropLead ends the lead line's reach; one that introduced no item is
	// a paragraph of its own.
	dropLead := func() {
		if lead != "" && !leadUsed {
			add(lead, "paragraph")
		}
		lead, leadUsed = "", false
	}
	flush := func() {
		text := strings.TrimSpace(strings.Join(cur, "\n"))
		k := kind
		cur = nil
		kind = ""
		switch {
		case text == "":
			return
		case k == "list item" || k == "code":
			if lead != "" {
				text, leadUsed = lead+"\n"+text, true
			}
			add(text, k)
			return
		}
		dropLead()
		if k == "paragraph" && strings.HasSuffix(strings.TrimRight(text, "*_"), ":") && len(text) < splitAbove/4 {
			lead = text // introduces what follows: kept with each item
			return
		}
		add(text, k)
	}
	for _, line := range strings.Split(v, "\n") {
		trimmed := strings.TrimSpace(line)
		if fence != "" {
			cur = append(cur, line)
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
				flush()
			}
			continue
		}
		switch {
		case strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~"):
			if kind != "list item" {
				flush()
				kind = "code"
			}
			fence = trimmed[:3]
			cur = append(cur, line)
		case trimmed == "":
			flush()
		case isHeading(trimmed):
			flush()
			dropLead()
			level := len(trimmed) - len(strings.TrimLeft(trimmed, "#"))
			popHeads(level)
			heads = append(heads, head{line: trimmed, level: level})
		case isItem(trimmed) && (kind != "list item" || indent(line) <= itemIndent):
			flush()
			kind, itemIndent = "list item", indent(line)
			cur = append(cur, line)
		default:
			if kind == "" {
				kind = "paragraph"
			}
			cur = append(cur, line)
		}
	}
	flush()
	dropLead()
	popHeads(0)
	if len(out) == 0 {
		return []part{{text: v}}
	}
	return out
}

// joinLines joins a and b by a line break (either may be empty).
func joinLines(a, b string) string {
	if a == "" || b == "" {
		return a + b
	}
	return a + "\n" + b
}

func isHeading(s string) bool {
	n := len(s) - len(strings.TrimLeft(s, "#"))
	return n >= 1 && n <= 6 && len(s) > n && s[n] == ' '
}

// isItem reports whether s starts a list item: "- ", "* ", "+ ", "1. ",
// "1) ".
func isItem(s string) bool {
	if len(s) >= 2 && strings.ContainsRune("-*+", rune(s[0])) && s[1] == ' ' {
		return true
	}
	i := 0
	for i < len(s) && i < 4 && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i > 0 && i+1 < len(s) && (s[i] == '.' || s[i] == ')') && s[i+1] == ' '
}

func indent(line string) int { return len(line) - len(strings.TrimLeft(line, " \t")) }

// cut splits text into pieces of at most about n bytes: at line breaks,
// else after sentences, else at spaces, else at rune boundaries.
func cut(text string, n int) []string {
	if len(text) <= n {
		return []string{text}
	}
	for _, sep := range []string{"\n", ". ", " "} {
		if !strings.Contains(text, sep) {
			continue
		}
		var out []string
		var b strings.Builder
		for _, unit := range strings.SplitAfter(text, sep) {
			if b.Len() > 0 && b.Len()+len(unit) > n {
				out = append(out, strings.TrimSpace(b.String()))
				b.Reset()
			}
			b.WriteString(unit)
		}
		if b.Len() > 0 {
			out = append(out, strings.TrimSpace(b.String()))
		}
		if len(out) > 1 {
			var fine []string
			for _, o := range out {
				fine = append(fine, cut(o, n)...)
			}
			return fine
		}
	}
	var out []string
	for len(text) > n {
		i := n
		for i > 0 && !utf8.RuneStart(text[i]) {
			i--
		}
		out = append(out, text[:i])
		text = text[i:]
	}
	return append(out, text)
}
