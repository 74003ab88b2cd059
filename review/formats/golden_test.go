package formats

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memreview/memreview/review"
)

var update = flag.Bool("update", false, "rewrite the .golden files")

// render writes what an import gives in a stable, readable form.
func renderTrajectories(ts []review.Trajectory, rep *Report) string {
	var b strings.Builder
	fmt.Fprintf(&b, "format %s: runs %d steps %d calls %d linked %d outcomes %d\n", rep.Format, rep.Runs, rep.Steps, rep.ToolCalls, rep.Linked, rep.Outcomes)
	for _, s := range rep.SkipLines() {
		fmt.Fprintf(&b, "skipped %s\n", s)
	}
	for _, n := range rep.Notes {
		fmt.Fprintf(&b, "note %s\n", n)
	}
	for _, t := range ts {
		fmt.Fprintf(&b, "run %s model=%q task=%q started=%s ended=%s\n", t.ID, t.Model, t.Task, stampText(t.Started), stampText(t.Ended))
		fmt.Fprintf(&b, "  outcome kind=%q value=%q passed=%v reward=%v notes=%q\n", t.Outcome.Kind, t.Outcome.Value, t.Outcome.Passed, t.Outcome.Reward, t.Outcome.Notes)
		for i, s := range t.Steps {
			fmt.Fprintf(&b, "  %d %s %q", i+1, s.Role, s.Content)
			if s.ToolCallID != "" {
				fmt.Fprintf(&b, " answers=%s", s.ToolCallID)
			}
			b.WriteByte('\n')
			for _, c := range s.ToolCalls {
				fmt.Fprintf(&b, "    call id=%q %s(%s) => %q\n", c.ID, c.Name, c.Arguments, c.Result)
			}
		}
	}
	return b.String()
}

func stampText(t interface{ IsZero() bool }) string {
	if t.IsZero() {
		return "-"
	}
	return fmt.Sprint(t)
}

func renderMemories(ms []Memory, rep *Report) string {
	var b strings.Builder
	fmt.Fprintf(&b, "format %s: memories %d\n", rep.Format, rep.Memories)
	for _, s := range rep.SkipLines() {
		fmt.Fprintf(&b, "skipped %s\n", s)
	}
	for _, n := range rep.Notes {
		fmt.Fprintf(&b, "note %s\n", n)
	}
	for _, m := range ms {
		r := m.Proposal.Record
		fmt.Fprintf(&b, "line %d %s %s %q tags=%v env=%q created=%s\n  source %+v\n  rationale %q\n", m.Line, m.Proposal.Op, r.Category, r.Lemma, r.Scope.Tags, r.Scope.Env, stampText(r.Created), *r.Provenance.Source, m.Proposal.Rationale)
	}
	return b.String()
}

func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./review/formats -update to write it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from %s:\n--- got\n%s\n--- want\n%s", name, path, got, want)
	}
}

func TestGoldenTrajectories(t *testing.T) {
	for _, c := range []struct{ file, format string }{
		{"atif.json", "atif"},
		{"otlp.json", "otel"},
		{"openinference.jsonl", "otel"},
		{"langfuse.json", "langfuse"},
		{"inspect.json", "inspect-ai"},
		{"openhands.json", "openhands"},
		{"swe-agent-steps.traj", "swe-agent"},
	} {
		t.Run(c.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", c.file))
			if err != nil {
				t.Fatal(err)
			}
			ts, rep, err := ReadTrajectories(NewInput(c.file, data), nil)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Format != c.format {
				t.Fatalf("detected %s, want %s", rep.Format, c.format)
			}
			checkGolden(t, c.file, renderTrajectories(ts, rep))
		})
	}
}

func TestGoldenMemories(t *testing.T) {
	for _, c := range []struct{ file, format string }{
		{"mem0.json", "mem0"},
		{"mcp-memory.jsonl", "mcp-memory"},
		{"letta-string.af", "letta"},
	} {
		t.Run(c.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", c.file))
			if err != nil {
				t.Fatal(err)
			}
			ms, rep, err := ReadMemories(NewInput(c.file, data), nil, "shop")
			if err != nil {
				t.Fatal(err)
			}
			if rep.Format != c.format {
				t.Fatalf("detected %s, want %s", rep.Format, c.format)
			}
			checkGolden(t, c.file, renderMemories(ms, rep))
		})
	}
}
