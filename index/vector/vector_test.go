package vector

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"testing"
)

// world is a small synthetic bank with the vectors kept aside, so the
// test can search it by brute force independently of the index.
type world struct {
	entries []Entry
}

func newWorld(n, dims int) world {
	c := newClustered(dims, 40, 7)
	var w world
	for i := range n {
		e := c.entry(uint64(i), make([]float32, dims))
		w.entries = append(w.entries, e)
	}
	return w
}

func (w world) build(t testing.TB, opt Options) *Index {
	t.Helper()
	ix, err := New(opt)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range w.entries {
		if err := ix.Add(e); err != nil {
			t.Fatal(err)
		}
	}
	return ix
}

// allows is the Filter's meaning written out plainly.
func allows(f Filter, e Entry) bool {
	field := func(want []string, have ...string) bool {
		if len(want) == 0 {
			return true
		}
		if len(have) == 0 {
			have = []string{""}
		}
		for _, w := range want {
			if slices.Contains(have, w) {
				return true
			}
		}
		return false
	}
	return field(f.Envs, e.Env) && field(f.Categories, e.Category) &&
		field(f.Tags, e.Tags...) && !slices.Contains(f.Exclude, e.ID)
}

func cosine(a, b []float32) float64 {
	var ab, aa, bb float64
	for i := range a {
		ab += float64(a[i]) * float64(b[i])
		aa += float64(a[i]) * float64(a[i])
		bb += float64(b[i]) * float64(b[i])
	}
	return ab / math.Sqrt(aa*bb)
}

func (w world) brute(q []float32, k int, f Filter) []Hit {
	var out []Hit
	for _, e := range w.entries {
		if allows(f, e) {
			out = append(out, Hit{ID: e.ID, Score: float32(cosine(q, e.Vector))})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score > out[j].Score
		}
		return out[i].ID < out[j].ID
	})
	return out[:min(k, len(out))]
}

func ids(hs []Hit) []string {
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = h.ID
	}
	return out
}

var testFilters = map[string]Filter{
	"none":            {},
	"env shop":        {Envs: []string{"shop"}},
	"env rare":        {Envs: []string{"rare"}},
	"env ops or none": {Envs: []string{"ops", ""}},
	"category+tag":    {Categories: []string{"warning"}, Tags: []string{"t000", "t001"}},
	"untagged":        {Tags: []string{""}},
	"no such env":     {Envs: []string{"nowhere"}},
}

// With the pool as large as the bank every search is exact: it must
// give brute force's answer, under every filter.
func TestSearchExactMatchesBruteForce(t *testing.T) {
	w := newWorld(1500, 48)
	ix := w.build(t, Options{Dims: 48, Rerank: Float32, Pool: 5000})
	c := newClustered(48, 40, 7)
	for name, f := range testFilters {
		for qi := range 5 {
			q := c.entry(1<<40+uint64(qi), make([]float32, 48)).Vector
			got, err := ix.Search(q, 10, f)
			if err != nil {
				t.Fatal(err)
			}
			want := w.brute(q, 10, f)
			if !slices.Equal(ids(got), ids(want)) {
				t.Errorf("%s, query %d: got %v, want %v", name, qi, ids(got), ids(want))
			}
			for i := range got {
				if d := math.Abs(float64(got[i].Score - want[i].Score)); d > 1e-5 {
					t.Errorf("%s: hit %d score %v, want %v", name, i, got[i].Score, want[i].Score)
				}
			}
		}
	}
}

// The bit scan with a small pool: every hit obeys the filter, scores are
// true cosines in order, and recall against brute force stays high.
// A selective filter (env rare, about 1%) still fills k hits. At 640
// dimensions the scan goes in two steps (head, then the whole).
func TestSearchBitsRerank(t *testing.T) {
	testBitsRerank(t, 4000, 256)
	testBitsRerank(t, 2500, 640)
}

