package app_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/app"
	"github.com/memreview/memreview/review/store"
)

// memoryBank is a small bank without a search index: the memory tool does
// not search.
func memoryBank(t *testing.T) (*app.Service, *store.Store) {
	t.Helper()
	st, err := store.Create(t.TempDir(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	recs := []review.Record{
		{ID: "mem_0001", Lemma: "In shop.db, reviews join items on fdbk_g1.ref_id = items_g1.item_id.", Category: review.Relation,
			Scope: review.Scope{Env: "shop"}, Trigger: "joining reviews to items", Confidence: 0.9, Status: review.Active},
		{ID: "mem_0002", Lemma: "Order totals are stored in cents.", Category: review.Fact, Scope: review.Scope{Env: "shop"},
			Steps: []string{"SELECT total FROM orders", "divide by 100"}, Confidence: 0.8, Status: review.Active},
		{ID: "mem_0003", Lemma: "Answer in the user's language.", Category: review.Convention, Confidence: 0.7, Status: review.Active},
		{ID: "mem_0004", Lemma: "Retired advice.", Category: review.Warning, Scope: review.Scope{Env: "shop"}, Confidence: 0.5, Status: review.Retired},
	}
	if err := st.PutRecords(recs, "test", "fixture"); err != nil {
		t.Fatal(err)
	}
	svc := app.New(st, app.Options{Operator: "ana", OpenIndex: func() (app.Index, error) { return nil, app.ErrNoIndex }})
	t.Cleanup(func() { svc.Close() })
	return svc, st
}

func str(s string) *string { return &s }
func num(n int) *int       { return &n }

// run runs a command that must succeed.
func run(t *testing.T, m *app.MemorySession, cmd app.MemoryCommand) string {
	t.Helper()
	out, err := m.Run(context.Background(), cmd)
	if err != nil {
		t.Fatalf("%s %s: %v", cmd.Command, cmd.Path, err)
	}
	return out
}

func queued(t *testing.T, svc *app.Service) []review.Proposal {
	t.Helper()
	q, err := svc.Queue()
	if err != nil {
		t.Fatal(err)
	}
	return q
}

func TestMemoryToolViewsTheBankAsFiles(t *testing.T) {
	t.Parallel()
	svc, _ := memoryBank(t)
	m := svc.NewMemorySession("claude")
	root := run(t, m, app.MemoryCommand{Command: "view", Path: "/memories"})
	want := "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items:\n" +
		"216B\t/memories\n" +
		"30B\t/memories/_any/\n" +
		"30B\t/memories/_any/convention/\n" +
		"186B\t/memories/shop/\n" +
		"86B\t/memories/shop/fact/\n" +
		"100B\t/memories/shop/relation/"
	// The sizes are the bytes of the files below each directory.
	if root != want {
		t.Fatalf("view /memories:\n%s\nwant:\n%s", root, want)
	}
	dir := run(t, m, app.MemoryCommand{Command: "view", Path: "/memories/shop/fact"})
	if want := "Here're the files and directories up to 2 levels deep in /memories/shop/fact, excluding hidden items:\n86B\t/memories/shop/fact\n86B\t/memories/shop/fact/mem_0002.md"; dir != want {
		t.Fatalf("view dir:\n%s\nwant:\n%s", dir, want)
	}
	file := run(t, m, app.MemoryCommand{Command: "view", Path: "/memories/shop/fact/mem_0002.md"})
	want = "Here's the content of /memories/shop/fact/mem_0002.md with line numbers:\n" +
		"     1\tOrder totals are stored in cents.\n     2\t\n     3\tSteps:\n     4\t1. SELECT total FROM orders\n     5\t2. divide by 100"
	if file != want {
		t.Fatalf("view file:\n%q\nwant:\n%q", file, want)
	}
	part := run(t, m, app.MemoryCommand{Command: "view", Path: "/memories/shop/fact/mem_0002.md", ViewRange: []int{4, -1}})
	if want := "Here's the content of /memories/shop/fact/mem_0002.md with line numbers:\n     4\t1. SELECT total FROM orders\n     5\t2. divide by 100"; part != want {
		t.Fatalf("view_range:\n%q\nwant %q", part, want)
	}
	// Shorthand: a file outside a category directory is a fact.
	if _, err := m.Run(context.Background(), app.MemoryCommand{Command: "view", Path: "/memories/shop/mem_0002.md"}); err != nil {
		t.Fatalf("shorthand path: %v", err)
	}
	if strings.Contains(root, "mem_0004") || strings.Contains(run(t, m, app.MemoryCommand{Command: "view", Path: "/memories/shop"}), "warning") {
		t.Fatal("a retired record shows in the tree")
	}
}

func TestMemoryToolWritesArePendingProposals(t *testing.T) {
	t.Parallel()
	svc, st := memoryBank(t)
	ctx := context.Background()
	m := svc.NewMemorySession("claude-code")
	out := run(t, m, app.MemoryCommand{Command: "create", Path: "/memories/shop/procedure/refunds.md", FileText: str("Refunds go through the refunds table.\n")})
	if !strings.HasPrefix(out, "File created successfully at: /memories/shop/procedure/refunds.md (pending review as prop_") {
		t.Fatalf("create: %q", out)
	}
	q := queued(t, svc)
	if len(q) != 1 || q[0].Op != review.OpCreate || q[0].Record.Scope.Env != "shop" || q[0].Record.Category != review.Procedure ||
		q[0].Record.Lemma != "Refunds go through the refunds table.\n" || q[0].CuratorRun != "memory-tool:claude-code" {
		t.Fatalf("queued create: %+v", q)
	}
	if src := q[0].Record.Provenance.Source; src == nil || src.Format != "memory-tool" || src.File != "/memories/shop/procedure/refunds.md" {
		t.Fatalf("create provenance: %+v", q[0].Record.Provenance)
	}
	// The session sees its own write; another does not.
	if got := run(t, m, app.MemoryCommand{Command: "view", Path: "/memories/shop/procedure/refunds.md"}); !strings.Contains(got, "     1\tRefunds go through the refunds table.") {
		t.Fatalf("own pending write not shown: %q", got)
	}
	other := svc.NewMemorySession("other")
	if _, err := other.Run(ctx, app.MemoryCommand{Command: "view", Path: "/memories/shop/procedure/refunds.md"}); err == nil {
		t.Fatal("another session sees this session's pending write")
	}

	// str_replace on a record: an update against the version viewed.
	run(t, m, app.MemoryCommand{Command: "view", Path: "/memories/shop/relation/mem_0001.md"})
	out = run(t, m, app.MemoryCommand{Command: "str_replace", Path: "/memories/shop/relation/mem_0001.md", OldStr: str("item_id"), NewStr: str("id")})
	want := "The memory file has been edited. Here is the snippet showing the change (with line numbers):\n" +
		"     1\tIn shop.db, reviews join items on fdbk_g1.ref_id = items_g1.id.\n     2\t\n     3\tWhen: joining reviews to items\n(pending review as prop_"
	if !strings.HasPrefix(out, want) {
		t.Fatalf("str_replace:\n%q\nwant prefix\n%q", out, want)
	}
	q = queued(t, svc)
	up := q[len(q)-1]
	if up.Op != review.OpUpdate || len(up.Targets) != 1 || up.Targets[0] != (review.Target{ID: "mem_0001", Version: 1}) ||
		up.Record.Lemma != "In shop.db, reviews join items on fdbk_g1.ref_id = items_g1.id." || up.Record.Trigger != "joining reviews to items" ||
		up.Record.Provenance.Source != nil {
		t.Fatalf("update: %+v %+v", up, up.Record)
	}
	// rename moves a record to another category: an update of its scope.
	run(t, m, app.MemoryCommand{Command: "rename", OldPath: "/memories/shop/fact/mem_0002.md", NewPath: "/memories/_any/fact/mem_0002.md"})
	q = queued(t, svc)
	if mv := q[len(q)-1]; mv.Op != review.OpUpdate || mv.Record.Scope.Env != "" || mv.Record.ID != "mem_0002" || mv.Record.Steps[1] != "divide by 100" {
		t.Fatalf("rename: %+v", mv.Record)
	}
	// delete retires.
	run(t, m, app.MemoryCommand{Command: "delete", Path: "/memories/_any/convention/mem_0003.md"})
	q = queued(t, svc)
	if del := q[len(q)-1]; del.Op != review.OpDelete || del.Targets[0].ID != "mem_0003" {
		t.Fatalf("delete: %+v", del)
	}
	if _, err := m.Run(ctx, app.MemoryCommand{Command: "view", Path: "/memories/_any/convention/mem_0003.md"}); err == nil {
		t.Fatal("a file this session deleted still shows")
	}
	if n := len(queued(t, svc)); n != 4 {
		t.Fatalf("%d proposals queued, want 4", n)
	}
	// Nothing reached the bank.
	r, _ := st.Record("mem_0003")
	if r.Status != review.Active {
		t.Fatal("delete wrote the bank")
	}
}

func TestMemoryToolEditsTheVersionViewed(t *testing.T) {
	t.Parallel()
	svc, _ := memoryBank(t)
	ctx := context.Background()
	m := svc.NewMemorySession("claude")
	run(t, m, app.MemoryCommand{Command: "view", Path: "/memories/_any/convention/mem_0003.md"})
	// A person edits the record meanwhile.
	cur, _ := svc.Record("mem_0003")
	ed := *cur
	ed.Lemma = "Answer in English."
	if _, err := svc.DecideRecords(ctx, review.RecordRequest{Verb: review.Edit, IDs: []string{"mem_0003"}, Record: &ed, Operator: "ana"}); err != nil {
		t.Fatal(err)
	}
	run(t, m, app.MemoryCommand{Command: "str_replace", Path: "/memories/_any/convention/mem_0003.md", OldStr: str("user's language"), NewStr: str("user's language, always")})
	q := queued(t, svc)
	p := q[len(q)-1]
	if p.Targets[0].Version != 1 || p.Record.Lemma != "Answer in the user's language, always." {
		t.Fatalf("edit of the viewed version: %+v %q", p.Targets, p.Record.Lemma)
	}
	ce, err := svc.Conflicts(&p)
	if err != nil || ce == nil {
		t.Fatalf("the reviewer is not shown the conflict: %v %v", ce, err)
	}
}

func TestMemoryToolRewriteReplacesItsOwnProposal(t *testing.T) {
	t.Parallel()
	svc, st := memoryBank(t)
	ctx := context.Background()
	m := svc.NewMemorySession("claude")
	run(t, m, app.MemoryCommand{Command: "create", Path: "/memories/notes.md", FileText: str("first draft")})
	first := queued(t, svc)[0].ID
	run(t, m, app.MemoryCommand{Command: "str_replace", Path: "/memories/notes.md", OldStr: str("first"), NewStr: str("second")})
	q := queued(t, svc)
	if len(q) != 1 || q[0].ID == first || q[0].Op != review.OpCreate || q[0].Record.Lemma != "second draft" ||
		q[0].Record.Scope.Env != "" || q[0].Record.Category != review.Fact {
		t.Fatalf("queue after a rewrite: %+v", q)
	}
	p, err := st.Proposal(first)
	if err != nil || p.Status != review.Rejected {
		t.Fatalf("the first draft is %v (%v), want rejected", p.Status, err)
	}
	// Accepting the second makes the file a record; the view shows it.
	if _, err := svc.Decide(ctx, review.DecideRequest{Proposal: q[0].ID, Verb: review.Accept, Operator: "ana"}); err != nil {
		t.Fatal(err)
	}
	if got := run(t, svc.NewMemorySession("later"), app.MemoryCommand{Command: "view", Path: "/memories/_any/fact/notes.md"}); !strings.HasSuffix(got, "     1\tsecond draft") {
		t.Fatalf("accepted file: %q", got)
	}
	// Deleting a file the session only proposed withdraws the proposal.
	run(t, m, app.MemoryCommand{Command: "create", Path: "/memories/scratch.md", FileText: str("temp")})
	out := run(t, m, app.MemoryCommand{Command: "delete", Path: "/memories/scratch.md"})
	if !strings.HasPrefix(out, "Successfully deleted /memories/scratch.md (withdrew prop_") || len(queued(t, svc)) != 0 {
		t.Fatalf("delete of a pending create: %q, queue %d", out, len(queued(t, svc)))
	}
}

// TestMemoryToolFaults: every refusal in the reference handler's words
// (or, where it takes what memreview cannot, in its voice), and nothing
// queued.
func TestMemoryToolFaults(t *testing.T) {
	t.Parallel()
	svc, _ := memoryBank(t)
	ctx := context.Background()
	m := svc.NewMemorySession("claude")
	run(t, m, app.MemoryCommand{Command: "create", Path: "/memories/twice.md", FileText: str("a line\nthe same line\nthe same line")})
	before := len(queued(t, svc))
	const f = "/memories/shop/relation/mem_0001.md"
	cases := []struct {
		name string
		cmd  app.MemoryCommand
		want string
	}{
		{"outside /memories", app.MemoryCommand{Command: "view", Path: "/etc/passwd"}, "Path must start with /memories, got: /etc/passwd"},
		{"dot dot", app.MemoryCommand{Command: "view", Path: "/memories/../etc/passwd"}, "Path /memories/../etc/passwd would escape /memories directory"},
		{"percent-encoded dot dot", app.MemoryCommand{Command: "create", Path: "/memories/%2e%2e/x.md", FileText: str("x")}, "Path /memories/%2e%2e/x.md would escape /memories directory"},
		{"double-encoded dot dot", app.MemoryCommand{Command: "view", Path: "/memories/shop/%252e%252e%252fsecret"}, "Path /memories/shop/%252e%252e%252fsecret would escape /memories directory"},
		{"backslash dot dot", app.MemoryCommand{Command: "view", Path: `/memories/..\..\etc`}, `Path /memories/..\..\etc would escape /memories directory`},
		{"over-long name", app.MemoryCommand{Command: "create", Path: "/memories/" + strings.Repeat("n", 256), FileText: str("x")}, "File name too long: /memories/" + strings.Repeat("n", 256)},
		{"missing", app.MemoryCommand{Command: "view", Path: "/memories/nope.md"}, "The path /memories/nope.md does not exist. Please provide a valid path."},
		{"old_str absent", app.MemoryCommand{Command: "str_replace", Path: f, OldStr: str("no such text"), NewStr: str("x")},
			"No replacement was performed, old_str `no such text` did not appear verbatim in " + f + "."},
		{"old_str twice", app.MemoryCommand{Command: "str_replace", Path: "/memories/twice.md", OldStr: str("the same line"), NewStr: str("x")},
			"No replacement was performed. Multiple occurrences of old_str `the same line` in lines: 2, 3. Please ensure it is unique"},
		{"insert past the end", app.MemoryCommand{Command: "insert", Path: f, InsertLine: num(9), InsertText: str("x")},
			"Invalid `insert_line` parameter: 9. It should be within the range [0, 3]."},
		{"insert before the start", app.MemoryCommand{Command: "insert", Path: f, InsertLine: num(-1), InsertText: str("x")},
			"Invalid `insert_line` parameter: -1. It should be within the range [0, 3]."},
		{"view_range past the end", app.MemoryCommand{Command: "view", Path: f, ViewRange: []int{1, 7}},
			"Invalid `view_range`: [1, 7]. Its second element `7` should be smaller than the number of lines in the file: `3`"},
		{"view_range start out of range", app.MemoryCommand{Command: "view", Path: f, ViewRange: []int{0, 2}},
			"Invalid `view_range`: [0, 2]. Its first element `0` should be within the range of lines of the file: [1, 3]"},
		{"view_range backwards", app.MemoryCommand{Command: "view", Path: f, ViewRange: []int{3, 2}},
			"Invalid `view_range`: [3, 2]. Its second element `2` should be larger or equal than its first `3`"},
		{"view_range on a directory", app.MemoryCommand{Command: "view", Path: "/memories/shop", ViewRange: []int{1, 2}},
			"The `view_range` parameter is not allowed when `path` points to a directory."},
		{"create over a file", app.MemoryCommand{Command: "create", Path: f, FileText: str("x")}, "File " + f + " already exists"},
		{"create over a directory", app.MemoryCommand{Command: "create", Path: "/memories/shop", FileText: str("x")}, "File /memories/shop already exists"},
		{"rename onto a file", app.MemoryCommand{Command: "rename", OldPath: f, NewPath: "/memories/shop/fact/mem_0002.md"},
			"The destination /memories/shop/fact/mem_0002.md already exists"},
		{"rename of nothing", app.MemoryCommand{Command: "rename", OldPath: "/memories/gone.md", NewPath: "/memories/new.md"}, "The path /memories/gone.md does not exist"},
		{"delete of nothing", app.MemoryCommand{Command: "delete", Path: "/memories/gone.md"}, "The path /memories/gone.md does not exist"},
		{"delete the root", app.MemoryCommand{Command: "delete", Path: "/memories"}, "Cannot delete the /memories directory itself"},
		{"1 MB file_text", app.MemoryCommand{Command: "create", Path: "/memories/big.md", FileText: str(strings.Repeat("x", 1<<20))},
			"No file was created: file_text is 1048576 bytes, over the 65536 a memory file may hold."},
		{"binary file_text", app.MemoryCommand{Command: "create", Path: "/memories/bin.md", FileText: str("ok\nPNG\x00\x01")},
			`No file was created: file_text holds binary data (\x00 at line 2, column 4); memory files hold text only.`},
		{"escape in file_text", app.MemoryCommand{Command: "create", Path: "/memories/esc.md", FileText: str("title\x1b]0;pwned\x07")},
			`No file was created: file_text holds a terminal escape or bidi control (\x1b at line 1, column 6); memory files hold plain text only.`},
		{"escape in new_str", app.MemoryCommand{Command: "str_replace", Path: f, OldStr: str("item_id"), NewStr: str("\x1b[2J")},
			`No replacement was performed: new_str holds a terminal escape or bidi control (\x1b at line 1, column 1); memory files hold plain text only.`},
		{"bidi override in insert_text", app.MemoryCommand{Command: "insert", Path: f, InsertLine: num(0), InsertText: str("a\u202eb")},
			`No insertion was performed: insert_text holds a terminal escape or bidi control (\u202e at line 1, column 2); memory files hold plain text only.`},
		{"NUL in a path", app.MemoryCommand{Command: "view", Path: "/memories/a\x00b"}, "ValueError('embedded null byte')"},
		{"missing file_text", app.MemoryCommand{Command: "create", Path: "/memories/x.md"}, "Parameter `file_text` is required for command: create"},
		{"not a category", app.MemoryCommand{Command: "create", Path: "/memories/shop/notes/x.md", FileText: str("x")},
			"The path /memories/shop/notes/x.md is not in memreview's layout: /memories/ENV/CATEGORY/NAME (ENV an environment or _any for any, CATEGORY one of fact, procedure, relation, convention, warning, strategy, recovery, optimisation), or /memories/NAME and /memories/ENV/NAME for a fact"},
		{"unknown command", app.MemoryCommand{Command: "undo_edit", Path: f}, "Unknown command: undo_edit"},
	}
	for _, c := range cases {
		_, err := m.Run(ctx, c.cmd)
		var te *app.MemoryToolError
		if !errors.As(err, &te) || te.Msg != c.want {
			t.Errorf("%s: got %v\nwant %s", c.name, err, c.want)
		}
	}
	if n := len(queued(t, svc)); n != before {
		t.Fatalf("refused commands queued %d proposals", n-before)
	}
}

func TestMemoryTextRoundTrip(t *testing.T) {
	t.Parallel()
	svc, _ := memoryBank(t)
	m := svc.NewMemorySession("claude")
	// A model's text, whatever its shape, comes back byte for byte.
	for i, text := range []string{"<xml><pref>tea</pref></xml>", "line\n\nSteps:\n1. a\n3. b", "When: is not a trigger\nalone", "ends with newline\n"} {
		p := "/memories/t" + string(rune('a'+i)) + ".md"
		run(t, m, app.MemoryCommand{Command: "create", Path: p, FileText: str(text)})
		got := run(t, m, app.MemoryCommand{Command: "view", Path: p})
		var lines []string
		for _, l := range strings.Split(strings.SplitN(got, "\n", 2)[1], "\n") {
			_, rest, _ := strings.Cut(l, "\t")
			lines = append(lines, rest)
		}
		if back := strings.Join(lines, "\n"); back != text {
			t.Errorf("%q came back as %q", text, back)
		}
	}
	// A trigger and steps written in the file's own layout become fields.
	run(t, m, app.MemoryCommand{Command: "create", Path: "/memories/shop/procedure/p.md", FileText: str("Count reviews per item.\n\nWhen: reporting\n\nSteps:\n1. join\n2. group")})
	q := queued(t, svc)
	r := q[len(q)-1].Record
	if r.Lemma != "Count reviews per item." || r.Trigger != "reporting" || len(r.Steps) != 2 || r.Steps[1] != "group" {
		t.Fatalf("parsed record: %+v", r)
	}
}
