package cli

import "testing"

// TestSmallHeapGC: search runs under smallHeapGC and import under
// bulkWriteGC with bulkWriteLimit, unless GOGC (or, for the limit,
// GOMEMLIMIT) is set: the operator's wins; a command whose heap may stay
// large for long (hygiene) keeps the process's own.
func TestSmallHeapGC(t *testing.T) {
	env := func(gogc, limit string) func(string) string {
		return func(k string) string {
			switch k {
			case "GOGC":
				return gogc
			case "GOMEMLIMIT":
				return limit
			}
			return ""
		}
	}
	for _, tc := range []struct {
		cmd, gogc, limit string
		want             int
		wantLimit        int64
	}{
		{"search", "", "", smallHeapGC, 0},
		{"search", "100", "", 0, 0},
		{"search", "off", "", 0, 0},
		{"import", "", "", bulkWriteGC, bulkWriteLimit},
		{"import", "150", "", 0, 0},
		{"import", "", "1GiB", bulkWriteGC, 0},
		{"hygiene", "", "", 0, 0},
		{"export", "", "", 0, 0},
	} {
		cmd, ok := lookup(tc.cmd)
		if !ok {
			t.Fatalf("no command %q", tc.cmd)
		}
		if got := cmd.gcPercent(env(tc.gogc, tc.limit)); got != tc.want {
			t.Errorf("%s with GOGC=%q: GOGC %d, want %d (0: the process's own)", tc.cmd, tc.gogc, got, tc.want)
		}
		if got := cmd.memoryLimit(env(tc.gogc, tc.limit)); got != tc.wantLimit {
			t.Errorf("%s with GOGC=%q GOMEMLIMIT=%q: limit %d, want %d (0: the process's own)", tc.cmd, tc.gogc, tc.limit, got, tc.wantLimit)
		}
	}
}
