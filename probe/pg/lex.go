package pg

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// tokKind is the kind of one lexical token of PostgreSQL's SQL.
type tokKind int

const (
	tokWord   tokKind = iota // an unquoted identifier or keyword, lower-cased
	tokQuoted                // a "quoted" or U&"quoted" identifier, decoded
	tokString                // a string constant ('…', E'…', U&'…', $tag$…$tag$, B'…', X'…'), decoded
	tokNumber                // a numeric constant
	tokParam                 // $1
	tokPunct                 // ( ) [ ] , ; . : ::
	tokOp                    // an operator: + - * / < > = ~ ! @ # % ^ & | ` ?
)

// token is one lexical token: its kind, its value (words lower-cased,
// quoted names and strings decoded) and where it starts and ends in the
// input.
type token struct {
	kind       tokKind
	val        string
	start, end int
}

// lex splits input into PostgreSQL tokens, skipping white space and
// comments (-- and nested /* */). It follows the server's lexer with
// standard_conforming_strings on, which every probe connection sets and
// checks; anything it cannot read exactly (an unterminated string, quoted
// name, dollar quote or comment, a bad escape) is an error, so that no
// text the server would run as code is taken for a string or a comment.
func lex(input string) ([]token, error) {
	var toks []token
	for i := 0; i < len(input); {
		c := input[i]
		switch {
		case isSpace(c):
			i++
		case strings.HasPrefix(input[i:], "--"):
			j := strings.IndexAny(input[i:], "\n\r")
			if j < 0 {
				i = len(input)
			} else {
				i += j + 1
			}
		case strings.HasPrefix(input[i:], "/*"):
			j, err := skipBlockComment(input, i)
			if err != nil {
				return nil, err
			}
			i = j
		case c == '\'':
			s, j, err := plainString(input, i)
			if err != nil {
				return nil, err
			}
			toks = append(toks, token{tokString, s, i, j})
			i = j
		case (c == 'e' || c == 'E') && next(input, i+1) == '\'':
			s, j, err := escapeString(input, i+1)
			if err != nil {
				return nil, err
			}
			toks = append(toks, token{tokString, s, i, j})
			i = j
		case (c == 'b' || c == 'B' || c == 'x' || c == 'X' || c == 'n' || c == 'N') && next(input, i+1) == '\'':
			s, j, err := plainString(input, i+1)
			if err != nil {
				return nil, err
			}
			toks = append(toks, token{tokString, s, i, j})
			i = j
		case (c == 'u' || c == 'U') && next(input, i+1) == '&' && (next(input, i+2) == '\'' || next(input, i+2) == '"'):
			t, j, err := unicodeToken(input, i)
			if err != nil {
				return nil, err
			}
			toks = append(toks, t)
			i = j
		case c == '"':
			s, j, err := quotedName(input, i)
			if err != nil {
				return nil, err
			}
			toks = append(toks, token{tokQuoted, s, i, j})
			i = j
		case c == '$':
			if j := i + 1; j < len(input) && isDigit(input[j]) {
				for j < len(input) && isDigit(input[j]) {
					j++
				}
				toks = append(toks, token{tokParam, input[i:j], i, j})
				i = j
				continue
			}
			tag, ok := dollarTag(input, i)
			if !ok {
				return nil, fmt.Errorf("a lone $ at byte %d is not valid SQL", i+1)
			}
			body := i + len(tag)
			end := strings.Index(input[body:], tag)
			if end < 0 {
				return nil, fmt.Errorf("the dollar-quoted string opened with %s at byte %d is not closed", tag, i+1)
			}
			j := body + end + len(tag)
			toks = append(toks, token{tokString, input[body : body+end], i, j})
			i = j
		case isIdentStart(c):
			j := i
			for j < len(input) && isIdentByte(input[j]) {
				j++
			}
			toks = append(toks, token{tokWord, lowerASCII(input[i:j]), i, j})
			i = j
		case isDigit(c) || (c == '.' && isDigit(next(input, i+1))):
			j := i
			for j < len(input) && (isIdentByte(input[j]) || input[j] == '.' ||
				((input[j] == '+' || input[j] == '-') && (input[j-1] == 'e' || input[j-1] == 'E'))) {
				j++
			}
			toks = append(toks, token{tokNumber, input[i:j], i, j})
			i = j
		case c == ':' && next(input, i+1) == ':':
			toks = append(toks, token{tokPunct, "::", i, i + 2})
			i += 2
		case strings.IndexByte("()[],;.:", c) >= 0:
			toks = append(toks, token{tokPunct, string(c), i, i + 1})
			i++
		case strings.IndexByte("+-*/<>=~!@#%^&|`?", c) >= 0:
			j := i
			for j < len(input) && strings.IndexByte("+-*/<>=~!@#%^&|`?", input[j]) >= 0 {
				if strings.HasPrefix(input[j:], "--") || strings.HasPrefix(input[j:], "/*") {
					break // a comment starts inside the operator
				}
				j++
			}
			if j == i { // "--" or "/*" at i is handled above; not reached
				j = i + 1
			}
			toks = append(toks, token{tokOp, input[i:j], i, j})
			i = j
		default:
			r, _ := utf8.DecodeRuneInString(input[i:])
			return nil, fmt.Errorf("the character %q at byte %d is not valid SQL", r, i+1)
		}
	}
	return toks, nil
}

