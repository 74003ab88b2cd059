package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/memreview/memreview/probe/mcpenv/mcptest"
	"github.com/memreview/memreview/review/store/pg/pgtest"
	"github.com/memreview/memreview/sample"
	"github.com/memreview/memreview/sample/testenv"
)

// bin is the memreview binary built once for the tests that run it as a
// user would.
var bin string

// asCLI, set in the environment of the processes the tests start, makes
// this test binary run as the memreview command itself: the tests run the
// real main (every flag, exit code and stream) without linking a second
// binary, which cost more than all the tests together on a 2-core machine.
const asCLI = "MEMREVIEW_TEST_AS_CLI"

func TestMain(m *testing.M) {
	testenv.LessGC()
	if os.Getenv(asCLI) == "1" {
		stopProfile := profileCLI()
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		code := Run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
		stop()
		stopProfile()
		os.Exit(code)
	}
	// The MCP server of the mcp environments is this binary too; it is
	// started by memreview without MEMREVIEW_TEST_AS_CLI (only PassEnv's
	// variables reach it), so it gets here.
	mcptest.MaybeServe()
	dir, err := os.MkdirTemp("", "memreview-bin")
	if err != nil {
		panic(err)
	}
	self, err := os.Executable()
	if err != nil {
		panic(err)
	}
	// Named memreview, as the real binary is (tmux panes and usage show it).
	bin = filepath.Join(dir, "memreview")
	if err := os.Symlink(self, bin); err != nil {
		fmt.Fprintf(os.Stderr, "link memreview: %v\n", err)
		os.Exit(1)
	}
	os.Setenv(asCLI, "1") // inherited by every process a test starts, tmux's included
	// The tests' memreview runs, in this process (mr) or in their own,
	// decide as tester and print no colour.
	os.Setenv("MEMREVIEW_OPERATOR", "tester")
	os.Setenv("NO_COLOR", "1")
	testenv.RunAtOnce(4)
	code := pgtest.Main(m) // PostgreSQL starts for the first test that asks for it
	sampleTemplate.Remove()
	rawWorldTemplate.Remove()
	cliBankTemplate.Remove()
	os.RemoveAll(dir)
	os.Exit(code)
}

type result struct {
	code           int
	stdout, stderr string
}

// mr runs memreview with args and stdin, in this process: Run, which is
// all main does, with the tests' environment (TestMain sets
// MEMREVIEW_OPERATOR=tester and NO_COLOR=1 for it and every process the
// tests start). A process costs 25–30 ms of CPU before the command runs
// (exec, the runtime, every package's init, review/screen's rules alone
// 13 ms) and compiles the screener's rules again on its first import; in
// this process that happens once. Tests that need a process of its own
// (kill -9, two processes at once, a terminal, their own environment)
// use mrProcess or exec bin.
func mr(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	var o, e bytes.Buffer
	code := runInProcess(t, args, stdin, &o, &e)
	return ended(t, result{code, o.String(), e.String()})
}

// ended returns r, and when its command handed the index's catch-up to
// another process, has the test wait for that process at its end: it
// writes the bank's index until it ends, and the test's folders are
// removed after it.
func ended(t *testing.T, r result) result {
	if handOffPid(r) != 0 {
		t.Cleanup(func() { waitHandOff(t, r) })
	}
	return r
}

// runInProcess is Run with the context main gives it, turning a panic
// into the test's failure (a process would have died with exit status 2).
func runInProcess(t *testing.T, args []string, stdin string, stdout, stderr *bytes.Buffer) (code int) {
	t.Helper()
	defer func() {
		if p := recover(); p != nil {
			t.Fatalf("memreview %q panicked: %v\nstderr: %s", args, p, stderr)
		}
	}()
	return Run(context.Background(), args, strings.NewReader(stdin), stdout, stderr)
}

// mrWith is mr in a memreview process of its own, with more environment
// variables for it.
func mrWith(t *testing.T, stdin string, env []string, args ...string) result {
	t.Helper()
	return mrProcess(t, stdin, env, args...)
}

// mrProcess runs the memreview binary (this test binary as the CLI) as a
// user would, with env added to the tests' environment.
func mrProcess(t *testing.T, stdin string, env []string, args ...string) result {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin = strings.NewReader(stdin)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return ended(t, result{code, o.String(), e.String()})
}

func must(t *testing.T, r result) result {
	t.Helper()
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	return r
}

const goodRecords = `{"id":"mem_1","lemma":"reviews join items on fdbk_g1.ref_id = items_g1.item_id","category":"relation","scope":{"env":"shop","tags":["g1"]},"confidence":0.9,"provenance":{},"status":"active","version":1,"created":"2026-01-01T00:00:00Z","updated":"2026-01-01T00:00:00Z"}
{"id":"mem_2","lemma":"prices are stored in cents","category":"convention","scope":{"env":"shop"},"confidence":0.8,"provenance":{},"status":"active","version":1,"created":"2026-01-01T00:00:00Z","updated":"2026-01-01T00:00:00Z"}
`

