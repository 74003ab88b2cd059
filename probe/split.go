package probe

import "strings"

// splitStatement cuts input at the semicolon that ends its first SQL
// statement, skipping semicolons inside strings, quoted identifiers,
// comments and CREATE TRIGGER bodies (which end at "END;"). It only decides
// where the first statement stops; what the statement may do is decided
// by SQLite through the authorizer.
func splitStatement(input string) (first, rest string) {
	var words []string // leading keywords, for CREATE [TEMP] TRIGGER
	last := ""         // last word seen
	inTrigger := false
	for i := 0; i < len(input); {
		c := input[i]
		switch {
		case c == '-' && strings.HasPrefix(input[i:], "--"):
			j := strings.IndexByte(input[i:], '\n')
			if j < 0 {
				return input, ""
			}
			i += j + 1
		case c == '/' && strings.HasPrefix(input[i:], "/*"):
			j := strings.Index(input[i+2:], "*/")
			if j < 0 {
				return input, ""
			}
			i += j + 4
		case c == '\'' || c == '"' || c == '`' || c == '[':
			i = skipQuoted(input, i)
			last = ""
		case c == ';':
			if !inTrigger || strings.EqualFold(last, "END") {
				return input[:i], input[i+1:]
			}
			last = ""
			i++
		case isWordByte(c):
			j := i
			for j < len(input) && isWordByte(input[j]) {
				j++
			}
			last = input[i:j]
			if len(words) < 3 {
				words = append(words, strings.ToUpper(last))
				inTrigger = isCreateTrigger(words)
			}
			i = j
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f':
			i++
		default:
			last = ""
			i++
		}
	}
	return input, ""
}

func isCreateTrigger(w []string) bool {
	if len(w) < 2 || w[0] != "CREATE" {
		return false
	}
	if w[1] == "TRIGGER" {
		return true
	}
	return len(w) == 3 && (w[1] == "TEMP" || w[1] == "TEMPORARY") && w[2] == "TRIGGER"
}

func isWordByte(c byte) bool {
	return c == '_' || c == '$' || c >= 0x80 ||
		(c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
}

// skipQuoted returns the index just past the quoted token starting at i.
// A doubled closing quote is an escaped quote; an unterminated token runs
// to the end of input.
func skipQuoted(s string, i int) int {
	closer := s[i]
	if closer == '[' {
		closer = ']'
	}
	for j := i + 1; j < len(s); j++ {
		if s[j] != closer {
			continue
		}
		if closer != ']' && j+1 < len(s) && s[j+1] == closer {
			j++
			continue
		}
		return j + 1
	}
	return len(s)
}

// onlyTrivia reports whether s holds nothing but whitespace, comments and
// semicolons.
func onlyTrivia(s string) bool {
	for i := 0; i < len(s); {
		switch c := s[i]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == ';':
			i++
		case strings.HasPrefix(s[i:], "--"):
			j := strings.IndexByte(s[i:], '\n')
			if j < 0 {
				return true
			}
			i += j + 1
		case strings.HasPrefix(s[i:], "/*"):
			j := strings.Index(s[i+2:], "*/")
			if j < 0 {
				return true
			}
			i += j + 4
		default:
			return false
		}
	}
	return true
}