func next(s string, i int) byte {
	if i < len(s) {
		return s[i]
	}
	return 0
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// isIdentStart: letters, underscore and any non-ASCII byte start an
// identifier, as in the server's scanner.
func isIdentStart(c byte) bool {
	return c == '_' || c >= 0x80 || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

func isIdentByte(c byte) bool { return isIdentStart(c) || isDigit(c) || c == '$' }

func lowerASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// skipBlockComment returns the index after the /* */ comment at i; the
// server nests them.
func skipBlockComment(s string, i int) (int, error) {
	depth := 0
	for j := i; j < len(s)-1; j++ {
		switch {
		case s[j] == '/' && s[j+1] == '*':
			depth++
			j++
		case s[j] == '*' && s[j+1] == '/':
			depth--
			j++
			if depth == 0 {
				return j + 1, nil
			}
		}
	}
	return 0, fmt.Errorf("the comment opened at byte %d is not closed", i+1)
}

// plainString reads the '…' constant at i (” is a quote; a backslash is
// an ordinary character under standard_conforming_strings).
func plainString(s string, i int) (string, int, error) {
	var b strings.Builder
	for j := i + 1; j < len(s); j++ {
		if s[j] != '\'' {
			b.WriteByte(s[j])
			continue
		}
		if next(s, j+1) == '\'' {
			b.WriteByte('\'')
			j++
			continue
		}
		return b.String(), j + 1, nil
	}
	return "", 0, fmt.Errorf("the string opened at byte %d is not closed", i+1)
}

// escapeString reads the E'…' constant whose quote is at i: backslash
// escapes, and ” or \' for a quote.
func escapeString(s string, i int) (string, int, error) {
	var b strings.Builder
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			if j+1 >= len(s) {
				break
			}
			j++
			switch s[j] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case 'b':
				b.WriteByte('\b')
			case 'f':
				b.WriteByte('\f')
			default:
				b.WriteByte(s[j]) // \\, \', and (octal, hex, unicode) escapes kept as their letters
			}
		case '\'':
			if next(s, j+1) == '\'' {
				b.WriteByte('\'')
				j++
				continue
			}
			return b.String(), j + 1, nil
		default:
			b.WriteByte(s[j])
		}
	}
	return "", 0, fmt.Errorf("the string opened at byte %d is not closed", i)
}