func exportAll(t *testing.T, bank string) string {
	t.Helper()
	var b strings.Builder
	for _, k := range []string{"records", "proposals", "decisions", "trajectories"} {
		b.WriteString(must(t, mr(t, "", "--bank", bank, "export", k)).stdout)
	}
	return b.String()
}

// TestUsageAndHelp runs memreview processes, as a user does: the exit
// status and the streams of the real binary, not only Run's.
func TestUsageAndHelp(t *testing.T) {
	t.Parallel()
	if r := mrProcess(t, "", nil, "help", "decide"); r.code != 0 || !strings.Contains(r.stdout, "scope-tags") {
		t.Fatalf("help decide: %+v", r)
	}
	if r := mrProcess(t, "", nil, "frobnicate"); r.code != 2 || !strings.Contains(r.stderr, "unknown command") {
		t.Fatalf("unknown command: %+v", r)
	}
	bank := newCLIBank(t) // in this process; the commands on it in their own
	if r := mrProcess(t, "", nil, "--bank", bank, "decide", "prop_x"); r.code != 2 {
		t.Fatalf("decide without verb: %+v", r)
	}
	if r := mrProcess(t, "", nil, "--bank", bank, "show", "nope"); r.code != 1 || !strings.Contains(r.stderr, `"nope"`) {
		t.Fatalf("show unknown: %+v", r)
	}
	if r := mrProcess(t, "", nil, "--bank", filepath.Join(t.TempDir(), "none"), "queue"); r.code != 1 || !strings.Contains(r.stderr, "no bank") {
		t.Fatalf("queue on missing bank: %+v", r)
	}
}

func TestImportBadInputChangesNothing(t *testing.T) {
	t.Parallel()
	bank := newCLIBank(t)
	before := exportAll(t, bank)
	rec := func(mut string) string {
		return `{"id":"mem_9","lemma":"x","category":"fact","scope":{},"confidence":0.5,"provenance":{},"status":"active","version":1,"created":"2026-01-01T00:00:00Z","updated":"2026-01-01T00:00:00Z"` + mut + "}"
	}
	okLine := rec("")
	huge := `{"id":"mem_h","lemma":"` + strings.Repeat("a", 10<<20) + `","category":"fact"}`
	cases := []struct {
		name, kind, input string
		want              string // regexp over stderr: file, line, field
	}{
		{"truncated", "records", okLine + "\n" + `{"id":"mem_3","lemma":"x`, `bad\.jsonl:2`},
		{"wrong type", "records", okLine + "\n" + strings.Replace(rec(""), `"confidence":0.5`, `"confidence":"high"`, 1), `bad\.jsonl:2.*confidence`},
		{"unknown category", "records", strings.Replace(okLine, `"fact"`, `"facts"`, 1), `bad\.jsonl:1.*category`},
		{"missing lemma", "records", okLine + "\n" + strings.Replace(strings.Replace(rec(""), `"lemma":"x",`, ``, 1), "mem_9", "mem_10", 1), `bad\.jsonl:2.*lemma`},
		{"huge line", "records", okLine + "\n" + huge, `bad\.jsonl:2`},
		{"invalid utf-8", "records", okLine + "\n" + strings.Replace(rec(""), `"x"`, "\"\xff\xfe\"", 1), `bad\.jsonl:2`},
		{"empty file", "records", "", `bad\.jsonl.*empty`},
		{"unknown op", "proposals", `{"id":"p1","op":"explode","rationale":"r"}`, `bad\.jsonl:1.*op`},
		{"missing target", "proposals", `{"id":"p1","op":"delete","targets":[{"id":"mem_404","version":1}],"rationale":"r"}`, `bad\.jsonl:1.*targets`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := filepath.Join(t.TempDir(), "bad.jsonl")
			if err := os.WriteFile(f, []byte(c.input), 0o644); err != nil {
				t.Fatal(err)
			}
			r := mr(t, "", "--bank", bank, "import", c.kind, f)
			if r.code != 1 {
				t.Fatalf("exit %d, want 1; stderr %s", r.code, r.stderr)
			}
			if !regexp.MustCompile(c.want).MatchString(r.stderr) {
				t.Fatalf("stderr %q does not match %q", r.stderr, c.want)
			}
		})
	}
	if after := exportAll(t, bank); after != before {
		t.Fatalf("a failed import changed the bank:\nbefore %s\nafter %s", before, after)
	}
}

