package pg

import (
	"errors"
	"fmt"
	"strings"

	"github.com/memreview/memreview/probe"
)

// Statement is a probe statement that Classify allows to be sent.
type Statement struct {
	Text string // the statement as sent: from its first token to its last, no trailing semicolon
	Verb string // select, with, values, table, explain or show
}

// Cursor reports whether the statement runs through DECLARE … CURSOR,
// which lets the server stop at the row cap (SELECT, WITH, VALUES, TABLE);
// EXPLAIN and SHOW run as they are.
func (s Statement) Cursor() bool { return s.Verb != "explain" && s.Verb != "show" }

// Usage says which statements a postgres probe sends.
const Usage = probe.PostgresUsage

// readingVerbs are the statements a probe may start with.
var readingVerbs = map[string]bool{"select": true, "with": true, "values": true, "table": true, "explain": true, "show": true}

// refusedWords may not appear anywhere in a probe as a bare word (a
// column of that name can be written quoted: "update").
var refusedWords = map[string]string{
	"insert":   "INSERT writes",
	"update":   "UPDATE writes (and FOR UPDATE locks rows)",
	"delete":   "DELETE writes",
	"merge":    "MERGE writes",
	"truncate": "TRUNCATE writes",
	"into":     "SELECT … INTO creates a table",
	"analyze":  "EXPLAIN ANALYZE runs the statement",
	"analyse":  "EXPLAIN ANALYSE runs the statement",
}

// lockingWords after FOR make a locking clause (FOR SHARE, FOR KEY SHARE,
// FOR NO KEY UPDATE).
var lockingWords = map[string]bool{"share": true, "key": true, "no": true, "update": true}

// Classify decides, before anything reaches the server, whether input is
// one reading statement a probe may send. Everything else is refused with
// a sentence that says what and why: another kind of statement, more than
// one statement, a write inside WITH, SELECT … INTO, a locking clause,
// EXPLAIN ANALYZE, or a function with effects a read-only transaction
// does not stop (see deniedFunctions), however its name is written:
// quoted, schema-qualified, in any case, split by comments, or spelled in
// U& escapes, and in string constants too.
func Classify(input string) (Statement, error) {
	toks, err := lex(input)
	if err != nil {
		return Statement{}, refusedf("the statement cannot be read exactly, so it is not sent: %v", err)
	}
	end := len(toks)
	for i, t := range toks {
		if t.kind == tokPunct && t.val == ";" {
			end = i
			break
		}
	}
	for _, t := range toks[end:] {
		if !(t.kind == tokPunct && t.val == ";") {
			return Statement{}, refusedf("a postgres probe is one statement; found more after the first one: %q", clip(input[t.start:], 60))
		}
	}
	toks = toks[:end]
	if len(toks) == 0 {
		return Statement{}, errors.New("empty query: give " + Usage + ", such as SELECT table_name FROM information_schema.tables")
	}
	first := 0
	for first < len(toks) && toks[first].kind == tokPunct && toks[first].val == "(" {
		first++
	}
	if first == len(toks) || toks[first].kind != tokWord || !readingVerbs[toks[first].val] {
		what := "this statement"
		if first < len(toks) {
			what = strings.ToUpper(clip(input[toks[first].start:toks[first].end], 30))
		}
		return Statement{}, refusedf("a postgres probe sends only %s; %s is not one of them", Usage, what)
	}
	verb := toks[first].val
	if first > 0 && (verb == "explain" || verb == "show") {
		return Statement{}, refusedf("%s cannot be put in parentheses", strings.ToUpper(verb))
	}
	for i, t := range toks {
		if err := checkToken(toks, i, t); err != nil {
			return Statement{}, err
		}
	}
	switch verb {
	case "explain":
		if err := checkExplain(toks[1:]); err != nil {
			return Statement{}, err
		}
	case "show":
		for _, t := range toks[1:] {
			if t.kind != tokWord && t.kind != tokQuoted && !(t.kind == tokPunct && t.val == ".") {
				return Statement{}, refusedf("SHOW takes a setting name (or ALL), not %q", t.val)
			}
		}
	}
	return Statement{Text: input[toks[0].start:toks[len(toks)-1].end], Verb: verb}, nil
}

// checkToken refuses token t (at i in toks) when it is a refused word, a
// locking clause or a denied function's name.
func checkToken(toks []token, i int, t token) error {
	switch t.kind {
	case tokWord:
		if why, ok := refusedWords[t.val]; ok {
			return refusedf("the probe is read-only and %s; %s may not appear in a probe (write a column of that name quoted, as \"%s\")", why, strings.ToUpper(t.val), t.val)
		}
		if t.val == "for" && i+1 < len(toks) && toks[i+1].kind == tokWord && lockingWords[toks[i+1].val] {
			return refusedf("a locking clause (FOR %s …) takes row locks other sessions wait on; probes do not lock", strings.ToUpper(toks[i+1].val))
		}
		fallthrough
	case tokQuoted:
		if why := deniedFunction(t.val); why != "" {
			return refusedf("%s %s, which a read-only transaction does not prevent; probes may not call it", t.val, why)
		}
	case tokString:
		for _, w := range stringWords(t.val) {
			if why := deniedFunction(w); why != "" {
				return refusedf("a string in the probe names %s, which %s; it is refused in strings too, since some functions run a string as SQL", w, why)
			}
		}
	}
	return nil
}

// checkExplain checks what follows EXPLAIN: options in parentheses or the
// old keywords (ANALYZE is refused by checkToken), then a statement that
// is itself reading.
func checkExplain(toks []token) error {
	i := 0
	if i < len(toks) && toks[i].kind == tokPunct && toks[i].val == "(" {
		depth := 0
		for ; i < len(toks); i++ {
			if toks[i].kind == tokPunct && toks[i].val == "(" {
				depth++
			} else if toks[i].kind == tokPunct && toks[i].val == ")" {
				depth--
				if depth == 0 {
					i++
					break
				}
			}
		}
	}
	for i < len(toks) && toks[i].kind == tokWord && toks[i].val == "verbose" {
		i++
	}
	j := i
	for j < len(toks) && toks[j].kind == tokPunct && toks[j].val == "(" {
		j++
	}
	if j >= len(toks) || toks[j].kind != tokWord || !readingVerbs[toks[j].val] || toks[j].val == "explain" || toks[j].val == "show" {
		return refusedf("EXPLAIN in a probe explains a SELECT, WITH … SELECT, VALUES or TABLE statement only")
	}
	return nil
}

func refusedf(format string, args ...any) error {
	return fmt.Errorf("refused: "+format, args...)
}

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
