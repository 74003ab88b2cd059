package index

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/sample"
	"github.com/memreview/memreview/sample/testenv"
)

// bulkFake is a fakeSource with the bulk reads of store.Store, counting
// its calls.
type bulkFake struct {
	*fakeSource
	bulk int
}

func (b *bulkFake) RecordsByID(ids []string) (map[string]*review.Record, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.bulk++
	out := map[string]*review.Record{}
	for _, id := range ids {
		if r, ok := b.recs[id]; ok {
			out[id] = &r
		}
	}
	return out, nil
}

func (b *bulkFake) ProposalsByID(ids []string) (map[string]*review.Proposal, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := map[string]*review.Proposal{}
	for _, id := range ids {
		if p, ok := b.props[id]; ok {
			out[id] = &p
		}
	}
	return out, nil
}

func (b *bulkFake) TrajectoriesByID(ids []string) (map[string]*review.Trajectory, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := map[string]*review.Trajectory{}
	for _, id := range ids {
		if t, ok := b.trajs[id]; ok {
			out[id] = &t
		}
	}
	return out, nil
}

// behindAndCaughtUp returns two indexes of one bank: behind holds it as
// it was before its last changes (new records, edits of indexed records
// that change what matches, deletions), caught is built after them.
func behindAndCaughtUp(t *testing.T) (behind, caught *Index, src *bulkFake, recs []review.Record, tailItems int) {
	t.Helper()
	tailFixture.once.Do(func() {
		f := &tailFixture
		f.dir, f.behind, f.caught, f.src, f.recs, f.tailItems, f.err = makeBehindAndCaughtUp()
	})
	f := &tailFixture
	if f.err != nil {
		t.Fatal(f.err)
	}
	return f.behind, f.caught, f.src, f.recs, f.tailItems
}

// tailFixture is behindAndCaughtUp's pair, made once for the package's
// tests (which only read it) and left to the process's exit.
var tailFixture struct {
	once           sync.Once
	behind, caught *Index
	src            *bulkFake
	recs           []review.Record
	tailItems      int
	indexed        int // records indexed before the tail
	dir            string
	err            error
}

func makeBehindAndCaughtUp() (dir string, behind, caught *Index, src *bulkFake, recs []review.Record, tailItems int, err error) {
	dir, err = os.MkdirTemp("", "memreview-tail-test-")
	if err != nil {
		return
	}
	src = &bulkFake{fakeSource: sampleBank()}
	n := 240 // indexed; a quarter more written after (CI: 1200)
	if testenv.CI() {
		n = 1200
	}
	recs = sample.SynthRecords(n+n/4, benchSeed)
	tailFixture.indexed = n
	src.putRecord(recs[:n]...)
	src.putRecord(phraseRecords...)
	if behind, err = Open(filepath.Join(dir, "behind"), src); err != nil {
		return
	}
	mark := len(src.log)
	src.putRecord(recs[n:]...) // new
	for i := 0; i < 40; i++ {  // 40 edits: some now match "join", some no longer match anything they did
		r := recs[i*7]
		if i%2 == 0 {
			r.Lemma = fmt.Sprintf("Edited: join orders to refunds by order_id (note %d).", i)
		} else {
			r.Lemma, r.Steps, r.Trigger = "Edited away.", nil, ""
		}
		r.Category = review.Warning
		src.putRecord(r)
	}
	for i := 0; i < 20; i++ {
		src.deleteRecord(recs[i*11+3].ID)
	}
	src.deleteRecord("mem_1")
	seen := map[string]bool{} // the new and 40 edited, the 20 and mem_1 deleted (3 of them edited first)
	for _, c := range src.log[mark:] {
		if !seen[c.ID] {
			seen[c.ID] = true
			tailItems++
		}
	}
	caught, err = Open(filepath.Join(dir, "caught"), src)
	return dir, behind, caught, src, recs, tailItems, err
}

// scoreSorted reports whether hits under sort s are ordered by score
// first, which the tail cannot merge as a caught-up index orders them.
func scoreSorted(s []string) bool { return len(s) == 0 || strings.TrimPrefix(s[0], "-") == "_score" }

