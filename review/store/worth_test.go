package store

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memreview/memreview/review"
)

func TestWorthOf(t *testing.T) {
	t.Parallel()
	day := func(d int) time.Time { return time.Date(2026, 1, d, 0, 0, 0, 0, time.UTC) }
	trs := []review.Trajectory{
		{ID: "t1", Ended: day(1), Outcome: review.Outcome{Passed: true}, Retrieved: []string{"a"}},
		{ID: "t2", Ended: day(2), Outcome: review.Outcome{Passed: false}, Retrieved: []string{"a", "b"}},
		{ID: "t3", Ended: day(3), Outcome: review.Outcome{Passed: true}},
		{ID: "t4", Ended: day(4), Outcome: review.Outcome{Passed: false}, Retrieved: []string{"a", "b"}},
		{ID: "t5", Started: day(9), Outcome: review.Outcome{Passed: true}},
	}
	w := review.WorthOf(trs)
	a, b := w["a"], w["b"]
	if a.Retrieved != 3 || a.Passed != 1 || a.BankTasks != 4 || a.BankPassed != 2 || !a.From.Equal(day(1)) || !a.To.Equal(day(4)) {
		t.Errorf("a: %+v", a)
	}
	if b.Retrieved != 2 || b.Passed != 0 || b.BankTasks != 3 || b.BankPassed != 1 || !b.MostlyFailed() {
		t.Errorf("b: %+v (mostly failed %v)", b, b.MostlyFailed())
	}
	if a.MostlyFailed() != true || a.Lift() >= 0 {
		t.Errorf("a: mostly failed %v, lift %v", a.MostlyFailed(), a.Lift())
	}
	if _, ok := w["c"]; ok || (review.Worth{}).String() != "retrieved by no task" {
		t.Errorf("a record no task retrieved: %v", w["c"])
	}
}

func TestHygieneConfig(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s, err := Create(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	write := func(body string) {
		if err := os.WriteFile(filepath.Join(dir, ConfigFile), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if c, err := s.Config(); err != nil || c.Hygiene.UnusedDays() != review.DefaultMaxUnusedDays {
		t.Errorf("no [hygiene]: %d days, %v", c.Hygiene.UnusedDays(), err)
	}
	write("[hygiene]\nmax_unused_days = 30\n")
	if c, err := s.Config(); err != nil || c.Hygiene.UnusedDays() != 30 {
		t.Errorf("max_unused_days 30: %d, %v", c.Hygiene.UnusedDays(), err)
	}
	write("[hygiene]\nmax_unused_days = -3\n")
	if _, err := s.Config(); err == nil || !strings.Contains(err.Error(), "max_unused_days") || !strings.Contains(err.Error(), ConfigFile) {
		t.Errorf("negative: %v", err)
	}
	for _, tc := range []struct {
		text string
		want int64 // bytes; -1: an error naming the field
	}{
		{"[hygiene]\n", review.DefaultHygieneMemoryLimitMB << 20},
		{"[hygiene]\nmemory_limit_mb = 1024\n", 1024 << 20},
		{"[hygiene]\nmemory_limit_mb = -1\n", 0},
		{"[hygiene]\nmemory_limit_mb = 100\n", -1},
		{"[hygiene]\nmemory_limit_mb = -7\n", -1},
	} {
		write(tc.text)
		c, err := s.Config()
		if tc.want < 0 {
			if err == nil || !strings.Contains(err.Error(), "memory_limit_mb") || !strings.Contains(err.Error(), ConfigFile) {
				t.Errorf("%q: %v, want an error naming the field and the file", tc.text, err)
			}
			continue
		}
		if err != nil || c.Hygiene.MemoryLimit() != tc.want {
			t.Errorf("%q: limit %d, %v; want %d", tc.text, c.Hygiene.MemoryLimit(), err, tc.want)
		}
	}
}
