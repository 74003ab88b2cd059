package app_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/memreview/memreview/curator"
	"github.com/memreview/memreview/probe"
	"github.com/memreview/memreview/probe/docs/docstest"
	"github.com/memreview/memreview/probe/mcpenv/mcptest"
	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/app"
	"github.com/memreview/memreview/review/store"
	"github.com/memreview/memreview/review/store/pg/pgtest"
)

// The service on the kinds of issue 25: a PostgreSQL database, documents
// in a folder, another MCP server. Every probe goes through the service's
// probe runner.

// warehouse is a database on the package's PostgreSQL server with a table
// items (apple, pear, fig) and a role that may only read it.
type warehouse struct {
	srv      *pgtest.Server
	db       string
	readOnly string // the database's URL as that role
}

func newWarehouse(t *testing.T) warehouse {
	t.Helper()
	ctx := context.Background()
	srv := pgtest.Shared(t)
	db, err := srv.CreateDatabase(ctx)
	if err != nil {
		t.Fatal(err)
	}
	w := warehouse{srv: srv, db: db}
	w.exec(t, `CREATE TABLE items (id int PRIMARY KEY, name text NOT NULL); INSERT INTO items VALUES (1, 'apple'), (2, 'pear'), (3, 'fig')`)
	if w.readOnly, err = srv.ReadOnlyRole(ctx, db, "ro_"+db); err != nil {
		t.Fatal(err)
	}
	return w
}

// exec runs sql as the superuser.
func (w warehouse) exec(t *testing.T, sql string) {
	t.Helper()
	ctx := context.Background()
	c, err := w.srv.Admin(ctx, w.db)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	if _, err := c.Exec(ctx, sql); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// mcpServerEnv declares this test binary as a stdio MCP server (mcptest)
// under name; it sets the variables the server reads, so the test may not
// run in parallel.
func mcpServerEnv(t *testing.T, name string) probe.Env {
	t.Helper()
	cmd, env := mcptest.Command(mcptest.ModeTools, filepath.Join(t.TempDir(), "calls.log"))
	var pass []string
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
		if k != "PATH" {
			pass = append(pass, k)
		}
	}
	return probe.Env{Name: name, Kind: probe.KindMCP, Command: cmd, PassEnv: pass}
}

func emptyService(t *testing.T) (*app.Service, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "bank")
	svc, err := app.Create(context.Background(), dir, app.Options{Operator: "ana"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	return svc, dir
}

func readConfig(t *testing.T, dir string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, store.ConfigFile))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return string(b)
}

