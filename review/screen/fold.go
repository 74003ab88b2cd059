package screen

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// A folded view is the text the instruction and exfiltration rules read:
// lower case, with the usual disguises undone, so that one rule covers
// "IGNORE", "ｉｇｎｏｒｅ", "𝐢𝐠𝐧𝐨𝐫𝐞", "іgnоrе" (Cyrillic), "ig\u200bnore",
// "i g n o r e" and "ign0re". off maps each byte of s back to the byte of
// the original text it came from, so findings point at what the operator
// sees.
type folded struct {
	s   string
	off []int32 // len(s)+1 entries; off[len(s)] is the original's length
}

// span maps a half-open span of the folded text to the original.
func (f *folded) span(i, j int) (int, int) {
	if j > i {
		// The last folded byte's rune ends where the next original rune
		// begins: take the original offset of the byte after it.
		return int(f.off[i]), f.endOf(j)
	}
	return int(f.off[i]), int(f.off[i])
}

// endOf is the original offset just past the rune that folded byte j-1
// came from.
func (f *folded) endOf(j int) int {
	o := f.off[j-1]
	for k := j; k < len(f.off); k++ {
		if f.off[k] != o {
			return int(f.off[k])
		}
	}
	return int(f.off[len(f.off)-1])
}

// fold builds the folded view of text.
func fold(text string) *folded {
	var b strings.Builder
	b.Grow(len(text))
	off := make([]int32, 0, len(text)+1)
	put := func(r rune, at int) {
		n, _ := b.WriteRune(r)
		for range n {
			off = append(off, int32(at))
		}
	}
	prevLetter, latinWord := false, false
	leetEnd, leetOn := 0, false
	prevASCII := false
	for i := 0; i < len(text); {
		r, n := utf8.DecodeRuneInString(text[i:])
		if invisible(r) || unicode.Is(unicode.Mn, r) && prevASCII {
			// combining marks are dropped only over Latin letters
			// (Zalgo text); in Devanagari, Thai or Hebrew they are part
			// of the word
			i += n
			continue
		}
		prevASCII = r < 0x80 || prevASCII && unicode.Is(unicode.Mn, r)
		if !prevLetter && isLetter(r) {
			latinWord = wordHasLatin(text[i:])
		}
		m := foldRune(r, latinWord)
		if m == 0 && i >= leetEnd {
			leetEnd = leetTokenEnd(text, i)
			leetOn = leetEnd > i
		}
		if m == 0 && leetOn && i < leetEnd {
			if l, ok := leet[r]; ok {
				m = l
			}
		}
		if m == 0 {
			m = unicode.ToLower(r)
			if unicode.IsSpace(m) && m != '\n' {
				m = ' '
			}
		}
		prevLetter = isLetter(r) || m != r && unicode.IsLetter(m)
		put(m, i)
		i += n
	}
	off = append(off, int32(len(text)))
	return joinSpaced(&folded{s: b.String(), off: off})
}

// isLetter reports letters and the look-alikes fold maps to letters.
func isLetter(r rune) bool { return unicode.IsLetter(r) || foldRune(r, true) != 0 && r > 0x7f }

// wordHasLatin reports whether the word at the start of s (up to the
// first rune that is neither a letter nor invisible) holds an ASCII
// letter: only then are Cyrillic and Greek look-alikes in it read as
// Latin (a Russian word stays Russian).
func wordHasLatin(s string) bool {
	for _, r := range s {
		switch {
		case r < 0x80 && (r|0x20) >= 'a' && (r|0x20) <= 'z':
			return true
		case invisible(r) || isLetter(r):
			continue
		default:
			return false
		}
	}
	return false
}

// invisible reports runes that fold drops: zero-width characters, soft
// hyphens, Unicode tags, bidi controls, variation selectors and carriage
// returns.
func invisible(r rune) bool {
	switch {
	case r == '\r', r == 0x00ad, r == 0x034f, r == 0x180e, r == 0xfeff:
		return true
	case r >= 0x200b && r <= 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x2060 && r <= 0x2069:
		return true
	case r >= 0xfe00 && r <= 0xfe0f, r >= 0xe0000 && r <= 0xe01ef:
		return true
	}
	return r == 0x061c
}