func testBitsRerank(t *testing.T, n, dims int) {
	w := newWorld(n, dims)
	for _, rr := range []Rerank{Float32, Int8} {
		ix := w.build(t, Options{Dims: dims, Rerank: rr, Pool: 200, Shortlist: 4})
		if split := ix.tail.width > 0; split != (dims > 512) {
			t.Fatalf("%d dims: two-step scan %v", dims, split)
		}
		c := newClustered(dims, 40, 7)
		byID := map[string]Entry{}
		for _, e := range w.entries {
			byID[e.ID] = e
		}
		var sum float64
		var runs int
		for name, f := range testFilters {
			for qi := range 5 {
				q := c.entry(1<<40+uint64(qi), make([]float32, dims)).Vector
				got, err := ix.Search(q, 10, f)
				if err != nil {
					t.Fatal(err)
				}
				want := w.brute(q, 10, f)
				if len(got) != len(want) {
					t.Fatalf("%v %s: %d hits, brute force has %d", rr, name, len(got), len(want))
				}
				for i, h := range got {
					e := byID[h.ID]
					if !allows(f, e) {
						t.Fatalf("%v %s: hit %s breaks the filter (%+v)", rr, name, h.ID, e)
					}
					if d := math.Abs(cosine(q, e.Vector) - float64(h.Score)); d > 0.01 {
						t.Errorf("%v %s: %s score %v, cosine %v", rr, name, h.ID, h.Score, cosine(q, e.Vector))
					}
					if i > 0 && h.Score > got[i-1].Score {
						t.Errorf("%v %s: hits out of order at %d", rr, name, i)
					}
				}
				sum += recallAt(got, want)
				runs++
			}
		}
		t.Logf("%d dims, %v: recall@10 %.3f with pool 200 of %d", dims, rr, sum/float64(runs), n)
		if r := sum / float64(runs); r < 0.9 {
			t.Errorf("%d dims, %v: recall@10 %.3f with pool 200 of %d", dims, rr, r, n)
		}
		if p := ix.Explain(10, Filter{}); p.Strategy != BitsRerank || p.Pool != 200 {
			t.Errorf("plan %v, want bits+rerank of 200", p)
		}
		if p := ix.Explain(10, testFilters["env rare"]); p.Strategy != Exact {
			t.Errorf("env rare (about %d records): plan %v, want exact", n/100, p)
		}
	}
}

func TestReplaceDeleteExclude(t *testing.T) {
	w := newWorld(800, 32)
	ix := w.build(t, Options{Dims: 32, Pool: 100})
	target := w.entries[5]
	q := target.Vector
	top, _ := ix.Search(q, 1, Filter{})
	if len(top) != 1 || top[0].ID != target.ID {
		t.Fatalf("own vector: got %v, want %s", top, target.ID)
	}

	// Exclude drops it, and only it.
	got, _ := ix.Search(q, 3, Filter{Exclude: []string{target.ID}})
	if len(got) != 3 || slices.Contains(ids(got), target.ID) {
		t.Errorf("exclude: %v", ids(got))
	}

	// Replace moves the vector and the labels; the count holds.
	other := w.entries[9]
	moved := Entry{ID: target.ID, Vector: other.Vector, Env: "moved", Tags: []string{"fresh"}}
	if err := ix.Add(moved); err != nil {
		t.Fatal(err)
	}
	if ix.Len() != 800 {
		t.Errorf("Len %d after replace, want 800", ix.Len())
	}
	got, _ = ix.Search(q, 1, Filter{Envs: []string{target.Env}, Exclude: nil})
	if len(got) == 1 && got[0].ID == target.ID {
		t.Errorf("old env %q still finds the replaced entry", target.Env)
	}
	got, _ = ix.Search(other.Vector, 5, Filter{Envs: []string{"moved"}, Tags: []string{"fresh"}})
	if len(got) != 1 || got[0].ID != target.ID || got[0].Score < 0.99 {
		t.Errorf("new labels: %v", got)
	}

	// Delete: gone, the slot is reused, and the count follows.
	if !ix.Delete(target.ID) || ix.Delete(target.ID) {
		t.Error("Delete should report true once, then false")
	}
	if ix.Len() != 799 || ix.Has(target.ID) {
		t.Errorf("after delete: Len %d, Has %v", ix.Len(), ix.Has(target.ID))
	}
	got, _ = ix.Search(other.Vector, 5, Filter{Envs: []string{"moved"}})
	if len(got) != 0 {
		t.Errorf("deleted entry found: %v", got)
	}
	for _, f := range []Filter{{}, {Envs: []string{target.Env}}} {
		for _, h := range mustSearch(t, ix, other.Vector, 800, f) {
			if h.ID == target.ID {
				t.Errorf("deleted entry found under %+v", f)
			}
		}
	}
	slots := len(ix.ids)
	if err := ix.Add(Entry{ID: "new", Vector: q}); err != nil {
		t.Fatal(err)
	}
	if len(ix.ids) != slots {
		t.Errorf("freed slot not reused: %d slots, was %d", len(ix.ids), slots)
	}
	if got := mustSearch(t, ix, q, 1, Filter{}); got[0].ID != "new" {
		t.Errorf("reused slot: top hit %v", got)
	}
}

