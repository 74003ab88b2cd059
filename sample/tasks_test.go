package sample

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memreview/memreview/review/formats"
)

// The sample world's task set reads back as 40 tasks in order, graded by
// probes; the tasks after the drift need the names the migration changed
// and those before it do not.
func TestTaskSet(t *testing.T) {
	dir := sampleWorld(t)
	f, err := os.Open(filepath.Join(dir, TasksPath))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tasks, err := formats.ReadTasks(f, TasksPath, func(e string) bool { return e == EnvShop })
	if err != nil {
		t.Fatal(err)
	}
	if len(tasks) != 40 {
		t.Fatalf("%d tasks, want 40", len(tasks))
	}
	drifted := func(sql string) bool {
		return strings.Contains(sql, FreshG1Key) || strings.Contains(sql, FreshG2Ext) || strings.Contains(sql, FreshG2Core)
	}
	for i, tk := range tasks {
		if tk.Order != i+1 || tk.Grading.Probe == "" || tk.Env != EnvShop {
			t.Errorf("task %d: %+v", i+1, tk.Task)
		}
		if after := i >= DriftAfter; drifted(tk.Grading.Probe) != after {
			t.Errorf("task %d (%s): drifted names %v, want %v", i+1, tk.ID, drifted(tk.Grading.Probe), after)
		}
	}
}