// quotedName reads the "…" identifier at i ("" is a quote).
func quotedName(s string, i int) (string, int, error) {
	var b strings.Builder
	for j := i + 1; j < len(s); j++ {
		if s[j] != '"' {
			b.WriteByte(s[j])
			continue
		}
		if next(s, j+1) == '"' {
			b.WriteByte('"')
			j++
			continue
		}
		if b.Len() == 0 {
			return "", 0, fmt.Errorf("the quoted name at byte %d is empty", i+1)
		}
		return b.String(), j + 1, nil
	}
	return "", 0, fmt.Errorf("the quoted name opened at byte %d is not closed", i+1)
}

// unicodeToken reads U&'…' or U&"…" at i, with an optional UESCAPE 'c'
// after it, and decodes its \XXXX and \+XXXXXX escapes, so that a name
// spelled in escapes is seen as the name it is.
func unicodeToken(s string, i int) (token, int, error) {
	q := i + 2
	var raw string
	var j int
	var err error
	kind := tokString
	if s[q] == '"' {
		kind = tokQuoted
		raw, j, err = quotedName(s, q)
	} else {
		raw, j, err = plainString(s, q)
	}
	if err != nil {
		return token{}, 0, err
	}
	esc := byte('\\')
	// UESCAPE 'c', possibly after white space and comments.
	k := skipTrivia(s, j)
	if k+7 <= len(s) && strings.EqualFold(s[k:k+7], "uescape") && (k+7 == len(s) || !isIdentByte(s[k+7])) {
		m := skipTrivia(s, k+7)
		if m+3 > len(s) || s[m] != '\'' || s[m+2] != '\'' || s[m+1] == '\'' {
			return token{}, 0, fmt.Errorf("UESCAPE at byte %d must be followed by one character in quotes", k+1)
		}
		esc = s[m+1]
		j = m + 3
	}
	val, err := decodeUnicodeEscapes(raw, esc)
	if err != nil {
		return token{}, 0, fmt.Errorf("the U& constant at byte %d: %v", i+1, err)
	}
	return token{kind, val, i, j}, j, nil
}

func skipTrivia(s string, i int) int {
	for i < len(s) {
		switch {
		case isSpace(s[i]):
			i++
		case strings.HasPrefix(s[i:], "--"):
			j := strings.IndexAny(s[i:], "\n\r")
			if j < 0 {
				return len(s)
			}
			i += j + 1
		case strings.HasPrefix(s[i:], "/*"):
			j, err := skipBlockComment(s, i)
			if err != nil {
				return len(s)
			}
			i = j
		default:
			return i
		}
	}
	return i
}

func decodeUnicodeEscapes(raw string, esc byte) (string, error) {
	var b strings.Builder
	for i := 0; i < len(raw); i++ {
		if raw[i] != esc {
			b.WriteByte(raw[i])
			continue
		}
		switch {
		case i+1 < len(raw) && raw[i+1] == esc:
			b.WriteByte(esc)
			i++
		case i+7 < len(raw) && raw[i+1] == '+':
			n, err := strconv.ParseUint(raw[i+2:i+8], 16, 32)
			if err != nil {
				return "", errors.New("bad \\+XXXXXX escape")
			}
			b.WriteRune(rune(n))
			i += 7
		case i+4 < len(raw):
			n, err := strconv.ParseUint(raw[i+1:i+5], 16, 32)
			if err != nil {
				return "", errors.New("bad \\XXXX escape")
			}
			b.WriteRune(rune(n))
			i += 4
		default:
			return "", errors.New("an escape is cut short")
		}
	}
	return b.String(), nil
}

// dollarTag returns the $tag$ opening a dollar-quoted string at i.
func dollarTag(s string, i int) (string, bool) {
	j := i + 1
	for j < len(s) && s[j] != '$' {
		c := s[j]
		if !(isIdentStart(c) || (j > i+1 && isDigit(c))) {
			return "", false
		}
		j++
	}
	if j >= len(s) {
		return "", false
	}
	return s[i : j+1], true
}
