package pg

import (
	"strings"
	"testing"
)

// FuzzClassify: Classify never panics on any input; what it accepts is
// one reading statement taken from the input, which it accepts again the
// same way; and a second, writing statement after it (on a line of its
// own, so no comment can swallow it) is always refused.
func FuzzClassify(f *testing.F) {
	for _, s := range []string{
		"SELECT 1", "select * from t where a = 'x;y' -- c", "WITH a AS (SELECT 1) SELECT * FROM a;",
		"EXPLAIN SELECT 1", "SHOW search_path", "TABLE t", "VALUES (1), (2)",
		"SELECT $$a;b$$, $x$ $$ $x$", `SELECT "update" FROM "t"`, "SELECT U&'\\0041'", "/* a */ SELECT /* b /* c */ */ 1",
		"DELETE FROM t", "SELECT 1; SELECT 2", "SELECT pg_sleep(10)", "SELECT * FROM t FOR UPDATE", "SELECT '",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, input string) {
		st, err := Classify(input)
		if err != nil {
			return
		}
		if !readingVerbs[st.Verb] {
			t.Fatalf("%q accepted as %q, not a reading statement", input, st.Verb)
		}
		if !strings.Contains(input, st.Text) || strings.TrimSpace(st.Text) == "" {
			t.Fatalf("%q accepted as %q, not a statement of the input", input, st.Text)
		}
		again, err := Classify(st.Text)
		if err != nil || again != st {
			t.Fatalf("%q accepted as %+v, but that classifies as %+v, %v", input, st, again, err)
		}
		if _, err := Classify(input + "\n; DELETE FROM accounts"); err == nil {
			t.Fatalf("%q accepted with a DELETE after it", input)
		}
	})
}
