package probe

import (
	"context"
	"encoding/json"
	"math"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// TestNonFiniteFloats covers every non-finite float a probe can return:
// SQLite's 1e999 and -1e999 from a real run, and NaN in a hand-built
// Result. Each must encode as JSON (alone and embedded), decode back to the
// same verdict on a re-run, and print as text.
func TestNonFiniteFloats(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "n.db")
	writeSQL(t, db, "CREATE TABLE t(x REAL)", "INSERT INTO t VALUES (1e999), (-1e999), (1.5)")
	env := Env{Name: "n", Kind: KindSQL, Path: db}
	ctx := context.Background()
	for _, q := range []string{"SELECT 1e999", "SELECT -1e999", "SELECT x FROM t", "SELECT 1e999 AS a, 2 AS b, -1e999 AS c"} {
		r := Run(ctx, env, q, Limits{})
		if !r.OK() {
			t.Fatalf("%s: %s", q, r.Error)
		}
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatalf("%s: marshal: %v", q, err)
		}
		if !strings.Contains(string(b), `"+Inf"`) && !strings.Contains(string(b), `"-Inf"`) {
			t.Errorf("%s: JSON %s names no infinity", q, b)
		}
		var back Result
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("%s: unmarshal: %v", q, err)
		}
		if v := Compare(back, Run(ctx, env, q, Limits{})); v != Same {
			t.Errorf("%s: stored vs fresh verdict %s, want same", q, v)
		}
		if txt := FormatText(r, 0); !strings.Contains(txt, "Inf") {
			t.Errorf("%s: text %q", q, txt)
		}
	}
	// An infinity is not the same as a different value.
	inf := Run(ctx, env, "SELECT 1e999", Limits{})
	neg := Run(ctx, env, "SELECT -1e999", Limits{})
	if v := Compare(inf, neg); v != Changed {
		t.Errorf("+Inf vs -Inf: verdict %s, want changed", v)
	}

	for _, f := range []float64{math.Inf(1), math.Inf(-1), math.NaN()} {
		r := Result{Env: "n", Kind: KindSQL, Input: "q", Columns: []string{"a", "b"}, Rows: [][]any{{f, int64(1)}, {"x", f}}, DurationMS: f}
		rowsBefore := r.Rows[0][0]
		embedded := struct {
			Expect Result   `json:"expect"`
			Runs   []Result `json:"runs"`
			Ptr    *Result  `json:"ptr"`
		}{r, []Result{r}, &r}
		b, err := json.Marshal(embedded)
		if err != nil {
			t.Fatalf("%v: marshal: %v", f, err)
		}
		want := strconv.FormatFloat(f, 'g', -1, 64)
		if strings.Count(string(b), `"`+want+`"`) != 6 {
			t.Errorf("%v: JSON %s, want 6 cells %q", f, b, want)
		}
		if g := r.Rows[0][0]; !reflect.DeepEqual(g, rowsBefore) && !(math.IsNaN(f) && math.IsNaN(g.(float64))) {
			t.Errorf("marshal changed the Result it encoded: %v", g)
		}
		if _, err := json.Marshal(FiniteRows(r.Rows)); err != nil {
			t.Errorf("FiniteRows(%v): %v", f, err)
		}
	}
}