// foldRune maps a look-alike of an ASCII letter or digit to it (lower
// case), or returns 0. Cyrillic and Greek look-alikes are mapped only
// when latin says the word they are in is a Latin one.
func foldRune(r rune, latin bool) rune {
	switch {
	case r < 0x80:
		if r >= 'A' && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return 0
	case r >= 0xff01 && r <= 0xff5e: // full-width ASCII
		return unicode.ToLower(r - 0xfee0)
	case r >= 0x1d400 && r <= 0x1d6a3: // mathematical alphanumeric letters
		k := (r - 0x1d400) % 52
		if k < 26 {
			return 'a' + k
		}
		return 'a' + k - 26
	case r >= 0x1d7ce && r <= 0x1d7ff: // mathematical digits
		return '0' + (r-0x1d7ce)%10
	case r >= 0x24b6 && r <= 0x24cf: // circled capitals
		return 'a' + r - 0x24b6
	case r >= 0x24d0 && r <= 0x24e9: // circled small letters
		return 'a' + r - 0x24d0
	}
	if l, ok := lookalike[r]; ok && latin {
		return l
	}
	return 0
}

// lookalike maps Cyrillic and Greek letters that render like Latin ones
// (the confusables most used in spoofing) to the Latin letter.
var lookalike = map[rune]rune{
	// Cyrillic
	'а': 'a', 'А': 'a', 'в': 'b', 'В': 'b', 'с': 'c', 'С': 'c', 'ԁ': 'd', 'е': 'e', 'Е': 'e',
	'ё': 'e', 'һ': 'h', 'Н': 'h', 'і': 'i', 'І': 'i', 'ј': 'j', 'Ј': 'j', 'к': 'k', 'К': 'k',
	'ӏ': 'l', 'м': 'm', 'М': 'm', 'о': 'o', 'О': 'o', 'р': 'p', 'Р': 'p', 'ԛ': 'q', 'ѕ': 's',
	'Ѕ': 's', 'т': 't', 'Т': 't', 'у': 'y', 'У': 'y', 'х': 'x', 'Х': 'x', 'ԝ': 'w', 'ѵ': 'v',
	'п': 'n',
	// Greek
	'α': 'a', 'Α': 'a', 'β': 'b', 'Β': 'b', 'ε': 'e', 'Ε': 'e', 'Η': 'h', 'ι': 'i', 'Ι': 'i',
	'κ': 'k', 'Κ': 'k', 'Μ': 'm', 'ν': 'v', 'Ν': 'n', 'ο': 'o', 'Ο': 'o', 'ρ': 'p', 'Ρ': 'p',
	'τ': 't', 'Τ': 't', 'υ': 'u', 'χ': 'x', 'Χ': 'x', 'Ζ': 'z', 'γ': 'y',
	// Latin letters outside the alphabets of living languages that pass
	// for ASCII: IPA, small capitals, Roman numerals
	'ɡ': 'g', 'ɑ': 'a', 'ɩ': 'i', 'ȷ': 'j', 'ɪ': 'i', 'ʟ': 'l', 'ʜ': 'h', 'ɢ': 'g', 'ʀ': 'r', 'ʏ': 'y', 'ɴ': 'n',
	'ᴀ': 'a', 'ᴄ': 'c', 'ᴅ': 'd', 'ᴇ': 'e', 'ᴊ': 'j', 'ᴋ': 'k', 'ᴍ': 'm', 'ᴏ': 'o', 'ᴘ': 'p', 'ᴛ': 't',
	'ᴜ': 'u', 'ᴠ': 'v', 'ᴡ': 'w', 'ᴢ': 'z', 'ꜱ': 's', 'ⅰ': 'i', 'ⅴ': 'v', 'ⅹ': 'x', 'ⅼ': 'l', 'ⅽ': 'c', 'ⅾ': 'd', 'ⅿ': 'm',
}