// TestTailSearchEquivalent checks that a search while the index is behind
// (the last changes only in the tail) answers the comparison requests
// with the same totals, facets, hits and fragments as the caught-up
// index. Hits under a field sort are compared in order, page by page;
// hits under a score sort are compared as a set over the whole result
// (each request asked again for every hit), because the tail's documents
// are scored by BM25 over the tail alone, so their place among the
// index's hits differs (tail.Tail.Search).
func TestTailSearchEquivalent(t *testing.T) {
	t.Parallel()
	behind, caught, src, recs, tailItems := behindAndCaughtUp(t)
	// Once with every tail item indexed per search, once with all of them
	// in background chunks (of 20, so that several are searched at once).
	perSearch := behindView(t, behind, Tuning{NoChunks: true})
	inChunks := behindView(t, behind, Tuning{ChunkSize: 20})
	if err := inChunks.tail.WaitChunks(); err != nil {
		t.Fatal(err)
	}
	if n := inChunks.tail.Chunks(); n < 3 {
		t.Fatalf("%d chunks, want the tail in 3 or more", n)
	}
	for _, v := range []*Index{perSearch, inChunks} {
		compareBehind(t, v, caught, src, recs, tailItems)
	}
	if n := inChunks.tail.Chunks(); n < 3 {
		t.Fatalf("%d chunks after the searches, want them kept", n)
	}
}

// behindView is another Index on behind's bleve index, at its sequence,
// tuned by tune; its tail, chunks and caches are its own.
func behindView(t *testing.T, behind *Index, tune Tuning) *Index {
	v := newIndex(behind.dir, behind.src, tune)
	v.idx = behind.idx
	v.seq.Store(behind.seq.Load())
	t.Cleanup(func() {
		close(v.stop)
		v.tail.Close()
	})
	return v
}

func compareBehind(t *testing.T, behind, caught *Index, src *bulkFake, recs []review.Record, tailItems int) {
	t.Helper()
	reqs := append(equivalenceRequests(recs), v3Requests()...)
	reqs = append(reqs, dateRequests(recs)...)
	reqs = append(reqs,
		Request{Query: "edited", Type: "record", Facets: []string{"category"}, Sort: []string{"-updated", "_id"}, Size: 10, From: 5},
		Request{Type: "record", Sort: []string{"_id"}, From: 1190, Size: 40},
		Request{Query: "category:warning", Sort: []string{"-_id"}, Size: 25},
	)
	reads := src.reads
	found, tailHits := 0, 0
	for _, req := range reqs {
		name := fmt.Sprintf("%q type=%q filters=%v sort=%v from=%d", req.Query, req.Type, req.Filters, req.Sort, req.From)
		paged := req
		if scoreSorted(req.Sort) {
			req.From, req.Size, req.Highlight = 0, 5000, false
		}
		got, err := behind.Search(req)
		if err != nil {
			t.Fatalf("%s behind: %v", name, err)
		}
		want, err := caught.Search(req)
		if err != nil {
			t.Fatalf("%s caught up: %v", name, err)
		}
		if got.Behind == 0 || got.Direct != tailItems || got.Unsearched != 0 {
			t.Fatalf("%s: behind %d, direct %d, unsearched %d; want > 0, %d, 0", name, got.Behind, got.Direct, got.Unsearched, tailItems)
		}
		if got.Total != want.Total {
			t.Errorf("%s: total %d, want %d", name, got.Total, want.Total)
		}
		if !reflect.DeepEqual(got.Facets, want.Facets) {
			t.Errorf("%s: facets %v, want %v", name, got.Facets, want.Facets)
		}
		g, w := hitMap(got), hitMap(want)
		if scoreSorted(req.Sort) {
			if extra, missed := setDiff(g, w), setDiff(w, g); len(extra)+len(missed) > 0 {
				t.Errorf("%s: %d hits, want %d: %v too many, %v missing", name, len(g), len(w), extra, missed)
			}
		} else if !slices.Equal(hitOrder(got), hitOrder(want)) {
			t.Errorf("%s: hits %v, want %v", name, hitOrder(got), hitOrder(want))
		}
		if scoreSorted(req.Sort) && paged.Highlight { // the fragments of the hits both pages hold
			pg, err1 := behind.Search(paged)
			pw, err2 := caught.Search(paged)
			if err1 != nil || err2 != nil {
				t.Fatal(err1, err2)
			}
			g, w = hitMap(pg), hitMap(pw)
		}
		for id, frags := range w {
			if gf, ok := g[id]; ok && !reflect.DeepEqual(gf, frags) {
				t.Errorf("%s: %s fragments %v, want %v", name, id, gf, frags)
			}
		}
		found += len(want.Hits)
		for _, h := range got.Hits {
			if h.Type == "record" && src.recs[h.ID].Lemma != "" && isTail(h.ID, recs) {
				tailHits++
			}
		}
	}
	if found == 0 || tailHits == 0 {
		t.Fatalf("the requests found %d hits, %d from the tail; they test little", found, tailHits)
	}
	if src.reads != reads {
		t.Errorf("the tail was read with %d single-item reads, want 0 (bulk reads only)", src.reads-reads)
	}
}

