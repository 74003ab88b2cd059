package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExportIntoAgentsMD: --into replaces only memreview's section of an
// AGENTS.md a person wrote, again and again, and refuses damaged markers
// naming the line, leaving the file as it was.
func TestExportIntoAgentsMD(t *testing.T) {
	bank := newCLIBank(t)
	file := filepath.Join(t.TempDir(), "AGENTS.md")
	mine := "# Our repo\n\nRun make before pushing.\n"
	if err := os.WriteFile(file, []byte(mine), 0o600); err != nil {
		t.Fatal(err)
	}
	out := must(t, mr(t, "", "--bank", bank, "export", "--format", "agents-md", "--env", "shop", "--into", file)).stdout
	if !strings.HasPrefix(out, "wrote memreview's section into "+file+": 2 records") {
		t.Fatalf("export --into: %s", out)
	}
	got, _ := os.ReadFile(file)
	if !strings.HasPrefix(string(got), mine+"\n<!-- memreview:begin") || !strings.Contains(string(got), "- prices are stored in cents <!-- mem_2 v1 -->") ||
		!strings.HasSuffix(string(got), "<!-- memreview:end -->\n") {
		t.Fatalf("AGENTS.md after export:\n%s", got)
	}
	if st, _ := os.Stat(file); st.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v, want 0600 kept", st.Mode().Perm())
	}
	// The person adds text after the section; a second export keeps it
	// and changes nothing else.
	edited := string(got) + "\n## Later notes\n- keep me\n"
	os.WriteFile(file, []byte(edited), 0o600)
	must(t, mr(t, "", "--bank", bank, "export", "--format", "agents-md", "--env", "shop", "--into", file))
	if again, _ := os.ReadFile(file); string(again) != edited {
		t.Fatalf("a second export changed the file:\n%s", again)
	}
	// Stdout gets the same section.
	stdout := must(t, mr(t, "", "--bank", bank, "export", "--format", "agents-md", "--env", "shop")).stdout
	if !strings.Contains(edited, stdout) {
		t.Fatalf("stdout section differs from the file's:\n%s", stdout)
	}
	// A duplicated begin marker: refused with the line, file unchanged.
	damaged := edited + "<!-- memreview:begin -->\n"
	os.WriteFile(file, []byte(damaged), 0o600)
	r := mr(t, "", "--bank", bank, "export", "--format", "agents-md", "--into", file)
	lines := strings.Count(damaged, "\n")
	if r.code == 0 || !strings.Contains(r.stderr, file+":"+itoa(lines)+": a second memreview begin marker (the first is on line 5)") {
		t.Fatalf("duplicate marker: exit %d\n%s", r.code, r.stderr)
	}
	if now, _ := os.ReadFile(file); string(now) != damaged {
		t.Fatal("a refused export changed the file")
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// TestImportInstructionFiles reads an AGENTS.md, a CLAUDE.md and a
// .cursor/rules folder the test writes as pending create proposals.
func TestImportInstructionFiles(t *testing.T) {
	bank := newCLIBank(t)
	dir := t.TempDir()
	agents := filepath.Join(dir, "AGENTS.md")
	os.WriteFile(agents, []byte("# Agents\n\n## Testing\n\n- Run go test ./... before committing.\n- Never skip the race detector in CI.\n"), 0o644)
	claude := filepath.Join(dir, "CLAUDE.md")
	os.WriteFile(claude, []byte("Keep answers short.\n\nCite file and line when you point at code.\n"), 0o644)
	rules := filepath.Join(dir, ".cursor", "rules")
	os.MkdirAll(rules, 0o755)
	os.WriteFile(filepath.Join(rules, "go.mdc"), []byte("---\nglobs: \"**/*.go\"\n---\n- Wrap errors with %w.\n"), 0o644)

	out := must(t, mr(t, "", "--bank", bank, "import", "memories", agents, claude, filepath.Join(dir, ".cursor"))).stdout
	for _, want := range []string{agents + " (agents-md): 2 memories", claude + " (agents-md): 2 memories", filepath.Join(rules, "go.mdc") + " (agents-md): 1 memories", "queued 5 memories"} {
		if !strings.Contains(out, want) {
			t.Errorf("import output lacks %q:\n%s", want, out)
		}
	}
	props := must(t, mr(t, "", "--bank", bank, "export", "proposals")).stdout
	if n := strings.Count(props, "\n"); n != 5 {
		t.Fatalf("%d proposals, want 5:\n%s", n, props)
	}
	if !strings.Contains(props, `"lemma":"Never skip the race detector in CI.","category":"warning","scope":{"tags":["testing"]}`) ||
		!strings.Contains(props, "(line 6, under \u201cTesting\u201d)") {
		t.Fatalf("proposals do not carry category, tag and line:\n%s", props)
	}
}
