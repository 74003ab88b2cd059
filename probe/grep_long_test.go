package probe

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGrepLongLines: a line longer than 1 MiB neither hides the matches
// after it nor floods the output; a match inside it is shown cut, and
// says so.
func TestGrepLongLines(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	long := strings.Repeat("x", 3<<20)
	body := "first needle\n" + long + "\nafter needle\n" + long[:1<<20] + "needle-inside" + long[:1<<20] + "\nlast needle\n"
	if err := os.WriteFile(filepath.Join(dir, "big.txt"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	env := Env{Name: "d", Kind: KindFiles, Path: dir}
	r := Run(context.Background(), env, "grep needle", Limits{})
	if r.Error != "" || r.Truncated {
		t.Fatalf("error %q truncated %v", r.Error, r.Truncated)
	}
	lines := strings.Split(strings.TrimSuffix(r.Text, "\n"), "\n")
	if len(lines) != 4 {
		t.Fatalf("%d lines, want 4: %.300q", len(lines), r.Text)
	}
	for i, want := range []string{"big.txt:1: first needle", "big.txt:3: after needle", "big.txt:4: (line of", "big.txt:5: last needle"} {
		if !strings.HasPrefix(lines[i], want) {
			t.Errorf("line %d = %.120q, want prefix %q", i+1, lines[i], want)
		}
	}
	if !strings.Contains(lines[2], "needle-inside") || len(lines[2]) > 4096 {
		t.Errorf("the long matching line: %d bytes, %.200q", len(lines[2]), lines[2])
	}
}
