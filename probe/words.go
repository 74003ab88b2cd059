package probe

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/memreview/memreview/probe/docs"
)

// filesOp is one parsed files-probe request.
type filesOp struct {
	Verb       string // ls, read, grep, stat, csv
	Path       string // relative to the environment folder; "." when omitted
	Pattern    string // grep only
	IgnoreCase bool   // grep -i
	Offset     int64  // read --offset
	Limit      int64  // read --limit; 0 means the byte cap
	Page       int    // read --page N (PDF)
	Slide      int    // read --slide N (PPTX)
	Sheet      string // read --sheet NAME, or sheet's SHEET (XLSX)
	Range      string // sheet's RANGE
}

const filesUsage = "use one of: ls [PATH], read PATH [--offset N] [--limit N] [--page N | --slide N | --sheet NAME], grep [-i] PATTERN [PATH], stat PATH, csv PATH, sheet PATH [SHEET] [RANGE]"

// parseFilesInput parses the files-probe grammar. Words are split like a
// shell: 'single' and "double" quotes group, a backslash escapes the next
// character outside single quotes.
func parseFilesInput(input string) (filesOp, error) {
	w, err := splitWords(input)
	if err != nil {
		return filesOp{}, err
	}
	if len(w) == 0 {
		return filesOp{}, errors.New("empty request: " + filesUsage)
	}
	op := filesOp{Verb: w[0], Path: "."}
	args := w[1:]
	switch op.Verb {
	case "ls":
		if len(args) > 1 {
			return op, errors.New("ls takes at most one path")
		}
		if len(args) == 1 {
			op.Path = args[0]
		}
	case "stat", "csv":
		if len(args) != 1 {
			return op, fmt.Errorf("%s takes exactly one path", op.Verb)
		}
		op.Path = args[0]
	case "sheet":
		if len(args) < 1 || len(args) > 3 {
			return op, errors.New("sheet takes a path, then an optional sheet name and an optional range (A1:C10, B7, A:C, 3:10)")
		}
		op.Path = args[0]
		switch rest := args[1:]; len(rest) {
		case 1: // a sheet of that name, else (when it reads as one) a range
			op.Sheet = rest[0]
		case 2:
			op.Sheet, op.Range = rest[0], rest[1]
		}
	case "read":
		var paths []string
		units := 0
		for i := 0; i < len(args); i++ {
			switch a := args[i]; a {
			case "--page", "--slide":
				if i+1 >= len(args) {
					return op, fmt.Errorf("read: %s needs a number", a)
				}
				n, err := strconv.Atoi(args[i+1])
				if err != nil || n < 1 {
					return op, fmt.Errorf("read: %s needs a number from 1, not %q", a, args[i+1])
				}
				if a == "--page" {
					op.Page = n
				} else {
					op.Slide = n
				}
				units++
				i++
			case "--sheet":
				if i+1 >= len(args) || args[i+1] == "" {
					return op, errors.New("read: --sheet needs a sheet name")
				}
				op.Sheet = args[i+1]
				units++
				i++
			case "--offset", "--limit":
				if i+1 >= len(args) {
					return op, fmt.Errorf("read: %s needs a number", a)
				}
				n, err := strconv.ParseInt(args[i+1], 10, 64)
				if err != nil || n < 0 {
					return op, fmt.Errorf("read: %s needs a non-negative number, not %q", a, args[i+1])
				}
				if a == "--offset" {
					op.Offset = n
				} else {
					op.Limit = n
				}
				i++
			default:
				paths = append(paths, a)
			}
		}
		if len(paths) != 1 {
			return op, errors.New("read takes exactly one path")
		}
		if units > 1 {
			return op, errors.New("read takes one of --page, --slide and --sheet")
		}
		op.Path = paths[0]
	case "grep":
		if len(args) > 0 && args[0] == "-i" {
			op.IgnoreCase = true
			args = args[1:]
		}
		if len(args) < 1 || len(args) > 2 {
			return op, errors.New("grep takes a pattern and at most one path")
		}
		op.Pattern = args[0]
		if len(args) == 2 {
			op.Path = args[1]
		}
	default:
		return op, fmt.Errorf("unknown files request %q: %s", op.Verb, filesUsage)
	}
	return op, nil
}

// splitWords splits s into shell-like words.
func splitWords(s string) ([]string, error) {
	var out []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			if inWord {
				out = append(out, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, errors.New("unterminated single quote")
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && (s[i+1] == '"' || s[i+1] == '\\') {
					i++
				}
				cur.WriteByte(s[i])
			}
			if i >= len(s) {
				return nil, errors.New("unterminated double quote")
			}
			inWord = true
		case c == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
			inWord = true
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		out = append(out, cur.String())
	}
	return out, nil
}

// looksLikeRange reports whether a lone sheet argument could be a range
// (B2:D9, B7, A:C, 3:10) when the workbook has no sheet of that name.
func looksLikeRange(s string) bool {
	if _, err := docs.ParseRange(s); err != nil {
		return false
	}
	return strings.ContainsAny(s, "0123456789:")
}
