package screen

import (
	"encoding/base64"
	"encoding/hex"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/memreview/memreview/review/printable"
)

// The hidden-text rules look for text that a reader does not see as it
// is written: Unicode tag characters (invisible ASCII), bidi controls
// (text shown reordered), runs of zero-width characters and variation
// selectors (invisible payloads), control characters, words and hosts
// that mix Latin with look-alike Cyrillic or Greek letters, punycode
// hosts that decode to such a mix, HTML comments and hidden markup,
// padding that pushes text out of view, and long base64 or hex blobs or
// runs of escapes — which are decoded once and screened again, so an
// encoded instruction or secret is reported as what it is.

// hiddenHit is one hidden-text finding, or (from decoding) a finding of
// another kind at an encoded span.
type hiddenHit struct {
	start, end int
	rule       string
	kind       Kind
	reason     string
}

// scanRunes finds the rune-level hidden text: tags, bidi controls,
// zero-width runs, variation-selector runs, control characters and
// mixed-script words.
func scanRunes(text string) []hiddenHit {
	var out []hiddenHit
	add := func(s, e int, rule, reason string) {
		if n := len(out); n > 0 && out[n-1].rule == rule && out[n-1].end == s {
			out[n-1].end = e // extend a run
			return
		}
		out = append(out, hiddenHit{s, e, rule, HiddenText, reason})
	}
	wordStart := -1
	for i := 0; i < len(text); {
		r, n := utf8.DecodeRuneInString(text[i:])
		switch {
		case r >= 0xe0000 && r <= 0xe007f:
			add(i, i+n, "unicode-tags", "holds Unicode tag characters, invisible text a model still reads")
		case printable.IsBidi(r):
			add(i, i+n, "bidi-control", "holds bidi controls that show the text in another order than it is read")
		case zeroWidth(r):
			if e := zeroWidthRunEnd(text, i); e > i {
				add(i, e, "zero-width", "holds zero-width characters that hide text or split words")
				n = e - i
			}
		case r >= 0xfe00 && r <= 0xfe0f || r >= 0xe0100 && r <= 0xe01ef:
			if e := runOf(text, i, isVariationSelector); e-i > 4 { // more than one selector
				add(i, e, "variation-selectors", "holds a run of variation selectors, which can carry invisible data")
				n = e - i
			}
		case r == utf8.RuneError && n == 1, r < 0x20 && r != '\n' && r != '\t' && r != '\r', r == 0x7f, r >= 0x80 && r < 0xa0:
			add(i, i+n, "control-chars", "holds control characters or invalid bytes a terminal or model may act on")
		}
		if isLetter(r) || unicode.Is(unicode.Mn, r) || invisible(r) && wordStart >= 0 {
			if wordStart < 0 {
				wordStart = i
			}
		} else if wordStart >= 0 {
			if h, ok := mixedScript(text, wordStart, i); ok {
				out = append(out, h)
			}
			wordStart = -1
		}
		i += n
	}
	if wordStart >= 0 {
		if h, ok := mixedScript(text, wordStart, len(text)); ok {
			out = append(out, h)
		}
	}
	return out
}

func zeroWidth(r rune) bool {
	switch r {
	case 0x200b, 0x200c, 0x200d, 0x2060, 0x2061, 0x2062, 0x2063, 0x2064, 0xfeff, 0x180e, 0x034f, 0x115f, 0x1160, 0x3164, 0xffa0, 0x00ad:
		return true
	}
	return false
}

func isVariationSelector(r rune) bool {
	return r >= 0xfe00 && r <= 0xfe0f || r >= 0xe0100 && r <= 0xe01ef
}

// runOf returns the end of the run of runes satisfying f from i.
func runOf(text string, i int, f func(rune) bool) int {
	for i < len(text) {
		r, n := utf8.DecodeRuneInString(text[i:])
		if !f(r) {
			break
		}
		i += n
	}
	return i
}