// proposalsJSONL makes n update proposals, each on its own new record.
func seedDecisionBank(t *testing.T, n int) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "bank")
	must(t, mr(t, "", "--bank", dir, "init"))
	var recs, props strings.Builder
	for i := range n {
		fmt.Fprintf(&recs, `{"id":"mem_%03d","lemma":"fact number %d about widgets","category":"fact","scope":{"env":"shop"},"confidence":0.5,"provenance":{},"status":"active"}`+"\n", i, i)
		fmt.Fprintf(&props, `{"id":"prop_%03d","op":"update","targets":[{"id":"mem_%03d","version":1}],"record":{"id":"mem_%03d","lemma":"updated fact %d about gadgets","category":"fact","scope":{"env":"shop"},"confidence":0.7,"provenance":{},"status":"active"},"rationale":"probe showed it","evidence":{},"status":"pending"}`+"\n", i, i, i, i)
	}
	must(t, mr(t, recs.String(), "--bank", dir, "import", "records", "-"))
	must(t, mr(t, props.String(), "--bank", dir, "import", "proposals", "-"))
	return dir
}

type exportedDecision struct {
	ID       string `json:"id"`
	Proposal string `json:"proposal"`
	Changes  []struct {
		RecordID string `json:"record_id"`
		After    int    `json:"after"`
	} `json:"changes"`
}

// TestKill9NeverLosesACommittedDecision runs decide again and again,
// killing three in four runs with SIGKILL at a random moment, until 10 were
// killed (25 under MEMREVIEW_CI=1): every decision a run printed is in the
// bank.
func TestKill9NeverLosesACommittedDecision(t *testing.T) {
	t.Parallel()
	const n = 150
	bank := seedDecisionBank(t, n)
	rng := rand.New(rand.NewPCG(7, 9))
	reported := map[string]string{} // proposal -> decision id printed by the binary
	kills, want := 0, 10
	if testenv.CI() {
		want = 25
	}
	runs := 0
	for i := 0; i < n && kills < want; i++ {
		runs++
		cmd := exec.Command(bin, "--bank", bank, "decide", "--note", "kill test", fmt.Sprintf("prop_%03d", i), "accept")
		cmd.Env = append(os.Environ(), "MEMREVIEW_OPERATOR=killer")
		var out bytes.Buffer
		cmd.Stdout = &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		killed := false
		if i%4 != 3 { // three in four runs die at a random moment
			select {
			case err := <-done:
				done <- err
			case <-time.After(time.Duration(rng.IntN(40)) * time.Millisecond):
				cmd.Process.Signal(syscall.SIGKILL)
				killed = true
			}
		}
		<-done
		if killed {
			kills++
		}
		if m := regexp.MustCompile(`^(dec_\d+): accept (prop_\d+)`).FindStringSubmatch(out.String()); m != nil {
			reported[m[2]] = m[1]
		}
	}
	if kills < want*4/5 {
		t.Fatalf("only %d kills", kills)
	}
	var decisions []exportedDecision
	for _, line := range strings.Split(strings.TrimSpace(must(t, mr(t, "", "--bank", bank, "export", "decisions")).stdout), "\n") {
		if line == "" {
			continue
		}
		var d exportedDecision
		if err := json.Unmarshal([]byte(line), &d); err != nil {
			t.Fatal(err)
		}
		decisions = append(decisions, d)
	}
	byProposal := map[string]exportedDecision{}
	for _, d := range decisions {
		byProposal[d.Proposal] = d
	}
	for p, id := range reported {
		if byProposal[p].ID != id {
			t.Errorf("decision %s on %s was reported committed but is not in the bank", id, p)
		}
	}
	// Not half-applied: every decision's record is at version 2 with the new
	// lemma, every undecided proposal's record at version 1.
	var recs []struct {
		ID      string `json:"id"`
		Lemma   string `json:"lemma"`
		Version int    `json:"version"`
	}
	for _, line := range strings.Split(strings.TrimSpace(must(t, mr(t, "", "--bank", bank, "export", "records")).stdout), "\n") {
		var r struct {
			ID      string `json:"id"`
			Lemma   string `json:"lemma"`
			Version int    `json:"version"`
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		recs = append(recs, r)
	}
	updated := 0
	for i, r := range recs {
		_, decided := byProposal[fmt.Sprintf("prop_%03d", i)]
		switch {
		case decided && (r.Version != 2 || !strings.Contains(r.Lemma, "gadgets")):
			t.Errorf("%s: decided but record is v%d %q", r.ID, r.Version, r.Lemma)
		case !decided && r.Version != 1:
			t.Errorf("%s: undecided but record is v%d", r.ID, r.Version)
		}
		if r.Version == 2 {
			updated++
		}
	}
	// Search agrees with the store once the index catches up.
	res := must(t, mr(t, "", "--bank", bank, "search", "--json", "-k", "100", "gadgets"))
	var sr struct {
		Total int `json:"total"`
	}
	if err := json.Unmarshal([]byte(res.stdout), &sr); err != nil {
		t.Fatalf("search json: %v\n%s", err, res.stdout)
	}
	if sr.Total != updated {
		t.Fatalf("search finds %d updated records, the store has %d", sr.Total, updated)
	}
	t.Logf("%d runs, %d kills, %d decisions reported, %d in the bank", runs, kills, len(reported), len(decisions))
}

func TestTwoProcessesDecideSameProposal(t *testing.T) {
	t.Parallel()
	bank := seedDecisionBank(t, 1)
	var wg sync.WaitGroup
	results := make([]result, 2)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = mrProcess(t, "", nil, "--bank", bank, "decide", "prop_000", "accept")
		}()
	}
	wg.Wait()
	ok, conflict := 0, 0
	for _, r := range results {
		switch {
		case r.code == 0:
			ok++
		case r.code == 1 && strings.Contains(r.stderr, "conflict"):
			conflict++
		default:
			t.Fatalf("unexpected: %+v", r)
		}
	}
	if ok != 1 || conflict != 1 {
		t.Fatalf("ok=%d conflict=%d: %+v", ok, conflict, results)
	}
}