// TestAddEnvOfTheNewKinds: a superuser URL and a URL holding a password
// are refused before anything is saved (the password never in a message
// nor the file); a read-only role, a stdio MCP server and an HTTP one
// with a token file are added, listed healthy, and probed through the
// service.
func TestAddEnvOfTheNewKinds(t *testing.T) {
	ctx := context.Background()
	w := newWarehouse(t)
	svc, dir := emptyService(t)

	_, err := svc.AddEnv(ctx, probe.Env{Name: "wh", Kind: probe.KindPostgres, URL: w.srv.DSN(w.db)})
	if err == nil || !strings.Contains(err.Error(), "superuser") || !strings.Contains(err.Error(), "CREATE ROLE memreview_probe LOGIN") {
		t.Fatalf("a superuser URL: %v; want a refusal with the CREATE ROLE advice", err)
	}
	withPassword := strings.Replace(w.readOnly, "@/", ":s3cret-pw@/", 1)
	if _, err := svc.AddEnv(ctx, probe.Env{Name: "wh", Kind: probe.KindPostgres, URL: withPassword}); err == nil ||
		!strings.Contains(err.Error(), "password") || strings.Contains(err.Error(), "s3cret-pw") {
		t.Fatalf("a URL holding a password: %v; want a refusal that does not repeat it", err)
	}
	if cfg := readConfig(t, dir); strings.Contains(cfg, "[[env]]") {
		t.Fatalf("a refused environment reached memreview.toml:\n%s", cfg)
	}

	t.Setenv("WH_PGPASSWORD", "unused: the test server trusts its socket")
	if _, err := svc.AddEnv(ctx, probe.Env{Name: "wh", Kind: probe.KindPostgres, URL: w.readOnly, PasswordEnv: "WH_PGPASSWORD"}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.AddEnv(ctx, mcpServerEnv(t, "tools")); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.AddEnv(ctx, probe.Env{Name: "gone", Kind: probe.KindMCP, Command: []string{filepath.Join(dir, "no-such-server")}}); err == nil ||
		!strings.Contains(err.Error(), "nothing was saved") {
		t.Fatalf("a server that cannot start: %v", err)
	}

	// An HTTP server behind a bearer token, the token file given relative
	// to the working directory, inside the bank: stored relative to the
	// bank, resolved absolute.
	const token = "tok-123"
	httpSrv := httptest.NewServer(bearer(token, mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return mcptest.Server(false) }, nil)))
	defer httpSrv.Close()
	if err := os.WriteFile(filepath.Join(dir, "tools.token"), []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	if _, err := svc.AddEnv(ctx, probe.Env{Name: "web", Kind: probe.KindMCP, URL: httpSrv.URL, TokenFile: "tools.token", Allow: []string{"count_words"}}); err != nil {
		t.Fatal(err)
	}
	if web, err := svc.ResolveEnv("web"); err != nil || web.TokenFile != filepath.Join(dir, "tools.token") {
		t.Fatalf("the token file resolves to %q (%v), want it absolute in the bank", web.TokenFile, err)
	}
	cfg := readConfig(t, dir)
	for _, want := range []string{`kind = "postgres"`, `password_env = "WH_PGPASSWORD"`, `token_file = "tools.token"`, `allow = ["count_words"]`, `pass_env = ["MCPTEST_SERVER", "MCPTEST_LOG"]`} {
		if !strings.Contains(cfg, want) {
			t.Errorf("memreview.toml lacks %s:\n%s", want, cfg)
		}
	}
	if strings.Contains(cfg, "gone") || strings.Contains(cfg, "s3cret") {
		t.Errorf("memreview.toml holds what was refused:\n%s", cfg)
	}

	envs, problems, err := svc.EnvStatuses(ctx)
	if err != nil || len(problems) > 0 || len(envs) != 3 {
		t.Fatalf("EnvStatuses: %+v %v %v", envs, problems, err)
	}
	for _, e := range envs {
		if !e.Health.Reachable {
			t.Errorf("%s is not reachable: %s", e.Name, e.Health.Detail)
		}
	}
	if d := envs[0].Health.Detail; !strings.Contains(d, "read-only role") || !strings.Contains(envs[0].Target, w.db) {
		t.Errorf("postgres health %q, target %q", d, envs[0].Target)
	}
	if d := envs[1].Health.Detail; d != "13 tools, 9 callable" {
		t.Errorf("stdio MCP health %q", d)
	}
	if d := envs[2].Health.Detail; d != "13 tools, 10 callable" { // count_words by the allow-list
		t.Errorf("HTTP MCP health %q", d)
	}

	tools, err := svc.EnvTools(ctx, "tools")
	if err != nil {
		t.Fatal(err)
	}
	callable := map[string]bool{}
	for _, tl := range tools {
		callable[tl.Name] = tl.Callable
	}
	if !callable["lookup"] || callable["write_note"] || callable["wipe"] || len(callable) != 13 {
		t.Errorf("tools: %v", callable)
	}
	if _, err := svc.EnvTools(ctx, "wh"); err == nil || !strings.Contains(err.Error(), "only mcp environments have tools") {
		t.Errorf("tools of a postgres environment: %v", err)
	}

	if res := svc.Probe(ctx, "wh", "SELECT name FROM items ORDER BY id", probe.Limits{}); !res.OK() || len(res.Rows) != 3 || res.Rows[2][0] != "fig" || res.Fingerprint == "" {
		t.Errorf("postgres probe: %+v", res)
	}
	if res := svc.Probe(ctx, "wh", "DELETE FROM items", probe.Limits{}); !strings.HasPrefix(res.Error, "refused") {
		t.Errorf("a write through the service: %+v", res)
	}
	if res := svc.Probe(ctx, "tools", `lookup {"id": 4}`, probe.Limits{}); !res.OK() || !strings.HasPrefix(res.Text, "item 4: apple") {
		t.Errorf("stdio MCP probe: %+v", res)
	}
	if res := svc.Probe(ctx, "web", `count_words {"text": "one two three"}`, probe.Limits{}); res.Text != "3" || res.Note != "read-only by your allow-list, not by the server" {
		t.Errorf("HTTP MCP probe through the allow-list: %+v", res)
	}
	if res := svc.Probe(ctx, "tools", `write_note {"text": "x"}`, probe.Limits{}); !strings.HasPrefix(res.Error, "refused: write_note is not callable") {
		t.Errorf("a tool the server does not say is read-only: %+v", res)
	}

	// One server process served the add, the health check, the tool list
	// and every probe; closing the service stops it.
	if n := mcpChildren(t); n != 1 {
		t.Errorf("%d MCP server processes after the probes, want the one session's", n)
	}
	svc.Close()
	deadline := time.Now().Add(5 * time.Second)
	for mcpChildren(t) != 0 {
		if time.Now().After(deadline) {
			t.Fatal("the stdio MCP server still runs 5 s after the service closed")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// mcpChildren counts this process's children that are mcptest servers
// (Linux: read from /proc).
func mcpChildren(t *testing.T) int {
	t.Helper()
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	if len(stats) == 0 {
		// Every machine this project's tests run on is Linux; elsewhere
		// the count cannot be taken and the test says so as a failure.
		t.Fatalf("no /proc to count this process's children in (GOOS %s): run this test on Linux", runtime.GOOS)
	}
	n := 0
	for _, st := range stats {
		b, err := os.ReadFile(st)
		if err != nil {
			continue
		}
		// pid (comm) state ppid …; comm may hold spaces, so read past ")".
		f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
		if len(f) < 2 || f[0] == "Z" || f[1] != strconv.Itoa(os.Getpid()) {
			continue
		}
		env, _ := os.ReadFile(filepath.Join(filepath.Dir(st), "environ"))
		if strings.Contains(string(env), "MCPTEST_SERVER=") {
			n++
		}
	}
	return n
}

// bearer lets through only requests carrying token.
func bearer(token string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+token {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// checkedRecord is a record whose check is input on env, expecting what
// the service's probe answers now, as JSON Lines for an import.
func checkedRecord(t *testing.T, svc *app.Service, id, env, input string) string {
	t.Helper()
	res := svc.Probe(context.Background(), env, input, probe.Limits{})
	if !res.OK() {
		t.Fatalf("recording the check of %s: %s", id, res.Error)
	}
	b, err := json.Marshal(review.Record{ID: id, Lemma: "a fact checked by " + input, Category: review.Fact, Confidence: 0.9,
		Scope: review.Scope{Env: env}, Status: review.Active, Version: 1, Checks: []review.Check{{Env: env, Input: input, Expect: res}}})
	if err != nil {
		t.Fatal(err)
	}
	return string(b) + "\n"
}

// verifySuspects verifies the bank and returns which records are suspect.
func verifySuspects(t *testing.T, svc *app.Service) map[string]probe.Verdict {
	t.Helper()
	results, err := svc.Verify(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]probe.Verdict{}
	for _, r := range results {
		rec, err := svc.Record(r.RecordID)
		if err != nil {
			t.Fatal(err)
		}
		if rec.Suspect {
			out[r.RecordID] = r.Verdict
		}
	}
	return out
}

// TestVerifyFlagsAPostgresSchemaChange: a column renamed under a record's
// check makes that record suspect; a record whose check still gives the
// same rows is not, though the schema's fingerprint moved.
func TestVerifyFlagsAPostgresSchemaChange(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newWarehouse(t)
	svc, _ := emptyService(t)
	if _, err := svc.AddEnv(ctx, probe.Env{Name: "wh", Kind: probe.KindPostgres, URL: w.readOnly}); err != nil {
		t.Fatal(err)
	}
	recs := checkedRecord(t, svc, "mem_names", "wh", "SELECT name FROM items ORDER BY id") +
		checkedRecord(t, svc, "mem_count", "wh", "SELECT count(*) AS n FROM items")
	if _, err := svc.Import(ctx, app.KindRecords, []app.ImportInput{{Name: "checked.jsonl", R: strings.NewReader(recs)}}, app.ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	if s := verifySuspects(t, svc); len(s) != 0 {
		t.Fatalf("suspect before any change: %v", s)
	}
	w.exec(t, `ALTER TABLE items RENAME COLUMN name TO title`)
	s := verifySuspects(t, svc)
	if len(s) != 1 || s["mem_names"] != probe.FailsNow {
		t.Fatalf("suspect after the rename: %v, want only mem_names (fails now)", s)
	}
	results, _ := svc.CheckResults("mem_count")
	if len(results) != 1 || results[0].Verdict != probe.EnvChanged {
		t.Errorf("the count's check after the rename: %+v, want env-changed", results)
	}
}

// TestVerifyFlagsAChangedDocument: a DOCX rewritten with other text under
// a record's grep check makes the record suspect; a check on a document
// left alone still holds.
func TestVerifyFlagsAChangedDocument(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	svc, dir := emptyService(t)
	folder := filepath.Join(dir, "reports")
	if err := os.MkdirAll(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name string, paragraphs ...string) {
		if err := os.WriteFile(filepath.Join(folder, name), docstest.DOCX(t, paragraphs, [2][2]string{{"region", "revenue"}, {"north", "12"}}), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("q3.docx", "Revenue grew 4% in Q3.", "Headcount stayed flat.")
	write("q2.docx", "Revenue fell in Q2.")
	if _, err := svc.AddEnv(ctx, probe.Env{Name: "reports", Kind: probe.KindFiles, Path: folder}); err != nil {
		t.Fatal(err)
	}
	recs := checkedRecord(t, svc, "mem_q3", "reports", "grep -i 'revenue grew' q3.docx") +
		checkedRecord(t, svc, "mem_q2", "reports", "read q2.docx")
	if _, err := svc.Import(ctx, app.KindRecords, []app.ImportInput{{Name: "checked.jsonl", R: strings.NewReader(recs)}}, app.ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	if s := verifySuspects(t, svc); len(s) != 0 {
		t.Fatalf("suspect before any change: %v", s)
	}
	write("q3.docx", "Revenue grew 6% in Q3 after the restatement.", "Headcount stayed flat.")
	if s := verifySuspects(t, svc); len(s) != 1 || s["mem_q3"] != probe.Changed {
		t.Fatalf("suspect after q3.docx changed: %v, want only mem_q3 (changed)", s)
	}
}

// TestCuratorProbesPostgresAndMCP: the curator, against the scripted chat
// server, is told each environment's kind and the MCP server's callable
// tools with their input schemas, probes the PostgreSQL environment and
// the MCP one through the service's runner, and cites both runs in its
// proposal; the review screen's live re-run (RunLiveAll) repeats both.
func TestCuratorProbesPostgresAndMCP(t *testing.T) {
	ctx := context.Background()
	w := newWarehouse(t)
	svc := sampleService(t, app.Options{})
	if _, err := svc.AddEnv(ctx, probe.Env{Name: "wh", Kind: probe.KindPostgres, URL: w.readOnly}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.AddEnv(ctx, mcpServerEnv(t, "tools")); err != nil {
		t.Fatal(err)
	}
	ts, err := svc.Trajectories()
	if err != nil || len(ts) == 0 || ts[0].Distilled == nil {
		t.Fatalf("sample trajectories: %d, %v (need a distilled one)", len(ts), err)
	}
	rec := `{"lemma":"In wh, item names are in items.name; tools' lookup names item 7 apple.","category":"fact",` +
		`"scope":{"env":"wh","tags":[],"task_family":""},"trigger":"","steps":[],"confidence":0.8}`
	srv, seen := scriptedLLM(t,
		[][2]string{
			{"postgres_query", `{"env":"wh","sql":"SELECT name FROM items ORDER BY id"}`},
			{"mcp_call", `{"env":"tools","tool":"lookup","arguments":{"id":7}}`},
		},
		[][2]string{{"propose_create", `{"record":` + rec + `,"rationale":"both probes agree","evidence":[{"from":1,"to":1}],"probe_runs":["run_cur_kinds_1","run_cur_kinds_2"]}`}},
		[][2]string{{"finish", `{"summary":"one create"}`}},
	)
	set := curator.Settings{BaseURL: srv.URL, Model: "test-model", MaxRetries: -1}
	run, err := svc.Curate(ctx, set, []string{ts[0].ID}, curator.Options{Probe: true, RunID: "cur_kinds"})
	if err != nil {
		t.Fatal(err)
	}

	var first struct {
		Messages []struct{ Content string }
		Tools    []struct {
			Function struct {
				Name       string
				Parameters json.RawMessage
			}
		}
	}
	reqs := seen()
	if err := json.Unmarshal([]byte(reqs[0]), &first); err != nil {
		t.Fatal(err)
	}
	brief := first.Messages[1].Content
	for _, want := range []string{"- wh (postgres), database \"" + w.db, "probe with postgres_query", "- tools (mcp), stdio: ",
		`- lookup: look an item up; {"properties":{"id":{"minimum":1,"type":"integer"}},"required":["id"],"type":"object"}`, "- shop (sql)"} {
		if !strings.Contains(brief, want) {
			t.Errorf("the brief lacks %q:\n%s", want, brief)
		}
	}
	if strings.Contains(brief, "write_note") {
		t.Errorf("the brief offers a tool that is not callable:\n%s", brief)
	}
	declared := map[string]string{}
	for _, tl := range first.Tools {
		declared[tl.Function.Name] = string(tl.Function.Parameters)
	}
	if !strings.Contains(declared["mcp_call"], "(tools: crash, fails, flood, garbage, huge, lookup, peek, rows, sleep)") || !strings.Contains(declared["postgres_query"], `"enum":["wh"]`) {
		t.Errorf("the probe tools declared: %v", declared)
	}
	if !strings.Contains(reqs[1], `apple`) || !strings.Contains(reqs[1], `item 7: apple`) || !strings.Contains(reqs[1], `run_cur_kinds_2`) {
		t.Errorf("the probe results the model saw: %s", reqs[1])
	}

	if len(run.Proposals) != 1 {
		t.Fatalf("run: %d proposals", len(run.Proposals))
	}
	p, err := svc.Proposal(run.Proposals[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(p.Evidence.ProbeRuns, ","); got != "run_cur_kinds_1,run_cur_kinds_2" || strings.Join(p.Record.Provenance.ProbeRuns, ",") != got {
		t.Fatalf("the proposal cites %q (record %v)", got, p.Record.Provenance.ProbeRuns)
	}
	runs, err := svc.ProbeRunsFor("proposal", p.ID)
	if err != nil || len(runs) != 2 {
		t.Fatalf("the proposal's probe runs: %+v, %v", runs, err)
	}
	kinds := map[probe.Kind]probe.Result{}
	for _, r := range runs {
		kinds[r.Result.Kind] = r.Result
	}
	if r := kinds[probe.KindPostgres]; !r.OK() || len(r.Rows) != 3 || r.Rows[0][0] != "apple" || r.Fingerprint == "" {
		t.Errorf("the stored postgres run: %+v", r)
	}
	if r := kinds[probe.KindMCP]; !r.OK() || r.Input != `lookup {"id":7}` || !strings.HasPrefix(r.Text, "item 7: apple") || r.Fingerprint == "" {
		t.Errorf("the stored mcp run: %+v", r)
	}

	lived, err := svc.RunLiveAll(ctx, p.ID, "ana")
	if err != nil || len(lived) != 2 {
		t.Fatalf("the live re-run: %+v, %v", lived, err)
	}
	for _, l := range lived {
		if l.Verdict != probe.Same {
			t.Errorf("live re-run of %s: %s (%s)", l.Item.Expect.Input, l.Verdict, l.Run.Result.Error)
		}
	}
}