// zeroWidthRunEnd returns the end of the zero-width run at i when it is
// hiding something, or i when it is ordinary: a single zero-width joiner
// or non-joiner between letters that are not ASCII (emoji sequences,
// Persian, Indic scripts), a single soft hyphen inside a word, or a byte
// order mark at the very start.
func zeroWidthRunEnd(text string, i int) int {
	e := runOf(text, i, zeroWidth)
	first, n := utf8.DecodeRuneInString(text[i:])
	if e-i == n {
		prev, _ := utf8.DecodeLastRuneInString(text[:i])
		next, _ := utf8.DecodeRuneInString(text[e:])
		switch {
		case first == 0xfeff && i == 0:
			return i
		case first == 0x00ad && unicode.IsLetter(prev) && unicode.IsLetter(next):
			return i
		case (first == 0x200d || first == 0x200c) && (prev > 0x7f || next > 0x7f):
			return i
		}
	}
	return e
}

// mixedScript reports a word mixing ASCII Latin letters with Cyrillic
// or Greek look-alikes ("pаypal", "іgnore"), or a word made only of
// look-alikes that stands as a host name before a Latin top-level domain
// ("аррӏе.com").
func mixedScript(text string, s, e int) (hiddenHit, bool) {
	word := text[s:e]
	var latin, alike, other int
	for _, r := range word {
		switch {
		case r < 0x80 && unicode.IsLetter(r) || r >= 0xff21 && r <= 0xff5a:
			latin++
		case lookalike[r] != 0:
			alike++
		case unicode.IsLetter(r):
			other++
		}
	}
	if alike == 0 {
		return hiddenHit{}, false
	}
	if latin > 0 {
		return hiddenHit{s, e, "mixed-script", HiddenText, "mixes Latin letters with look-alike letters of other scripts (a homoglyph spoof)"}, true
	}
	if other == 0 && reLatinTLD().MatchString(text[e:]) {
		return hiddenHit{s, e, "homoglyph-host", HiddenText, "a host name spelled in look-alike Cyrillic or Greek letters"}, true
	}
	return hiddenHit{}, false
}

var reLatinTLD = lazyRE(`^\.[a-zA-Z]{2,24}\b`)

// Markup that hides text when rendered, and padding.
var (
	reHTMLComment = lazyRE(`(?s)<!--.*?-->`)
	reHiddenStyle = lazyRE(`(?i)<[a-z][^>]{0,300}?\bstyle\s*=\s*["'][^"']{0,300}?(?:display\s*:\s*none|visibility\s*:\s*hidden|font-size\s*:\s*0(?:px|pt|em)?\s*[;"']|opacity\s*:\s*0(?:\.0+)?\s*[;"']|color\s*:\s*(?:white|#fff(?:fff)?|transparent)\b)` +
		`|(?i)<(?:font|span|div|p|td)\b[^>]{0,300}?\bcolor\s*=\s*["']?(?:white|#fff(?:fff)?)\b` +
		`|(?i)<[a-z][^>]{0,300}?\s(?:hidden|aria-hidden\s*=\s*["']?true)\b[^>]{0,300}>`)
	reMDComment = lazyRE(`(?m)^[ \t]*\[[^\]\n]{0,60}\]:[ \t]*(?:#|<>)[ \t]*\(`)
	rePadding   = lazyRE(`[ \t\x{00a0}\x{3000}]{60,}\S|(?:\n[ \t]*){16,}\S`)
)

func scanMarkup(text string) []hiddenHit {
	var out []hiddenHit
	if strings.Contains(text, "<!--") {
		for _, m := range reHTMLComment().FindAllStringIndex(text, -1) {
			if strings.IndexFunc(text[m[0]+4:m[1]-3], unicode.IsLetter) >= 0 {
				out = append(out, hiddenHit{m[0], m[1], "html-comment", HiddenText, "holds an HTML comment, text that rendering hides"})
			}
		}
	}
	if strings.IndexByte(text, '<') >= 0 {
		for _, m := range reHiddenStyle().FindAllStringIndex(text, -1) {
			out = append(out, hiddenHit{m[0], m[1], "hidden-markup", HiddenText, "holds markup that renders its text invisible"})
		}
	}
	if strings.Contains(text, "]:") {
		for _, m := range reMDComment().FindAllStringIndex(text, -1) {
			e := strings.IndexByte(text[m[1]:], '\n')
			if e < 0 {
				e = len(text) - m[1]
			}
			out = append(out, hiddenHit{m[0], m[1] + e, "markdown-comment", HiddenText, "holds a Markdown comment, text that rendering hides"})
		}
	}
	for _, m := range rePadding().FindAllStringIndex(text, -1) {
		out = append(out, hiddenHit{m[0], m[1] - 1, "padding", HiddenText, "holds long padding that pushes text out of view"})
	}
	return out
}

