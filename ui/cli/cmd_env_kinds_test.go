package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memreview/memreview/probe/docs/docstest"
	"github.com/memreview/memreview/probe/mcpenv/mcptest"
	"github.com/memreview/memreview/review/store/pg/pgtest"
)

// mrEnv is mr with more environment variables and no input.
func mrEnv(t *testing.T, env []string, args ...string) result {
	t.Helper()
	return mrWith(t, "", env, args...)
}

// pgWarehouse makes a database with items (apple, pear, fig) on the
// package's PostgreSQL server and returns its URL as the superuser and as
// a role that may only read it.
func pgWarehouse(t *testing.T) (super, readOnly string) {
	t.Helper()
	ctx := context.Background()
	srv := pgtest.Shared(t)
	db, err := srv.CreateDatabase(ctx)
	if err != nil {
		t.Fatal(err)
	}
	c, err := srv.Admin(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	if _, err := c.Exec(ctx, `CREATE TABLE items (id int PRIMARY KEY, name text NOT NULL); INSERT INTO items VALUES (1, 'apple'), (2, 'pear'), (3, 'fig')`); err != nil {
		t.Fatal(err)
	}
	ro, err := srv.ReadOnlyRole(ctx, db, "ro_"+db)
	if err != nil {
		t.Fatal(err)
	}
	return srv.DSN(db), ro
}

// mcpServer is this test binary as an MCP server (mcptest): the command
// for --mcp-command and the variables memreview must hold and pass on.
func mcpServer(t *testing.T) (command string, env []string) {
	cmd, env := mcptest.Command(mcptest.ModeTools, filepath.Join(t.TempDir(), "calls.log"))
	return strings.Join(cmd, " "), env
}

// TestEnvCommandsOfTheNewKinds: env add of a PostgreSQL database (a
// superuser refused with the role advice, a URL with a password refused
// without printing it), of a stdio MCP server and of a folder of
// documents; env tools; env list with health, reachable or not and why;
// and probes through each kind, writes refused.
func TestEnvCommandsOfTheNewKinds(t *testing.T) {
	t.Parallel()
	super, readOnly := pgWarehouse(t)
	cmd, mcpVars := mcpServer(t)
	env := append(mcpVars, "WH_PGPASSWORD=unused")
	bank := newCLIBank(t)
	run := func(args ...string) result { return mrEnv(t, env, append([]string{"--bank", bank}, args...)...) }
	cfgFile := filepath.Join(bank, "memreview.toml")

	r := run("env", "add", "wh", "--postgres", super)
	if r.code != 1 || !strings.Contains(r.stderr, "superuser") || !strings.Contains(r.stderr, "CREATE ROLE memreview_probe LOGIN") ||
		!strings.Contains(r.stderr, "GRANT SELECT ON ALL TABLES IN SCHEMA public TO memreview_probe") {
		t.Fatalf("env add of a superuser URL: exit %d\n%s", r.code, r.stderr)
	}
	r = run("env", "add", "wh", "--postgres", strings.Replace(readOnly, "@/", ":hunter2-pw@/", 1))
	if r.code != 1 || !strings.Contains(r.stderr, "holds a password in clear") || strings.Contains(r.stdout+r.stderr, "hunter2") {
		t.Fatalf("env add of a URL with a password: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := run("env", "add", "x", "--files", bank, "--password-env", "X"); r.code != 2 || !strings.Contains(r.stderr, "--password-env does not go with --files") {
		t.Fatalf("a flag of another kind: exit %d %s", r.code, r.stderr)
	}
	if b, _ := os.ReadFile(cfgFile); strings.Contains(string(b), "[[env]]") {
		t.Fatalf("a refused environment was saved:\n%s", b)
	}

	if r := must(t, run("env", "add", "wh", "--postgres", readOnly, "--password-env", "WH_PGPASSWORD")); !strings.Contains(r.stdout, `added postgres env wh → database "`) {
		t.Fatalf("env add wh: %s", r.stdout)
	}
	must(t, run("env", "add", "tk", "--mcp-command", cmd, "--pass-env", "MCPTEST_SERVER,MCPTEST_LOG", "--allow", "count_words"))
	folder := filepath.Join(t.TempDir(), "reports")
	if err := os.MkdirAll(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(folder, "q3.docx"), docstest.DOCX(t, []string{"Revenue grew 4% in Q3."}, [2][2]string{{"region", "revenue"}, {"north", "12"}}), 0o644); err != nil {
		t.Fatal(err)
	}
	gone := filepath.Join(t.TempDir(), "gone.db")
	os.WriteFile(gone, nil, 0o644)
	must(t, run("env", "add", "reports", "--files", folder))
	must(t, run("env", "add", "gone", "--sql", gone))
	os.Remove(gone)
	cfg, _ := os.ReadFile(cfgFile)
	for _, want := range []string{`password_env = "WH_PGPASSWORD"`, `pass_env = ["MCPTEST_SERVER", "MCPTEST_LOG"]`, `allow = ["count_words"]`} {
		if !strings.Contains(string(cfg), want) {
			t.Errorf("memreview.toml lacks %s:\n%s", want, cfg)
		}
	}

	tools := must(t, run("env", "tools", "tk")).stdout
	for _, want := range []string{"lookup ", "write_note ", "not callable: the server does not annotate it", "named in the environment's allow-list"} {
		if !strings.Contains(tools, want) {
			t.Errorf("env tools lacks %q:\n%s", want, tools)
		}
	}
	if f := strings.Fields(lineWith(tools, "lookup ")); len(f) < 4 || f[1] != "yes" || f[2] != "no" || f[3] != "yes" {
		t.Errorf("lookup's row: %q", lineWith(tools, "lookup "))
	}
	var js []struct {
		Name        string          `json:"name"`
		Callable    bool            `json:"callable"`
		InputSchema json.RawMessage `json:"input_schema"`
	}
	if err := json.Unmarshal([]byte(must(t, run("env", "tools", "--json", "tk")).stdout), &js); err != nil || len(js) != 13 {
		t.Fatalf("env tools --json: %d tools, %v", len(js), err)
	}
	for _, tl := range js {
		if tl.Name == "lookup" && (!tl.Callable || !strings.Contains(string(tl.InputSchema), `"minimum": 1`)) {
			t.Errorf("lookup in JSON: %+v", tl)
		}
	}
	if r := run("env", "tools", "wh"); r.code != 1 || !strings.Contains(r.stderr, "only mcp environments have tools") {
		t.Errorf("env tools of a postgres environment: exit %d %s", r.code, r.stderr)
	}

	list := must(t, run("env", "list")).stdout
	for name, want := range map[string]string{
		"wh ":      "reachable: connected as a read-only role to database",
		"tk ":      "reachable: 13 tools, 10 callable",
		"reports ": "reachable: folder",
		"gone ":    "UNREACHABLE: ",
	} {
		if !strings.Contains(lineWith(list, name), want) {
			t.Errorf("env list: %s's line lacks %q:\n%s", name, want, list)
		}
	}
	var listed []struct {
		Name   string `json:"name"`
		Kind   string `json:"kind"`
		Target string `json:"target"`
		Health struct {
			Reachable bool   `json:"reachable"`
			Detail    string `json:"detail"`
		} `json:"health"`
	}
	if err := json.Unmarshal([]byte(must(t, run("env", "list", "--json")).stdout), &listed); err != nil || len(listed) != 4 {
		t.Fatalf("env list --json: %+v %v", listed, err)
	}
	if g := listed[3]; g.Name != "gone" || g.Health.Reachable || !strings.Contains(g.Health.Detail, "no such file") || g.Target != gone {
		t.Errorf("the gone environment in JSON: %+v", g)
	}

	if p := must(t, run("probe", "wh", "SELECT name FROM items ORDER BY id")).stdout; !strings.Contains(p, "apple") || !strings.Contains(p, "fig") {
		t.Errorf("probe wh: %s", p)
	}
	if r := run("probe", "wh", "DELETE FROM items"); r.code != 1 || !strings.Contains(r.stdout+r.stderr, "refused") {
		t.Errorf("a write through probe: exit %d %s%s", r.code, r.stdout, r.stderr)
	}
	if p := must(t, run("probe", "tk", `lookup {"id": 2}`)).stdout; !strings.Contains(p, "item 2: apple") || strings.Contains(p, "\x1b") {
		t.Errorf("probe tk lookup: %q", p)
	}
	if p := must(t, run("probe", "tk", "count_words", `{"text": "a b c"}`)).stdout; !strings.Contains(p, "3") || !strings.Contains(p, "read-only by your allow-list, not by the server") {
		t.Errorf("probe tk count_words: %s", p)
	}
	if r := run("probe", "tk", `write_note {"text": "x"}`); r.code != 1 || !strings.Contains(r.stdout+r.stderr, "refused: write_note is not callable") {
		t.Errorf("probe of a tool not annotated read-only: exit %d %s%s", r.code, r.stdout, r.stderr)
	}
	if log, _ := os.ReadFile(strings.TrimPrefix(mcpVars[1], "MCPTEST_LOG=")); strings.Contains(string(log), "write_note") {
		t.Errorf("the refused tool reached the server: %s", log)
	}
	if p := must(t, run("probe", "reports", "grep", "-i", "revenue", ".")).stdout; !strings.Contains(p, "q3.docx:¶1: Revenue grew 4% in Q3.") {
		t.Errorf("grep over a DOCX: %s", p)
	}
	// On a machine that never compiled the PDF engine, a PDF probe whose
	// time runs out first says why, not that the probe ran too long.
	if err := os.WriteFile(filepath.Join(folder, "q3.pdf"), docstest.PDF([]string{"Revenue grew 4%"}), 0o644); err != nil {
		t.Fatal(err)
	}
	cold := mrEnv(t, append(env, "XDG_CACHE_HOME="+t.TempDir()), "--bank", bank, "probe", "--timeout", "300ms", "reports", "read", "q3.pdf")
	if cold.code != 1 || !strings.Contains(cold.stdout, "the PDF engine is still being prepared") || strings.Contains(cold.stdout, "timed out") {
		t.Errorf("a PDF probe before the engine is ready: exit %d\n%s%s", cold.code, cold.stdout, cold.stderr)
	}
}
