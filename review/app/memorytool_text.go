package app

// The memory tool's text: how a record reads as a file and a file's text
// becomes a record again, the reference handler's text operations
// (Python's str.count, find, split and splitlines, as the anthropic SDK's
// BetaLocalFilesystemMemoryTool uses them) and the check that keeps
// binary data and terminal escapes out of the bank.

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/printable"
)

// memoryText is a record as a memory file: its lemma, then, when it has
// them, a blank line and "When: TRIGGER", and a blank line and "Steps:"
// with one numbered step a line. Text a model wrote without that tail is
// the lemma, byte for byte.
func memoryText(lemma, trigger string, steps []string) string {
	var b strings.Builder
	b.WriteString(lemma)
	if trigger != "" && !strings.ContainsAny(trigger, "\r\n") {
		b.WriteString("\n\nWhen: " + trigger)
	}
	if len(steps) > 0 && !slicesContainNewline(steps) {
		b.WriteString("\n\nSteps:")
		for i, s := range steps {
			fmt.Fprintf(&b, "\n%d. %s", i+1, s)
		}
	}
	return b.String()
}

func slicesContainNewline(ss []string) bool {
	for _, s := range ss {
		if s == "" || strings.ContainsAny(s, "\r\n") {
			return true
		}
	}
	return false
}

// parseMemoryText is memoryText's inverse: a tail that is exactly what
// memoryText writes becomes the trigger and steps; everything else is
// the lemma as written.
func parseMemoryText(text string) (lemma, trigger string, steps []string) {
	lemma = text
	if i := strings.LastIndex(lemma, "\n\nSteps:\n"); i >= 0 {
		if st, ok := parseSteps(lemma[i+len("\n\nSteps:\n"):]); ok {
			lemma, steps = lemma[:i], st
		}
	}
	if i := strings.LastIndex(lemma, "\n\nWhen: "); i >= 0 {
		if t := lemma[i+len("\n\nWhen: "):]; t != "" && !strings.ContainsAny(t, "\r\n") {
			lemma, trigger = lemma[:i], t
		}
	}
	if strings.TrimSpace(lemma) == "" { // the tail was all there was
		return text, "", nil
	}
	return lemma, trigger, steps
}

// parseSteps reads "1. a\n2. b": numbered from 1 in order, no blank step.
func parseSteps(s string) ([]string, bool) {
	var out []string
	for i, line := range strings.Split(s, "\n") {
		num, text, ok := strings.Cut(line, ". ")
		if !ok || num != strconv.Itoa(i+1) || text == "" || strings.Contains(text, "\r") {
			return nil, false
		}
		out = append(out, text)
	}
	return out, len(out) > 0
}

// recordText is the file a record reads as.
func recordText(r *review.Record) string { return memoryText(r.Lemma, r.Trigger, r.Steps) }

// numbered gives lines numbered as the reference handler numbers them:
// the number right-aligned in six columns, a tab, the line.
func numbered(lines []string, first int) string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = fmt.Sprintf("%6d\t%s", first+i, l)
	}
	return strings.Join(out, "\n")
}

// fileSize is the reference handler's size: 0B, 512B, 1.5K, 2M.
func fileSize(n int) string {
	if n <= 0 {
		return "0B"
	}
	units := []string{"B", "K", "M", "G"}
	i := 0
	for v := n; v >= 1024 && i < len(units)-1; v /= 1024 {
		i++
	}
	size := float64(n)
	for range i {
		size /= 1024
	}
	if size == float64(int64(size)) {
		return fmt.Sprintf("%d%s", int64(size), units[i])
	}
	return fmt.Sprintf("%.1f%s", size, units[i])
}

// occurrences gives the 1-based line of every place old appears in
// content, as the reference finds them: each search starts one character
// after the last match, so matches may overlap.
func occurrences(content, old string) []int {
	var lines []int
	for start := 0; start <= len(content); {
		i := strings.Index(content[start:], old)
		if i < 0 {
			break
		}
		pos := start + i
		lines = append(lines, strings.Count(content[:pos], "\n")+1)
		if pos == len(content) {
			break
		}
		_, size := utf8.DecodeRuneInString(content[pos:])
		start = pos + size
	}
	return lines
}

// splitLines is Python's str.splitlines: lines without their ends, split
// at \n, \r\n, \r, \v, \f, \x1c–\x1e, \x85, U+2028 and U+2029; a last
// line end does not start another line.
func splitLines(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch r {
		case '\n', '\v', '\f', 0x1c, 0x1d, 0x1e, 0x85, 0x2028, 0x2029:
			out = append(out, s[start:i])
			start = i + size
		case '\r':
			out = append(out, s[start:i])
			if strings.HasPrefix(s[i+1:], "\n") {
				size++
			}
			start = i + size
		}
		i += size
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}

// textProblem says why text may not enter the bank as a memory file, or
// "": binary data (NUL and other control bytes, invalid UTF-8) or a
// terminal escape (ESC, the C1 controls, bidi overrides), with where the
// first one is. Tabs, newlines and carriage returns are text.
func textProblem(field, text string) string {
	line, col := 1, 1
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		where := fmt.Sprintf("line %d, column %d", line, col)
		switch {
		case r == utf8.RuneError && size == 1:
			return fmt.Sprintf("%s holds binary data (a byte that is not UTF-8 at %s); memory files hold text only", field, where)
		case r == 0x1b || r >= 0x80 && r < 0xa0 || printable.IsBidi(r):
			return fmt.Sprintf("%s holds a terminal escape or bidi control (%s at %s); memory files hold plain text only", field, printable.Escape(r), where)
		case r == '\r' || r == '\n' || r == '\t':
		case r < 0x20 || r == 0x7f:
			return fmt.Sprintf("%s holds binary data (%s at %s); memory files hold text only", field, printable.Escape(r), where)
		}
		if r == '\n' {
			line, col = line+1, 0
		}
		col++
		i += size
	}
	return ""
}