func mustSearch(t *testing.T, ix *Index, q []float32, k int, f Filter) []Hit {
	t.Helper()
	hs, err := ix.Search(q, k, f)
	if err != nil {
		t.Fatal(err)
	}
	return hs
}

func TestBadVectorsChangeNothing(t *testing.T) {
	ix, _ := New(Options{Dims: 4})
	if err := ix.Add(Entry{ID: "a", Vector: []float32{1, 0, 0, 0}, Env: "e"}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		e    Entry
		want string
	}{
		{Entry{ID: "a", Vector: []float32{1, 2}}, "2 dimensions, index holds 4"},
		{Entry{ID: "a", Vector: []float32{0, float32(math.NaN()), 0, 0}}, "value 1 of the vector is NaN"},
		{Entry{ID: "a", Vector: []float32{0, 0, float32(math.Inf(1)), 0}}, "value 2 of the vector is +Inf"},
		{Entry{ID: "a", Vector: []float32{0, 0, 0, 0}}, "no direction"},
		{Entry{Vector: []float32{1, 0, 0, 0}}, "without an id"},
	} {
		err := ix.Add(tc.e)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Add(%v): error %v, want %q", tc.e.Vector, err, tc.want)
		}
	}
	got := mustSearch(t, ix, []float32{1, 0, 0, 0}, 5, Filter{Envs: []string{"e"}})
	if ix.Len() != 1 || len(got) != 1 || got[0].ID != "a" || got[0].Score < 0.99 {
		t.Errorf("after refused adds: Len %d, hits %v", ix.Len(), got)
	}
	if _, err := ix.Search([]float32{1}, 5, Filter{}); err == nil {
		t.Error("query of the wrong length: no error")
	}
	if hs := mustSearch(t, ix, []float32{0, 0, 0, 0}, 5, Filter{}); len(hs) != 0 {
		t.Errorf("zero query found %v", hs)
	}
	if _, err := New(Options{Dims: 0}); err == nil {
		t.Error("New with 0 dims: no error")
	}
	if _, err := New(Options{Dims: 1 << 20}); err == nil {
		t.Error("New with 2^20 dims: no error")
	}
}

// Searches run while entries are added, replaced and deleted; every
// search sees a consistent index (run with -race).
func TestConcurrentSearchAndWrite(t *testing.T) {
	w := newWorld(5000, 24)
	ix := w.build(t, Options{Dims: 24, Pool: 50})
	errs := make(chan error, 4)
	for g := range 3 {
		go func() {
			for i := range 300 {
				hs, err := ix.Search(w.entries[(g*97+i)%len(w.entries)].Vector, 10, Filter{Envs: []string{"shop", ""}})
				if err != nil || len(hs) != 10 {
					errs <- fmt.Errorf("search during writes: %d hits, %v", len(hs), err)
					return
				}
			}
			errs <- nil
		}()
	}
	for i := range 1500 {
		e := w.entries[i]
		if i%3 == 0 {
			ix.Delete(e.ID)
		} else {
			e.Env = "shop"
			if err := ix.Add(e); err != nil {
				t.Fatal(err)
			}
		}
	}
	for range 3 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if ix.Len() != 5000-500 {
		t.Errorf("Len %d, want 4500", ix.Len())
	}
}