func TestDeletedIndexIsRebuilt(t *testing.T) {
	t.Parallel()
	bank := newCLIBank(t)
	first := must(t, mr(t, "", "--bank", bank, "search", "cents")).stdout
	if !strings.Contains(first, "mem_2") {
		t.Fatalf("search before: %s", first)
	}
	if err := os.RemoveAll(filepath.Join(bank, "index")); err != nil {
		t.Fatal(err)
	}
	if again := must(t, mr(t, "", "--bank", bank, "search", "cents")).stdout; !strings.Contains(again, "mem_2") {
		t.Fatalf("search after deleting the index: %s", again)
	}
}

// missing skips a test whose input is absent, saying how to run it; under
// MEMREVIEW_CI=1 (which .ci/run sets) it fails instead, so that CI never
// passes by skipping.
func missing(t *testing.T, format string, args ...any) {
	t.Helper()
	testenv.Missing(t, fmt.Sprintf(format, args...))
}

// needTmux stops a test that drives the TUI in a real terminal when tmux is
// not installed (see missing).
func needTmux(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		missing(t, "tmux is not installed; to run this end-to-end terminal test: apt-get install -y tmux, then go test -run %s .", t.Name())
	}
}

func realdata(t *testing.T, rel string) string {
	t.Helper()
	p := filepath.Join("..", "..", "..", "shared", "realdata", rel)
	if _, err := os.Stat(p); err != nil {
		missing(t, "real data %s is absent: %v; to run this test, put the shared real data at ../shared/realdata (beside the repository), then go test -run %s .", rel, err, t.Name())
	}
	return p
}

func TestTauBenchImportAndSearch(t *testing.T) {
	t.Parallel()
	file := realdata(t, "trajectories/tau-bench-gpt-4o-airline.json")
	bank := filepath.Join(t.TempDir(), "bank")
	must(t, mr(t, "", "--bank", bank, "init"))
	if r := must(t, mr(t, "", "--bank", bank, "import", "trajectories", file)); !strings.Contains(r.stdout, "imported 200 trajectories") {
		t.Fatalf("import: %s", r.stdout)
	}
	r := must(t, mr(t, "", "--bank", bank, "search", "--type", "trajectory", "--json", "-k", "200", "book_reservation"))
	var sr struct {
		Total int `json:"total"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &sr); err != nil {
		t.Fatal(err)
	}
	// Counted independently: runs whose messages call book_reservation.
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var runs []struct {
		Traj []struct {
			ToolCalls []struct {
				Function struct{ Name string } `json:"function"`
			} `json:"tool_calls"`
		} `json:"traj"`
	}
	if err := json.Unmarshal(raw, &runs); err != nil {
		t.Fatal(err)
	}
	want := 0
	for _, run := range runs {
	next:
		for _, m := range run.Traj {
			for _, c := range m.ToolCalls {
				if c.Function.Name == "book_reservation" {
					want++
					break next
				}
			}
		}
	}
	if sr.Total != want || want == 0 {
		t.Fatalf("search finds %d trajectories calling book_reservation, the file has %d", sr.Total, want)
	}
}

func TestSampleVerifyFlagsExactlyTheStaleRecords(t *testing.T) {
	t.Parallel()
	bank := filepath.Join(t.TempDir(), "world")
	must(t, mr(t, "", "sample", bank)) // the command itself, not the template
	r := mr(t, "", "--bank", bank, "verify", "--json")
	if r.code != 1 {
		t.Fatalf("verify on the sample world: exit %d, want 1 (stale records)\n%s", r.code, r.stderr)
	}
	var out struct {
		Suspect []string `json:"suspect"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatal(err)
	}
	want := append([]string(nil), sample.StaleRecords...)
	sort.Strings(want)
	if strings.Join(out.Suspect, ",") != strings.Join(want, ",") {
		t.Fatalf("verify flagged %v, the world was built with stale %v", out.Suspect, want)
	}
	// Suspect records say so in show and in search.
	if s := must(t, mr(t, "", "--bank", bank, "show", want[0])).stdout; !strings.Contains(s, "SUSPECT") {
		t.Fatalf("show %s does not say suspect:\n%s", want[0], s)
	}
	hits := must(t, mr(t, "", "--bank", bank, "search", "-k", "50", "suspect:true")).stdout
	for _, id := range want {
		if !strings.Contains(hits, id) {
			t.Errorf("search suspect:true misses %s:\n%s", id, hits)
		}
	}
}

