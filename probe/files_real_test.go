package probe

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

var realFiles = filepath.Join("..", "..", "shared", "realdata", "files")

func realFilesEnv(t *testing.T) Env {
	t.Helper()
	abs, err := filepath.Abs(realFiles)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(abs); err != nil {
		needRealData(t, "real files", abs, err)
	}
	return Env{Name: "realfiles", Kind: KindFiles, Path: abs}
}

// Expected values below come from grep -n, wc, head and stat on the same
// files.
func TestFilesOnRealData(t *testing.T) {
	t.Parallel()
	env := realFilesEnv(t)
	ctx := context.Background()

	t.Run("grep -i in the airline policy", func(t *testing.T) {
		r := Run(ctx, env, `grep -i "basic economy" tau-bench-policies/airline_wiki.md`, Limits{})
		lines := fileLines(t, filepath.Join(env.Path, "tau-bench-policies", "airline_wiki.md"))
		var want strings.Builder
		for _, n := range []int{36, 44, 46, 58} { // grep -n -i "basic economy"
			fmt.Fprintf(&want, "tau-bench-policies/airline_wiki.md:%d: %s\n", n, lines[n-1])
		}
		if r.Error != "" || r.Text != want.String() {
			t.Errorf("error %q, text\n%s\nwant\n%s", r.Error, r.Text, want.String())
		}
	})
	t.Run("recursive grep counts", func(t *testing.T) {
		r := Run(ctx, env, "grep refund tau-bench-policies", Limits{})
		if r.Error != "" || strings.Count(r.Text, "\n") != 10 { // grep -rn refund | wc -l
			t.Errorf("error %q, %d lines:\n%s", r.Error, strings.Count(r.Text, "\n"), r.Text)
		}
		r = Run(ctx, env, "grep -i REFUND tau-bench-policies", Limits{})
		if r.Error != "" || strings.Count(r.Text, "\n") < 10 {
			t.Errorf("-i: error %q, %d lines", r.Error, strings.Count(r.Text, "\n"))
		}
	})
	t.Run("csv of iris", func(t *testing.T) {
		r := Run(ctx, env, "csv sklearn-datasets/iris.csv", Limits{})
		if r.Error != "" || len(r.Rows) != 150 || r.Truncated {
			t.Fatalf("error %q, %d rows, truncated %v", r.Error, len(r.Rows), r.Truncated)
		}
		if want := []string{"150", "4", "setosa", "versicolor", "virginica"}; !reflect.DeepEqual(r.Columns, want) {
			t.Errorf("header %q, want %q", r.Columns, want)
		}
		if want := []any{"5.1", "3.5", "1.4", "0.2", "0"}; !reflect.DeepEqual(r.Rows[0], want) {
			t.Errorf("first row %q, want %q", r.Rows[0], want)
		}
		if want := []any{"5.9", "3.0", "5.1", "1.8", "2"}; !reflect.DeepEqual(r.Rows[149], want) {
			t.Errorf("last row %q, want %q", r.Rows[149], want)
		}
		r = Run(ctx, env, "csv sklearn-datasets/iris.csv", Limits{MaxRows: 10})
		if !r.Truncated || len(r.Rows) != 10 {
			t.Errorf("row cap: %d rows, truncated %v", len(r.Rows), r.Truncated)
		}
	})
	t.Run("stat and ls sizes", func(t *testing.T) {
		r := Run(ctx, env, "stat tau-bench-policies/airline_wiki.md", Limits{})
		if r.Error != "" || len(r.Rows) != 1 || r.Rows[0][1] != "file" || r.Rows[0][2] != int64(6155) {
			t.Errorf("stat: error %q, rows %v", r.Error, r.Rows)
		}
		r = Run(ctx, env, "ls tau-bench-policies", Limits{})
		want := [][]any{
			{"LICENSE", "file", int64(1063)},
			{"airline_wiki.md", "file", int64(6155)},
			{"retail_wiki.md", "file", int64(5718)},
		}
		if r.Error != "" || !reflect.DeepEqual(r.Rows, want) {
			t.Errorf("ls: error %q, rows %v", r.Error, r.Rows)
		}
	})
	t.Run("read with offset and limit", func(t *testing.T) {
		b, err := os.ReadFile(filepath.Join(env.Path, "tau-bench-policies", "LICENSE"))
		if err != nil {
			t.Fatal(err)
		}
		r := Run(ctx, env, "read tau-bench-policies/LICENSE --offset 100 --limit 50", Limits{})
		if r.Error != "" || r.Text != string(b[100:150]) {
			t.Errorf("error %q, text %q", r.Error, r.Text)
		}
		r = Run(ctx, env, "read tau-bench-policies/LICENSE", Limits{})
		if r.Error != "" || r.Text != string(b) || r.Truncated {
			t.Errorf("whole file: error %q, %d bytes, truncated %v", r.Error, len(r.Text), r.Truncated)
		}
	})
}

func fileLines(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	return lines
}
