package cli

import (
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	_ "modernc.org/sqlite"

	"github.com/memreview/memreview/curator/llmtest"
	"github.com/memreview/memreview/review/printable"
)

// hostileText holds what a terminal would obey: clear screen, cursor home,
// a clipboard write, a window title, a carriage return, backspace, DEL, a
// C1 CSI and a right-to-left override.
const hostileText = "\x1b[2J\x1b[H\x1b]52;c;aGVsbG8=\a\x1b]0;owned\a\r\b\x7f\u009b31m\u202eevil"

func jsonQ(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// rawControls returns what of out a terminal would obey: bytes below
// 0x20 but newline and tab, DEL, C1 controls and bidi controls.
func rawControls(out string) []string {
	var bad []string
	for i := 0; i < len(out); {
		r, n := utf8.DecodeRuneInString(out[i:])
		if (r < 0x20 && r != '\n' && r != '\t') || r == 0x7f || (r >= 0x80 && r < 0xa0) || printable.IsBidi(r) || r == utf8.RuneError && n == 1 {
			bad = append(bad, out[i:i+n])
		}
		i += n
	}
	return bad
}

// TestCLIEscapesHostileText fills a bank with hostile text in every field
// that holds text (lemma, trigger, tags, steps, rationale, notes, the
// operator, a trajectory, probe output, file and folder names), then runs
// every command that prints text: no control character reaches stdout or
// stderr raw. The same data with --json comes back exact.
func TestCLIEscapesHostileText(t *testing.T) {
	t.Parallel()
	bank := filepath.Join(t.TempDir(), "bank")
	must(t, mr(t, "", "--bank", bank, "init"))
	h := hostileText
	rec := `{"id":"mem_h","lemma":` + jsonQ("findme lemma "+h) + `,"category":"fact","trigger":` + jsonQ("when "+h) +
		`,"scope":{"env":` + jsonQ("env"+h) + `,"tags":[` + jsonQ("tag"+h) + `]},"steps":[` + jsonQ("step "+h) + `],"confidence":0.5,"checks":[{"env":"db","input":` + jsonQ("SELECT 'findme "+h+"'") + `,"expect":{"env":"db","kind":"sql","input":"x","duration_ms":0}}]}`
	rec2 := `{"id":"mem_h2","lemma":` + jsonQ("findme second "+h) + `,"category":"fact"}`
	must(t, mr(t, rec+"\n"+rec2+"\n", "--bank", bank, "import", "records", "-"))
	traj := `{"id":"traj_h","env":"db","task":` + jsonQ("task "+h) + `,"steps":[{"role":"user","content":` + jsonQ("findme "+h) + `}],"outcome":{"passed":false,"reward":0,"notes":` + jsonQ(h) + `},"retrieved":["mem_h"],` +
		`"distilled":{"task":` + jsonQ(h) + `,"observations":[{"steps":{"from":1,"to":1},"text":` + jsonQ(h) + `}],"answer":"x"}}`
	must(t, mr(t, traj+"\n", "--bank", bank, "import", "trajectories", "-"))
	props := `{"id":"prop_h","op":"update","targets":[{"id":"mem_h"}],"trajectory":"traj_h","rationale":` + jsonQ("because "+h) + `,"record":{"lemma":` + jsonQ("findme updated "+h) + `,"category":"fact"}}` + "\n" +
		`{"id":"prop_m","op":"merge","targets":[{"id":"mem_h2"}],"rationale":` + jsonQ(h) + `,"record":{"lemma":` + jsonQ("merged "+h) + `,"category":"fact"}}` + "\n"
	must(t, mr(t, props, "--bank", bank, "import", "proposals", "-"))

	// Environments whose folder, file names and content are hostile.
	dir := filepath.Join(filepath.Dir(bank), "docs"+h)
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "a"+h+".txt"), []byte("findme "+h+"\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "t.csv"), []byte("col"+h+"\nval"+h+"\n"), 0o644)
	must(t, mr(t, "", "--bank", bank, "env", "add", "docs", "--files", dir))
	db := filepath.Join(filepath.Dir(bank), "db.sqlite")
	writeDB(t, db)
	must(t, mr(t, "", "--bank", bank, "env", "add", "db", "--sql", db))

	// A model server that writes hostile text into its proposal.
	llm := fakeHostileLLM(t)
	cfg, _ := os.ReadFile(filepath.Join(bank, "memreview.toml"))
	cfg = []byte(strings.Replace(string(cfg), "[curator]", "[curator]\nbase_url = "+jsonQ(llm)+"\nmodel = \"m\"", 1))
	os.WriteFile(filepath.Join(bank, "memreview.toml"), cfg, 0o644)

	op := "--operator=ada" + h
	runs := [][]string{
		{"queue"}, {"show", "mem_h"}, {"show", "prop_h"}, {"show", "traj_h"}, {"history", "mem_h"},
		{"search", "findme"}, {"search", "--type", "trajectory", "findme"}, {"search", "--type", "proposal", "findme"},
		{"retrieve", "findme"}, {"env", "list"},
		{"probe", "docs", "ls"}, {"probe", "docs", "grep", "findme"}, {"probe", "docs", "read", "a" + h + ".txt"},
		{"probe", "docs", "csv", "t.csv"}, {"probe", "db", "SELECT '" + h + "' AS " + jsonQ("c"+h)},
		{"probe", "db", "SELECT nosuch" + h}, {"verify"},
		{op, "decide", "--note", "ok " + h, "prop_h", "accept"}, {"show", "dec_0001"}, {"history", "mem_h"},
		{op, "merge", "--with", "mem_h2", "--note", h, "prop_m"},
		{op, "undo", "--note", "back " + h}, {"show", "nope" + h}, {"history", "nope" + h}, {"env", "rm", "nope" + h},
		{"decide", "prop" + h, "accept"}, {"import", "records", "missing" + h + ".jsonl"},
		{"curate", "--dry-run", "traj_h"}, {"curate", "traj_h"}, {"queue"},
	}
	printed, outputs := 0, map[string]result{}
	for _, args := range runs {
		full := []string{"--bank", bank}
		if strings.HasPrefix(args[0], "--operator") {
			full, args = append(full, args[0]), args[1:]
		}
		r := mr(t, "", append(full, args...)...)
		outputs[strings.Join(args, " ")] = r
		if bad := rawControls(r.stdout); len(bad) > 0 {
			t.Errorf("%q: stdout holds raw %q:\n%s", args, bad, r.stdout)
		}
		if bad := rawControls(r.stderr); len(bad) > 0 {
			t.Errorf("%q: stderr holds raw %q:\n%s", args, bad, r.stderr)
		}
		if strings.Contains(r.stdout+r.stderr, `\x1b`) {
			printed++
		}
	}
	if r := outputs["curate --dry-run traj_h"]; r.code != 0 || !strings.Contains(r.stdout, `model says \x1b[2J`) {
		t.Errorf("curate --dry-run did not print the model's text: %+v", r)
	}
	if r := outputs["queue"]; !strings.Contains(r.stdout, `model says \x1b[2J`) {
		t.Errorf("queue after curate: %s", r.stdout)
	}
	if printed < len(runs)/2 {
		t.Errorf("only %d of %d commands printed the hostile text (escaped): the fixture does not reach them", printed, len(runs))
	}
	// --json and export stay exact: the text decodes back byte for byte.
	var got struct {
		Record struct{ Lemma string } `json:"record"`
	}
	r := must(t, mr(t, "", "--bank", bank, "show", "--json", "mem_h2"))
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil || got.Record.Lemma != "findme second "+h {
		t.Errorf("show --json: %q (%v)", got.Record.Lemma, err)
	}
	exp := must(t, mr(t, "", "--bank", bank, "export", "records"))
	if !strings.Contains(exp.stdout, "\x7f") || !strings.Contains(exp.stdout, "\u202e") {
		t.Errorf("export changed the text it exports")
	}
}

// fakeHostileLLM serves chat completions: a propose_create whose lemma and
// rationale are hostile, then finish; and again for the next run.
func fakeHostileLLM(t *testing.T) string {
	srv := llmtest.New(t,
		llmtest.Calls(llmtest.Call{Name: "propose_create", Args: `{"record":{"lemma":` + jsonQ("model says "+hostileText) + `,"category":"fact","scope":{"env":"db","tags":[],"task_family":""},"trigger":"","steps":[],"confidence":0.5},"rationale":` + jsonQ("why "+hostileText) + `,"evidence":[{"from":1,"to":1}],"probe_runs":[]}`}),
		llmtest.Calls(llmtest.Call{Name: "finish", Args: `{"summary":"done"}`}))
	srv.Cycle()
	return srv.BaseURL()
}

func writeDB(t *testing.T, path string) {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE TABLE t(x TEXT); INSERT INTO t VALUES ('findme ` + hostileText + `')`); err != nil {
		t.Fatal(err)
	}
}
