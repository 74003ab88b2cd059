package bleveext

import (
	"os"
	"strings"
	"testing"
)

// TestPinnedVersions fails when go.mod requires another version of a
// module this package leans on the internals of: read the files that use
// it against the new version (the doc numbers, segment layouts, searcher
// contracts and file formats they assume), then move Pinned.
func TestPinnedVersions(t *testing.T) {
	b, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatalf("read go.mod: %v", err)
	}
	required := map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(strings.TrimPrefix(strings.TrimSpace(line), "require "))
		if len(f) >= 2 && strings.HasPrefix(f[1], "v") {
			required[f[0]] = f[1]
		}
	}
	for mod, want := range Pinned {
		got, ok := required[mod]
		if !ok {
			t.Errorf("go.mod does not require %s (pinned at %s)", mod, want)
			continue
		}
		if got != want {
			t.Errorf("go.mod requires %s %s; index/bleveext was checked against %s: re-check its use of that module's internals, then update Pinned", mod, got, want)
		}
	}
}
