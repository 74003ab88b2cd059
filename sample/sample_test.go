package sample

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"sync"
	"testing"

	"github.com/memreview/memreview/probe"
	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/formats"
	"github.com/memreview/memreview/review/store"
	"github.com/memreview/memreview/sample/testenv"
)

var (
	worldOnce sync.Once
	worldDir  string
	worldErr  error
)

// world generates the default sample world once for the package's tests
// and returns a copy of it the caller may change.
func sampleWorld(t *testing.T) string {
	t.Helper()
	worldOnce.Do(func() {
		dir, err := os.MkdirTemp("", "memreview-sample-test-*")
		if err != nil {
			worldErr = err
			return
		}
		worldDir = filepath.Join(dir, "bank")
		worldErr = Generate(worldDir, Seed)
	})
	if worldErr != nil {
		t.Fatalf("Generate: %v", worldErr)
	}
	dst := filepath.Join(t.TempDir(), "bank")
	if err := copyTree(dst, worldDir); err != nil {
		t.Fatal(err)
	}
	return dst
}

// copyTree copies src to dst keeping modification times, which the docs
// environment's fingerprint depends on.
func copyTree(dst, src string) error {
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		return err
	}
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		return os.Chtimes(filepath.Join(dst, rel), info.ModTime(), info.ModTime())
	})
}

func TestMain(m *testing.M) {
	testenv.LessGC()
	code := m.Run()
	if worldDir != "" {
		os.RemoveAll(filepath.Dir(worldDir))
	}
	os.Exit(code)
}

func openBank(t *testing.T, dir string) *store.Store {
	t.Helper()
	s, err := store.Open(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestQueueProbesReproduce re-runs every recorded probe of the open queue:
// all reproduce except those of FailingNowProposals, which fail now.
func TestQueueProbesReproduce(t *testing.T) {
	s := openBank(t, sampleWorld(t))
	queue, err := s.Queue()
	if err != nil {
		t.Fatal(err)
	}
	var failing []string
	for _, p := range queue {
		runs, err := s.ProbeRunsFor("proposal", p.ID)
		if err != nil {
			t.Fatal(err)
		}
		if (p.Op == review.OpSkip) != (len(runs) == 0) {
			t.Errorf("%s (%s) has %d probe runs", p.ID, p.Op, len(runs))
		}
		bad := false
		for _, run := range runs {
			env, err := s.ResolveEnv(run.Result.Env)
			if err != nil {
				t.Fatalf("%s: %v", p.ID, err)
			}
			now := probe.Run(context.Background(), env, run.Result.Input, probe.Limits{})
			switch v := probe.Compare(run.Result, now); v {
			case probe.Same:
			case probe.FailsNow:
				bad = true
				t.Logf("%s fails now: %s", p.ID, now.Error)
			default:
				t.Errorf("%s: probe %q: verdict %s, want same or fails-now (now: %+v)", p.ID, run.Result.Input, v, now)
			}
		}
		if bad {
			failing = append(failing, p.ID)
		}
	}
	sort.Strings(failing)
	if !slices.Equal(failing, FailingNowProposals) {
		t.Errorf("proposals whose probes fail now: %v, want %v", failing, FailingNowProposals)
	}
}

// TestVerifyFlagsStale checks that verify flags exactly StaleRecords.
func TestVerifyFlagsStale(t *testing.T) {
	s := openBank(t, sampleWorld(t))
	results, err := s.Verify(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	flagged := map[string]bool{}
	for _, r := range results {
		if r.Verdict != probe.Same {
			flagged[r.RecordID] = true
			if r.Verdict != probe.FailsNow {
				t.Errorf("%s check %d: verdict %s, want fails-now", r.RecordID, r.Index, r.Verdict)
			}
		}
	}
	got := make([]string, 0, len(flagged))
	for id := range flagged {
		got = append(got, id)
	}
	sort.Strings(got)
	if !slices.Equal(got, StaleRecords) {
		t.Errorf("verify flagged %v, want %v", got, StaleRecords)
	}
	for _, id := range StaleRecords {
		r, err := s.Record(id)
		if err != nil {
			t.Fatal(err)
		}
		if !r.Suspect {
			t.Errorf("%s is not suspect after verify", id)
		}
	}
}

// TestDeterministic generates the world twice with one seed and compares
// the exported bank and the environments byte for byte.
func TestDeterministic(t *testing.T) {
	a := sampleWorld(t)
	b := filepath.Join(t.TempDir(), "bank")
	if err := Generate(b, Seed); err != nil {
		t.Fatal(err)
	}
	ea, eb := export(t, a), export(t, b)
	for name := range ea {
		if !bytes.Equal(ea[name], eb[name]) {
			t.Errorf("%s differs between two generations with seed %d", name, Seed)
		}
	}
	other := filepath.Join(t.TempDir(), "bank")
	if err := Generate(other, Seed+1); err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(ea[ShopPath], export(t, other)[ShopPath]) {
		t.Errorf("seeds %d and %d give the same shop.db", Seed, Seed+1)
	}
}

// export returns the bank's JSONL exports, its proposals' probe runs, and
// every environment file (with its mode and modification time).
func export(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	s := openBank(t, dir)
	out := map[string][]byte{}
	recs, err := s.Records(review.RecordFilter{})
	if err == nil {
		out["records.jsonl"] = jsonl(t, recs)
	}
	props, err2 := s.Proposals()
	if err2 == nil {
		out["proposals.jsonl"] = jsonl(t, props)
	}
	trajs, err3 := s.Trajectories()
	if err3 == nil {
		out["trajectories.jsonl"] = jsonl(t, trajs)
	}
	if err := errors.Join(err, err2, err3); err != nil {
		t.Fatal(err)
	}
	var runs []review.ProbeRun
	for _, p := range props {
		rs, err := s.ProbeRunsFor("proposal", p.ID)
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, rs...)
	}
	out["probe_runs.jsonl"] = jsonl(t, runs)
	envs := filepath.Join(dir, "envs")
	err = filepath.WalkDir(envs, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if rel != ShopPath { // the docs folder's fingerprint includes mod times
			info, err := d.Info()
			if err != nil {
				return err
			}
			data = append(data, []byte(info.Mode().String()+info.ModTime().String())...)
		}
		out[rel] = data
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func jsonl[T any](t *testing.T, items []T) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := formats.WriteJSONL(&b, items); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestGenerateIntoPathWithURICharacters keeps every database inside a
// bank directory (and a temporary directory) whose name holds URI syntax,
// and the world usable.
func TestGenerateIntoPathWithURICharacters(t *testing.T) {
	base := t.TempDir()
	tmp := filepath.Join(base, "tmp?v=1#y%41")
	if err := os.Mkdir(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", tmp)
	parent := t.TempDir()
	dir := filepath.Join(parent, "my bank?v=2#x%41")
	if err := Generate(dir, Seed); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"bank.db", ShopPath} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	for _, d := range []string{parent, base} {
		if es, _ := os.ReadDir(d); len(es) != 1 {
			t.Errorf("%d entries beside %s, want none", len(es)-1, d)
		}
	}
	if ex := export(t, dir); len(ex) == 0 {
		t.Error("the generated bank exports nothing")
	}
}