// Encoded runs.
var (
	reEscapes  = lazyRE(`(?:%[0-9a-fA-F]{2}){8,}|(?:&#(?:x[0-9a-fA-F]{1,6}|[0-9]{1,7});){8,}|(?:\\u[0-9a-fA-F]{4}){6,}|(?:\\x[0-9a-fA-F]{2}){8,}`)
	rePuny     = lazyRE(`(?i)\bxn--[a-z0-9-]{1,59}`)
	minHexLong = 80 // a hex run longer than a SHA-256 (64) is a blob
)

// blob is an encoded run and, when it decodes to text, that text.
type blob struct {
	start, end int
	rule       string
	reason     string
	decoded    string // "" when it does not decode to text
}

// scanBlobs finds base64 and hex blobs, runs of escapes, and punycode
// labels that decode to mixed scripts.
func scanBlobs(text string) (hits []hiddenHit, blobs []blob) {
	for _, m := range runs(text, isBase64Byte, 40) {
		run := text[m[0]:m[1]]
		if !base64Like(run) {
			continue
		}
		b := blob{start: m[0], end: m[1], rule: "base64-blob", reason: "holds a long base64 blob"}
		if d, ok := decodeBase64(run); ok && isText(d) {
			b.decoded, b.reason = d, "holds base64 that decodes to text"
		}
		blobs = append(blobs, b)
	}
	for _, m := range hexRuns(text) {
		run := strings.TrimPrefix(strings.TrimPrefix(text[m[0]:m[1]], "0x"), "0X")
		b := blob{start: m[0], end: m[1], rule: "hex-blob", reason: "holds a long hex blob"}
		if d, err := hex.DecodeString(run[:len(run)&^1]); err == nil && len(d) >= 16 && isText(string(d)) {
			b.decoded, b.reason = string(d), "holds hex that decodes to text"
		} else if len(run) < minHexLong {
			continue
		}
		blobs = append(blobs, b)
	}
	for _, m := range reEscapes().FindAllStringIndex(text, -1) {
		b := blob{start: m[0], end: m[1], rule: "escaped-text", reason: "holds a run of escapes that spells hidden text"}
		b.decoded = unescapeRun(text[m[0]:m[1]])
		blobs = append(blobs, b)
	}
	for _, b := range blobs {
		hits = append(hits, hiddenHit{b.start, b.end, b.rule, HiddenText, b.reason})
	}
	for _, m := range rePuny().FindAllStringIndex(text, -1) {
		label, ok := punyDecode(strings.ToLower(text[m[0]+4 : m[1]]))
		if !ok {
			continue
		}
		// the decoded label with the rest of the host after it
		rest := text[m[1]:]
		if i := strings.IndexFunc(rest, func(r rune) bool {
			return !(r == '.' || r == '-' || r < 0x80 && unicode.IsLetter(r) || unicode.IsDigit(r))
		}); i >= 0 {
			rest = rest[:i]
		}
		host := label + rest
		if h, ok := mixedScript(host, 0, len(label)); ok {
			hits = append(hits, hiddenHit{m[0], m[1], "homoglyph-host", HiddenText, "a punycode host that decodes to " + h.reason[strings.Index(h.reason, " ")+1:]})
		} else if mixedScripts(label) {
			hits = append(hits, hiddenHit{m[0], m[1], "homoglyph-host", HiddenText, "a punycode host that decodes to a mix of scripts"})
		}
	}
	return hits, blobs
}

// runs returns the maximal runs of bytes in(c), at least n long, with
// the '=' padding that follows.
func runs(text string, in func(byte) bool, n int) [][2]int {
	var out [][2]int
	for i := 0; i < len(text); {
		if !in(text[i]) {
			i++
			continue
		}
		j := i
		for j < len(text) && in(text[j]) {
			j++
		}
		for k := 0; k < 2 && j < len(text) && text[j] == '='; k++ {
			j++
		}
		if j-i >= n {
			out = append(out, [2]int{i, j})
		}
		i = j
	}
	return out
}

func isBase64Byte(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '_' || c == '-'
}