// isTail reports whether id was written after the behind index was opened.
func isTail(id string, recs []review.Record) bool {
	for i, r := range recs {
		if r.ID == id {
			return i >= tailFixture.indexed || i%7 == 0
		}
	}
	return false
}

func hitMap(res *Results) map[string][]string {
	out := map[string][]string{}
	for _, h := range res.Hits {
		var frags []string
		for f, fs := range h.Fragments {
			for _, s := range fs {
				frags = append(frags, f+": "+s)
			}
		}
		slices.Sort(frags)
		out[h.Type+"/"+h.ID] = frags
	}
	return out
}

func hitOrder(res *Results) []string {
	var out []string
	for _, h := range res.Hits {
		out = append(out, h.Type+"/"+h.ID)
	}
	return out
}

// setDiff lists the keys of a that b lacks, at most 10.
func setDiff[V any](a, b map[string]V) []string {
	var out []string
	for k := range a {
		if _, ok := b[k]; !ok && len(out) < 10 {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// TestTailStaleAndDeleted checks that an edited record is found in its new
// version only and a deleted one not at all while the index is behind,
// and that Retrieve does the same.
func TestTailStaleAndDeleted(t *testing.T) {
	t.Parallel()
	behind, caught, src, recs, _ := behindAndCaughtUp(t)
	edited, away, deleted := recs[0], recs[7], recs[3]
	res, err := behind.Search(Request{Query: "id:" + edited.ID, Type: "record"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Total != 1 || len(res.Hits) != 1 {
		t.Fatalf("id:%s: total %d, hits %v; want it once", edited.ID, res.Total, ids(res))
	}
	// What the edit took away is not found through the stale version.
	words := 0
	for _, w := range strings.Fields(strings.ToLower(recs[7].Lemma)) {
		if w = strings.Trim(w, ".,;:()'\""); len(w) < 5 || !isWord(w) {
			continue
		}
		req := Request{Query: fmt.Sprintf("+id:%s +%s", away.ID, w), Type: "record"}
		stale, err1 := behind.search(req, noCache) // the index alone
		now, err2 := caught.Search(req)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if stale.Total != 1 || now.Total != 0 { // a stop word, or a word the record still has
			continue
		}
		words++
		res, err := behind.Search(req)
		if err != nil {
			t.Fatal(err)
		}
		if res.Total != 0 {
			t.Errorf("%s is found by %q, a word only its stale version has", away.ID, w)
		}
	}
	if words == 0 {
		t.Fatalf("no word of %q to look for", recs[7].Lemma)
	}
	for _, q := range []string{"id:" + deleted.ID, "id:mem_1", `"fdbk_g1.ref_id"`} {
		res, err := behind.Search(Request{Query: q})
		if err != nil {
			t.Fatal(err)
		}
		if res.Total != 0 {
			t.Errorf("%s finds the deleted record: %v", q, ids(res))
		}
	}
	got, err := behind.Retrieve("join orders to refunds by order_id", review.Scope{}, 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) == 0 || !slices.ContainsFunc(recs[:280], func(r review.Record) bool {
		return r.ID == got[0].ID && strings.HasPrefix(src.recs[r.ID].Lemma, "Edited: join")
	}) {
		t.Fatalf("Retrieve of the edits' words = %v, want an edited record first", got)
	}
	for _, s := range got {
		if s.ID == deleted.ID || s.ID == "mem_1" {
			t.Errorf("Retrieve gives the deleted %s", s.ID)
		}
	}
	got, err = behind.Retrieve("reviews join items fdbk_g1", review.Scope{Env: "shop"}, 5)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range got {
		if s.ID == "mem_1" {
			t.Errorf("Retrieve gives the deleted mem_1: %v", got)
		}
	}
}

func isWord(w string) bool {
	for _, r := range w {
		if (r < 'a' || r > 'z') && r != '_' {
			return false
		}
	}
	return true
}

func TestMain(m *testing.M) {
	testenv.LessGC()
	code := m.Run()
	if f := &tailFixture; f.dir != "" {
		if f.behind != nil {
			f.behind.Close()
		}
		if f.caught != nil {
			f.caught.Close()
		}
		os.RemoveAll(f.dir)
	}
	os.Exit(code)
}

// TestTailChunksStale checks the background chunks: an item changed or
// deleted after its chunk was built is found in its new version only, and
// the chunks go once the index catches up.
func TestTailChunksStale(t *testing.T) {
	t.Parallel()
	src := &bulkFake{fakeSource: sampleBank()}
	ix, err := OpenWith(filepath.Join(t.TempDir(), "index"), src, OpenOptions{Tuning: Tuning{ChunkSize: 10}})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	var rs []review.Record
	for i := range 30 {
		rs = append(rs, review.Record{ID: fmt.Sprintf("chunky_%02d", i), Lemma: fmt.Sprintf("a chunky note, number %d", i), Category: review.Fact})
	}
	src.putRecord(rs...)
	if err := ix.tail.WaitChunks(); err != nil {
		t.Fatal(err)
	}
	if n := ix.tail.Chunks(); n != 3 {
		t.Fatalf("%d chunks, want 3", n)
	}
	r := rs[5]
	r.Lemma = "rewritten: a walrus"
	src.putRecord(r)
	src.deleteRecord("chunky_07")
	search := func(q string) *Results {
		t.Helper()
		res, err := ix.Search(Request{Query: q, Size: 50})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	if res := search("walrus"); !slices.Equal(ids(res), recs("chunky_05")) {
		t.Errorf("walrus: %v, want chunky_05 in its new version", ids(res))
	}
	before := search("chunky note")
	if slices.Contains(ids(before), "record/chunky_07") || before.Behind == 0 {
		t.Errorf("chunky note: hits %v (behind %d) hold the deleted chunky_07", ids(before), before.Behind)
	}
	if res := search("id:chunky_07"); res.Total != 0 {
		t.Errorf("the deleted chunky_07 is found")
	}
	if err := ix.Sync(); err != nil {
		t.Fatal(err)
	}
	after := search("chunky note")
	if after.Behind != 0 || after.Total != before.Total || !slices.Equal(ids(after), ids(before)) || after.Total != 28 {
		t.Errorf("caught up: total %d, hits %v; behind: total %d, hits %v; want the same, 28 (no chunky_05, rewritten, nor chunky_07, deleted)", after.Total, ids(after), before.Total, ids(before))
	}
	if n := ix.tail.Chunks(); n != 0 {
		t.Errorf("%d chunks kept after the catch-up", n)
	}
}

// TestBackgroundOpen opens a missing index with OpenOptions.Background:
// the open returns at once, a search finds the last item from the bank
// while the build is held at its first batch, a Close during the build
// stops it (leaving only index.new), and the next open builds again and
// catches up with everything.
func TestBackgroundOpen(t *testing.T) {
	t.Parallel()
	src := sampleBank()
	const n = batchSize + 100 // two batches
	src.putRecord(bulkRecords("bg", n)...)
	dir := filepath.Join(t.TempDir(), "index")
	held, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	ix, err := OpenWith(dir, src, OpenOptions{Background: true, Progress: func(done, total int) {
		once.Do(func() { close(held); <-release })
	}})
	if err != nil {
		t.Fatal(err)
	}
	<-held // the build has written its first batch, and waits
	res, err := ix.Search(Request{Query: fmt.Sprintf("id:bg_%05d", n-1)})
	if err != nil {
		t.Fatal(err)
	}
	if res.Total != 1 || res.Behind == 0 || res.Direct == 0 || !ix.CatchingUp() {
		t.Fatalf("during the build: total %d, behind %d, direct %d; want 1 from the bank while behind", res.Total, res.Behind, res.Direct)
	}
	closed := make(chan error)
	go func() { closed <- ix.Close() }()
	for !ix.stopped() {
		time.Sleep(time.Millisecond)
	}
	close(release) // the build goes on to its next batch, and stops there
	if err := <-closed; err != nil {
		t.Fatal(err)
	}
	if ix.CatchingUp() {
		t.Fatal("the build still runs after Close")
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("the stopped build swapped in an index: %v", err)
	}
	ix, err = OpenWith(dir, src, OpenOptions{Background: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	ix.WaitCatchUp()
	res, err = ix.Search(Request{Query: "bulk", Type: "record", Size: 0})
	if err != nil {
		t.Fatal(err)
	}
	if res.Behind != 0 || res.Direct != 0 || res.Total != n {
		t.Fatalf("after the catch-up: total %d, behind %d, direct %d; want %d, 0, 0", res.Total, res.Behind, res.Direct, n)
	}
}