// leetTokenEnd returns the end of the ASCII token (letters, digits, $)
// at i when its digits and symbols stand for letters ("1gn0re",
// "instruct10ns", "pa$$word": at least two letters and one look-alike
// digit), or i.
func leetTokenEnd(text string, i int) int {
	if i > 0 && isLeetTokenByte(text[i-1]) {
		return i
	}
	e, letters, alike := i, 0, 0
	for e < len(text) && isLeetTokenByte(text[e]) {
		c := text[e] | 0x20
		if c >= 'a' && c <= 'z' {
			letters++
		} else if _, ok := leet[rune(text[e])]; ok {
			alike++
		}
		e++
	}
	if letters < 2 || alike == 0 {
		return i
	}
	return e
}

func isLeetTokenByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '$'
}

// leet maps digits and symbols used for letters inside words.
// ('@' is left alone: it is in every e-mail address.)
var leet = map[rune]rune{'0': 'o', '1': 'i', '3': 'e', '4': 'a', '5': 's', '7': 't', '$': 's'}

// joinSpaced undoes letter spacing: a run of at least four single letters
// each followed by one separator ("i g n o r e", "i.g.n.o.r.e",
// "i-g-n-o-r-e") loses its separators; a wider gap between two such runs
// becomes one space.
func joinSpaced(f *folded) *folded {
	s := f.s
	if !hasSpacedRun(s) {
		return f
	}
	var b strings.Builder
	off := make([]int32, 0, len(f.off))
	for i := 0; i < len(s); {
		if end := spacedRunEnd(s, i); end > i {
			for k := i; k < end; k++ {
				if isSeparator(s[k]) {
					// a gap of two or more separators between runs is a word break
					if k+1 < end && isSeparator(s[k+1]) {
						b.WriteByte(' ')
						off = append(off, f.off[k])
						for k+1 < end && isSeparator(s[k+1]) {
							k++
						}
					}
					continue
				}
				b.WriteByte(s[k])
				off = append(off, f.off[k])
			}
			i = end
			continue
		}
		b.WriteByte(s[i])
		off = append(off, f.off[i])
		i++
	}
	off = append(off, f.off[len(s)])
	return &folded{s: b.String(), off: off}
}

func isSeparator(c byte) bool {
	return c == ' ' || c == '.' || c == '-' || c == '_' || c == '*' || c == '|' || c == '/' || c == '+'
}

func isASCIILetter(c byte) bool { return c >= 'a' && c <= 'z' }

// hasSpacedRun is a quick test for "x y z w" patterns.
func hasSpacedRun(s string) bool {
	for i := 0; i+7 < len(s); i++ {
		if isASCIILetter(s[i]) && isSeparator(s[i+1]) && isASCIILetter(s[i+2]) && isSeparator(s[i+3]) &&
			isASCIILetter(s[i+4]) && isSeparator(s[i+5]) && isASCIILetter(s[i+6]) && (i == 0 || !isASCIILetter(s[i-1])) {
			return true
		}
	}
	return false
}

// spacedRunEnd returns the end of a spaced-letter run starting at i (a
// letter not preceded by a letter), or i when none starts there. Runs of
// words joined by wider gaps ("i g n o r e  a l l") are one run.
func spacedRunEnd(s string, i int) int {
	if i > 0 && isASCIILetter(s[i-1]) {
		return i
	}
	end, letters := i, 0
	k := i
	for k < len(s) && isASCIILetter(s[k]) && (k+1 >= len(s) || !isASCIILetter(s[k+1])) {
		letters++
		end = k + 1
		j := k + 1
		gap := 0
		for j < len(s) && isSeparator(s[j]) && gap < 3 {
			j++
			gap++
		}
		if gap == 0 || j >= len(s) || !isASCIILetter(s[j]) {
			break
		}
		k = j
	}
	if letters < 4 {
		return i
	}
	return end
}