func isHexByte(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func isWordByte(c byte) bool {
	return isHexByte(c) || c >= 'g' && c <= 'z' || c >= 'G' && c <= 'Z' || c == '_'
}

// hexRuns returns the runs of 32 or more hex digits that stand as words
// (an 0x prefix allowed).
func hexRuns(text string) [][2]int {
	var out [][2]int
	for _, r := range runs(text, isWordByte, 32) {
		s, e := r[0], r[1]
		for e > s && text[e-1] == '=' {
			e--
		}
		w := text[s:e]
		if len(w) > 2 && w[0] == '0' && (w[1] == 'x' || w[1] == 'X') {
			w = w[2:]
		}
		if len(w) >= 32 && strings.IndexFunc(w, func(r rune) bool { return r > 0x7f || !isHexByte(byte(r)) }) < 0 {
			out = append(out, [2]int{s, e})
		}
	}
	return out
}

// base64Like keeps runs that look like encoded bytes rather than words,
// paths or identifiers: upper and lower case and digits, high entropy,
// few slashes.
func base64Like(run string) bool {
	var upper, lower, digit, slash int
	for i := 0; i < len(run); i++ {
		switch c := run[i]; {
		case c >= 'A' && c <= 'Z':
			upper++
		case c >= 'a' && c <= 'z':
			lower++
		case c >= '0' && c <= '9':
			digit++
		case c == '/' || c == '_' || c == '-':
			slash++
		}
	}
	if upper < 3 || lower < 3 || digit == 0 || slash*12 > len(run)+12 {
		return false
	}
	return shannonEntropy(strings.TrimRight(run, "=")) >= 4.2
}

func decodeBase64(s string) (string, bool) {
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if d, err := enc.DecodeString(s); err == nil {
			return string(d), true
		}
	}
	// a run cut from a longer one: decode the largest multiple of four
	if n := len(strings.TrimRight(s, "=")) &^ 3; n >= 16 {
		if d, err := base64.StdEncoding.DecodeString(s[:n]); err == nil {
			return string(d), true
		}
	}
	return "", false
}

// isText reports decoded bytes that are mostly printable UTF-8.
func isText(s string) bool {
	if len(s) < 8 || !utf8.ValidString(s) {
		return false
	}
	bad := 0
	for _, r := range s {
		if r < 0x20 && r != '\n' && r != '\t' && r != '\r' || r == 0x7f || r == utf8.RuneError {
			bad++
		}
	}
	return bad*20 <= len(s)
}

func unescapeRun(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		switch {
		case s[i] == '%' && i+3 <= len(s):
			if v, err := strconv.ParseUint(s[i+1:i+3], 16, 8); err == nil {
				b.WriteByte(byte(v))
			}
			i += 3
		case s[i] == '&':
			j := strings.IndexByte(s[i:], ';')
			if j < 0 {
				return b.String()
			}
			num := s[i+2 : i+j]
			base := 10
			if strings.HasPrefix(num, "x") {
				num, base = num[1:], 16
			}
			if v, err := strconv.ParseUint(num, base, 32); err == nil && utf8.ValidRune(rune(v)) {
				b.WriteRune(rune(v))
			}
			i += j + 1
		case s[i] == '\\' && i+1 < len(s) && s[i+1] == 'u' && i+6 <= len(s):
			if v, err := strconv.ParseUint(s[i+2:i+6], 16, 32); err == nil {
				b.WriteRune(rune(v))
			}
			i += 6
		case s[i] == '\\' && i+1 < len(s) && s[i+1] == 'x' && i+4 <= len(s):
			if v, err := strconv.ParseUint(s[i+2:i+4], 16, 8); err == nil {
				b.WriteByte(byte(v))
			}
			i += 4
		default:
			i++
		}
	}
	return b.String()
}

// mixedScripts reports letters from more than one script among the ones
// spoofs use (Latin, Cyrillic, Greek, Armenian, Cherokee).
func mixedScripts(s string) bool {
	seen := 0
	for _, r := range s {
		for i, t := range spoofScripts {
			if unicode.Is(t, r) {
				seen |= 1 << i
			}
		}
	}
	return seen&(seen-1) != 0
}

var spoofScripts = []*unicode.RangeTable{unicode.Latin, unicode.Cyrillic, unicode.Greek, unicode.Armenian, unicode.Cherokee}
