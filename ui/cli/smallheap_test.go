package cli

import "testing"

// TestSmallHeapGC: search runs under smallHeapGC unless GOGC is set (the
// operator's wins); a command that may hold a large heap (import, hygiene)
// keeps the process's own.
func TestSmallHeapGC(t *testing.T) {
	env := func(gogc string) func(string) string {
		return func(k string) string {
			if k == "GOGC" {
				return gogc
			}
			return ""
		}
	}
	for _, tc := range []struct {
		cmd, gogc string
		want      int
	}{
		{"search", "", smallHeapGC},
		{"search", "100", 0},
		{"search", "off", 0},
		{"import", "", 0},
		{"hygiene", "", 0},
	} {
		cmd, ok := lookup(tc.cmd)
		if !ok {
			t.Fatalf("no command %q", tc.cmd)
		}
		if got := cmd.gcPercent(env(tc.gogc)); got != tc.want {
			t.Errorf("%s with GOGC=%q: GOGC %d, want %d (0: the process's own)", tc.cmd, tc.gogc, got, tc.want)
		}
	}
}