func TestProbeAndEnvCommands(t *testing.T) {
	t.Parallel()
	bank := filepath.Join(t.TempDir(), "world")
	sampleWorld(t, bank)
	r := must(t, mr(t, "", "--bank", bank, "probe", "--json", "shop", "SELECT count(*) AS n FROM items_g1"))
	var res struct {
		Columns []string `json:"columns"`
		Rows    [][]any  `json:"rows"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 1 || res.Columns[0] != "n" || res.Rows[0][0].(float64) != 120 {
		t.Fatalf("count of items_g1 = %s", r.stdout)
	}
	if r := mr(t, "", "--bank", bank, "probe", "shop", "DELETE FROM items_g1"); r.code != 1 || !strings.Contains(r.stdout+r.stderr, "refused") {
		t.Fatalf("a write through probe: %+v", r)
	}
	if r := must(t, mr(t, "", "--bank", bank, "probe", "docs", "grep", "-i", "headcount")); !strings.Contains(r.stdout, "headcount") {
		t.Fatalf("docs grep: %s", r.stdout)
	}
	db := filepath.Join(t.TempDir(), "extra.db")
	if err := os.WriteFile(db, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	must(t, mr(t, "", "--bank", bank, "env", "add", "extra", "--sql", db))
	if r := mr(t, "", "--bank", bank, "env", "add", "extra", "--sql", db); r.code != 1 {
		t.Fatalf("duplicate env add: %+v", r)
	}
	if r := mr(t, "", "--bank", bank, "env", "add", "x", "--files", db); r.code != 1 || !strings.Contains(r.stderr, "not a folder") {
		t.Fatalf("files env on a file: %+v", r)
	}
	if l := must(t, mr(t, "", "--bank", bank, "env", "list")).stdout; !strings.Contains(l, "extra") || !strings.Contains(l, "shop") {
		t.Fatalf("env list: %s", l)
	}
	must(t, mr(t, "", "--bank", bank, "env", "rm", "extra"))
	if l := must(t, mr(t, "", "--bank", bank, "env", "list")).stdout; strings.Contains(l, "extra") {
		t.Fatalf("env rm left it: %s", l)
	}
}

// TestTUIInTmux runs the built binary in a real terminal (tmux), types as an
// operator would and reads the screen back.
func TestTUIInTmux(t *testing.T) {
	t.Parallel()
	needTmux(t)
	bank := filepath.Join(t.TempDir(), "world")
	sampleWorld(t, bank)
	var session, errlog string
	tmux := func(args ...string) string {
		out, err := exec.Command("tmux", append([]string{"-L", session}, args...)...).CombinedOutput()
		if err != nil {
			b, _ := os.ReadFile(errlog)
			t.Fatalf("tmux %v: %v\n%s\nthe TUI's stderr: %s", args, err, out, b)
		}
		return string(out)
	}
	// The TUI runs in a tmux server of its own. Its stderr and exit status
	// go to a file, so that a TUI that ends early (and takes the tmux
	// server with it) says why.
	session = fmt.Sprintf("memreview-e2e-%d-%d", os.Getpid(), time.Now().UnixNano())
	errlog = filepath.Join(t.TempDir(), "tui.stderr")
	tmux("new-session", "-d", "-s", session, "-x", "120", "-y", "40",
		"sh", "-c", `"$@" 2>>"$0"; echo "exit status $?" >>"$0"`, errlog,
		"env", "TERM=xterm-256color", "NO_COLOR=1", "MEMREVIEW_OPERATOR=e2e", bin, "--bank", bank)
	t.Cleanup(func() { exec.Command("tmux", "-L", session, "kill-server").Run() })
	screen := func() string { return tmux("capture-pane", "-p", "-t", session) }
	waitFor := func(what string) string {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for {
			s := screen()
			if strings.Contains(s, what) {
				return s
			}
			if time.Now().After(deadline) {
				t.Fatalf("screen never showed %q:\n%s", what, s)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	first := waitFor("Review 1/15")
	for _, line := range strings.Split(first, "\n") {
		if w := len([]rune(line)); w > 120 {
			t.Errorf("line wider than the terminal (%d): %q", w, line)
		}
	}
	tmux("send-keys", "-t", session, "]")
	second := waitFor("Review 2/15")
	// r applies once the proposal shown has loaded (before, it says "not
	// applied"): wait for its candidate pane to name it.
	m := regexp.MustCompile(`(?m)^ \S+\s+(prop_\w+) ·`).FindStringSubmatch(second)
	if m == nil {
		t.Fatalf("no proposal id in the header:\n%s", second)
	}
	waitFor("Candidate " + m[1])
	tmux("send-keys", "-t", session, "r")
	waitFor("Review 2/14")
	tmux("send-keys", "-t", session, "q")
	// q ends the TUI, its shell and with them the tmux server: wait for
	// that without asking the server for the screen (it may be gone
	// between two calls; asking then failed the test under load, which
	// read as a TUI that ended by itself).
	deadline := time.Now().Add(5 * time.Second)
	for exec.Command("tmux", "-L", session, "has-session", "-t", session).Run() == nil {
		if time.Now().After(deadline) {
			t.Fatalf("the TUI did not end within 5 s of q:\n%s", screen())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if b, _ := os.ReadFile(errlog); strings.TrimSpace(string(b)) != "exit status 0" {
		t.Fatalf("the TUI's stderr and exit status after q: %q, want only \"exit status 0\"", b)
	}
	// The reject is in the bank, decided by the operator the terminal named.
	var d struct {
		Verb     string `json:"verb"`
		Operator string `json:"operator"`
		Proposal string `json:"proposal"`
	}
	line := strings.TrimSpace(must(t, mr(t, "", "--bank", bank, "export", "decisions")).stdout)
	if err := json.Unmarshal([]byte(line), &d); err != nil {
		t.Fatalf("decisions after the session: %q: %v", line, err)
	}
	if d.Verb != "reject" || d.Operator != "e2e" || d.Proposal != sample.ProposalIDs[1] {
		t.Fatalf("decision = %+v, want reject of %s by e2e", d, sample.ProposalIDs[1])
	}
}

func TestDecideNarrowMergeUndoHistory(t *testing.T) {
	t.Parallel()
	bank := filepath.Join(t.TempDir(), "world")
	sampleWorld(t, bank)
	if r := mr(t, "", "--bank", bank, "decide", sample.PropNarrow, "narrow"); r.code != 2 {
		t.Fatalf("narrow without changed fields: %+v", r)
	}
	must(t, mr(t, "", "--bank", bank, "decide", "--note", "g1 only", "--scope-tags", "g1,reviews", sample.PropNarrow, "narrow"))
	var rec struct {
		Record struct {
			Version int `json:"version"`
			Scope   struct {
				Tags []string `json:"tags"`
			} `json:"scope"`
		} `json:"record"`
	}
	if err := json.Unmarshal([]byte(must(t, mr(t, "", "--bank", bank, "show", "--json", sample.RecOvergeneral)).stdout), &rec); err != nil {
		t.Fatal(err)
	}
	if rec.Record.Version != 2 || strings.Join(rec.Record.Scope.Tags, ",") != "g1,reviews" {
		t.Fatalf("narrowed record = %+v", rec.Record)
	}
	h := must(t, mr(t, "", "--bank", bank, "history", sample.RecOvergeneral)).stdout
	if !strings.Contains(h, "v2") || !strings.Contains(h, "narrow") || !strings.Contains(h, "by tester") || !strings.Contains(h, "g1 only") {
		t.Fatalf("history:\n%s", h)
	}
	out := must(t, mr(t, "", "--bank", bank, "merge", "--json", "--with", sample.RecCentsB, "--lemma", "Prices are integer cents in every items table.", sample.PropMerge)).stdout
	var d struct {
		Record struct {
			ID         string `json:"id"`
			Lemma      string `json:"lemma"`
			Provenance struct {
				MergedFrom []string `json:"merged_from"`
			} `json:"provenance"`
		} `json:"record"`
	}
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatal(err)
	}
	if d.Record.Lemma != "Prices are integer cents in every items table." || len(d.Record.Provenance.MergedFrom) != 3 {
		t.Fatalf("merged record = %+v", d.Record)
	}
	if s := must(t, mr(t, "", "--bank", bank, "show", sample.RecCentsB)).stdout; !strings.Contains(s, "retired") || !strings.Contains(s, "merged into "+d.Record.ID) {
		t.Fatalf("merged source:\n%s", s)
	}
	if s := must(t, mr(t, "", "--bank", bank, "show", d.Record.ID)).stdout; !strings.Contains(s, "merged from ") || strings.Contains(s, "merged into") {
		t.Fatalf("the merged record's provenance should name its sources and nothing it went into:\n%s", s)
	}
	must(t, mr(t, "", "--bank", bank, "undo"))
	if s := must(t, mr(t, "", "--bank", bank, "show", sample.RecCentsB)).stdout; !strings.Contains(s, "active") {
		t.Fatalf("source after undo:\n%s", s)
	}
	if q := must(t, mr(t, "", "--bank", bank, "queue")).stdout; !strings.Contains(q, sample.PropMerge) || strings.Contains(q, sample.PropNarrow) {
		t.Fatalf("queue after undo:\n%s", q)
	}
}

// An import that fails at the store (a proposal id the bank already has, a
// record id in two files) says so and never claims to have imported.
func TestImportFailureClaimsNothing(t *testing.T) {
	t.Parallel()
	bank := newCLIBank(t)
	props := filepath.Join(t.TempDir(), "props.jsonl")
	if err := os.WriteFile(props, []byte(`{"id":"p1","op":"delete","targets":[{"id":"mem_1"}],"rationale":"r"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	must(t, mr(t, "", "--bank", bank, "import", "proposals", props))
	before := exportAll(t, bank)
	r := mr(t, "", "--bank", bank, "import", "proposals", props)
	if r.code != 1 || strings.Contains(r.stdout, "imported") || !regexp.MustCompile(`props\.jsonl:1: field "id": proposal p1 is already in the bank`).MatchString(r.stderr) {
		t.Fatalf("re-import of a proposal: %+v", r)
	}
	recs := filepath.Join(t.TempDir(), "recs.jsonl")
	if err := os.WriteFile(recs, []byte(strings.ReplaceAll(goodRecords, "mem_", "mem_x")), 0o644); err != nil {
		t.Fatal(err)
	}
	r = mr(t, "", "--bank", bank, "import", "records", recs, recs)
	if r.code != 1 || strings.Contains(r.stdout, "imported") || !strings.Contains(r.stderr, "also in") {
		t.Fatalf("one record in two files: %+v", r)
	}
	if r := mr(t, "", "--bank", bank, "import", "recs", filepath.Join(t.TempDir(), "none")); r.code != 2 || !strings.Contains(r.stderr, "not records, proposals, trajectories or memories") {
		t.Fatalf("import of an unknown kind: %+v", r)
	}
	if after := exportAll(t, bank); after != before {
		t.Fatalf("a failed import changed the bank:\nbefore %s\nafter %s", before, after)
	}
}

// A flag after the arguments is refused, not taken as an argument and
// silently ignored.
func TestFlagAfterArgumentsRefused(t *testing.T) {
	t.Parallel()
	bank := newCLIBank(t)
	for _, args := range [][]string{
		{"show", "mem_1", "--json"},
		{"decide", "p1", "narrow", "--lemma", "x"},
		{"history", "mem_1", "-json"},
	} {
		r := mr(t, "", append([]string{"--bank", bank}, args...)...)
		if r.code != 2 || !strings.Contains(r.stderr, "flags come before them") || r.stdout != "" {
			t.Errorf("%v: %+v", args, r)
		}
	}
	// "--" ends the flags: what follows is an argument, even -json.
	if r := mr(t, "", "--bank", bank, "search", "--", "-json"); r.code != 0 {
		t.Errorf("search -- -json: %+v", r)
	}
	// Free-text commands keep what follows their first argument.
	if r := mr(t, "", "--bank", bank, "sample", "gen", "--records", "3", "--trajectories", "1", filepath.Join(t.TempDir(), "g")); r.code != 0 {
		t.Errorf("sample gen with its flags: %+v", r)
	}
}

// --json lists are JSON arrays even when empty, and env list takes --json
// after the subcommand.
func TestJSONEmptyListsAreArrays(t *testing.T) {
	t.Parallel()
	bank := filepath.Join(t.TempDir(), "bank")
	must(t, mr(t, "", "--bank", bank, "init"))
	for _, args := range [][]string{
		{"queue", "--json"},
		{"retrieve", "--json", "anything"},
		{"env", "--json", "list"},
		{"env", "list", "--json"},
	} {
		r := must(t, mr(t, "", append([]string{"--bank", bank}, args...)...))
		if strings.TrimSpace(r.stdout) != "[]" {
			t.Errorf("%v printed %q, want []", args, r.stdout)
		}
	}
	r := must(t, mr(t, "", "--bank", bank, "verify", "--json"))
	var v struct{ Checks []any }
	if err := json.Unmarshal([]byte(r.stdout), &v); err != nil || v.Checks == nil {
		t.Errorf("verify --json on an empty bank: %q (%v), want \"checks\": []", r.stdout, err)
	}
}

// Two OpenAI-format files with the same name get the same run ids; the
// second must not silently replace the first, in one import or the next.
func TestImportTrajectoriesNeverReplaces(t *testing.T) {
	t.Parallel()
	bank := newCLIBank(t)
	run := func(answer string) string {
		return `[{"role":"user","content":"What is 2+2?"},{"role":"assistant","content":"` + answer + `"}]`
	}
	a := filepath.Join(t.TempDir(), "results.json")
	b := filepath.Join(t.TempDir(), "results.json")
	if err := os.WriteFile(a, []byte(run("4")), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(b, []byte(run("5")), 0o644); err != nil {
		t.Fatal(err)
	}
	before := exportAll(t, bank)
	if r := mr(t, "", "--bank", bank, "import", "trajectories", a, b); r.code != 1 || !strings.Contains(r.stderr, b+`:1: field "id": trajectory id "results-1" is also in `+a+`:1: field "id"`) {
		t.Fatalf("two files with one id: %+v", r)
	}
	if after := exportAll(t, bank); after != before {
		t.Fatal("a refused import changed the bank")
	}
	must(t, mr(t, "", "--bank", bank, "import", "trajectories", a))
	if r := mr(t, "", "--bank", bank, "import", "trajectories", b); r.code != 1 || !strings.Contains(r.stderr, b+`:1: field "id": trajectory results-1 is already in the bank`) {
		t.Fatalf("re-import over an existing id: %+v", r)
	}
	if r := must(t, mr(t, "", "--bank", bank, "export", "trajectories")); !strings.Contains(r.stdout, `"content":"4"`) {
		t.Fatalf("the first trajectory was replaced: %s", r.stdout)
	}
}

// memreview search leaves retired records out, as the bank screen does
// (hideRetired in cmd_bank.go): after the delete proposal retires
// mem_0003, a search that found it no longer does, unless --status
// retired or a status: term asks for it.
func TestSearchHidesRetired(t *testing.T) {
	t.Parallel()
	bank := filepath.Join(t.TempDir(), "world")
	sampleWorld(t, bank)
	ids := func(args ...string) []string {
		t.Helper()
		var res struct{ Hits []struct{ ID string } }
		out := must(t, mr(t, "", append([]string{"--bank", bank, "search", "--json", "-k", "100"}, args...)...)).stdout
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatalf("search %v: %v\n%s", args, err, out)
		}
		var ids []string
		for _, h := range res.Hits {
			ids = append(ids, h.ID)
		}
		return ids
	}
	id := sample.RecWrong
	if !slices.Contains(ids("price_cents"), id) {
		t.Fatalf("the sample changed: price_cents does not find %s", id)
	}
	must(t, mr(t, "", "--bank", bank, "decide", sample.PropDelete, "accept"))
	if got := ids("price_cents"); slices.Contains(got, id) || len(got) == 0 {
		t.Errorf("after retiring %s, price_cents finds %v", id, got)
	}
	if got := ids("--status", "retired", "price_cents"); !slices.Equal(got, []string{id}) {
		t.Errorf("--status retired finds %v, want only %s", got, id)
	}
	if got := ids("price_cents status:retired"); !slices.Equal(got, []string{id}) {
		t.Errorf("a status:retired term finds %v, want only %s", got, id)
	}
}

// memreview search ANDs its terms, as the TUI's search boxes do: on the
// sample world `env:shop stars` is the two records about stars, not every
// shop record; with OR it is any of them again.
func TestSearchTermsAreANDed(t *testing.T) {
	t.Parallel()
	bank := filepath.Join(t.TempDir(), "world")
	sampleWorld(t, bank)
	and := must(t, mr(t, "", "--bank", bank, "search", "--json", "-k", "100", "env:shop stars")).stdout
	or := must(t, mr(t, "", "--bank", bank, "search", "--json", "-k", "100", "env:shop OR stars")).stdout
	count := func(s string) int { return strings.Count(s, `"id": "mem_`) }
	if n := count(and); n == 0 || !strings.Contains(and, "mem_0006") || !strings.Contains(and, "mem_0007") {
		t.Fatalf("env:shop stars found %d records, want the star records mem_0006 and mem_0007:\n%s", n, and)
	}
	if count(or) <= count(and) {
		t.Fatalf("OR found %d records, AND %d: OR must widen the search", count(or), count(and))
	}
	if strings.Contains(and, "Prices are stored") {
		t.Fatalf("an AND search for stars returned the prices record:\n%s", and)
	}
}
