package pg_test

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/memreview/memreview/probe"
	"github.com/memreview/memreview/probe/pg"
)

// TestRunnerPostgres: postgres probes through probe.Runner: the result
// model (table, fingerprint, timing), refusals and the time limit as
// sentences, the role refusal at Check and Health, and a schema change
// seen by Compare as a changed environment.
func TestRunnerPostgres(t *testing.T) {
	t.Parallel()
	roURL, adminURL, admin := pg.Fixture(t)
	r := probe.NewRunner()
	defer r.Close()
	ctx := context.Background()
	env := probe.Env{Name: "wh", Kind: probe.KindPostgres, URL: roURL}
	res := r.Run(ctx, env, "SELECT name, price FROM items WHERE id <= 2 ORDER BY id", probe.Limits{})
	if !res.OK() || !reflect.DeepEqual(res.Columns, []string{"name", "price"}) ||
		!reflect.DeepEqual(res.Rows, [][]any{{"apple", "1.50"}, {"pear", "2.25"}}) || res.Fingerprint == "" || res.DurationMS <= 0 {
		t.Fatalf("select: %+v", res)
	}
	if got := probe.FormatText(res, 0); !strings.Contains(got, "apple  1.50") {
		t.Errorf("text form: %q", got)
	}
	if res := r.Run(ctx, env, "DELETE FROM items", probe.Limits{}); !strings.HasPrefix(res.Error, "refused:") || res.Rows != nil {
		t.Errorf("delete: %+v", res)
	}
	if res := r.Run(ctx, env, "SELECT pg_sleep(5)", probe.Limits{Timeout: 300 * time.Millisecond}); !strings.HasPrefix(res.Error, "timed out after 300ms") {
		t.Errorf("sleep: %+v", res)
	}
	if h := r.Health(ctx, env, 0); !h.Reachable || !strings.Contains(h.Detail, "read-only role") {
		t.Errorf("Health: %+v", h)
	}
	d := r.Describe(ctx, env)
	if d.Kind != probe.KindPostgres || !strings.HasPrefix(d.Target, `database "`) || d.Usage != pg.Usage {
		t.Errorf("Describe: %+v", d)
	}

	again := r.Run(ctx, env, "SELECT name, price FROM items WHERE id <= 2 ORDER BY id", probe.Limits{})
	if v := probe.Compare(res, again); v != probe.Same {
		t.Errorf("re-run: %s", v)
	}
	if _, err := admin.Exec(ctx, "ALTER TABLE items ADD COLUMN stock int"); err != nil {
		t.Fatal(err)
	}
	changed := r.Run(ctx, env, "SELECT name, price FROM items WHERE id <= 2 ORDER BY id", probe.Limits{})
	if v := probe.Compare(res, changed); v != probe.EnvChanged {
		t.Errorf("after ALTER TABLE: %s (fingerprints %s %s)", v, res.Fingerprint, changed.Fingerprint)
	}

	su := probe.Env{Name: "su", Kind: probe.KindPostgres, URL: adminURL}
	if err := r.Check(ctx, su, 0); err == nil || !strings.Contains(err.Error(), "superuser") || !strings.Contains(err.Error(), "GRANT SELECT") {
		t.Errorf("Check of a superuser URL: %v", err)
	}
	if res := r.Run(ctx, su, "SELECT 1", probe.Limits{}); !strings.Contains(res.Error, "superuser") {
		t.Errorf("probe as a superuser: %+v", res)
	}
	if err := r.Check(ctx, probe.Env{Name: "pw", Kind: probe.KindPostgres, URL: "postgres://a:b@h/db"}, 0); err == nil || strings.Contains(err.Error(), ":b@") {
		t.Errorf("Check of a URL with a password: %v", err)
	}
	// The package-level Run works too, with a pool for the one probe.
	if res := probe.Run(ctx, env, "SELECT 1", probe.Limits{}); !res.OK() || !reflect.DeepEqual(res.Rows, [][]any{{int64(1)}}) {
		t.Errorf("probe.Run: %+v", res)
	}
}
