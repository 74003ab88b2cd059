package share

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memreview/memreview/index"
	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/store"
)

// Two handles in one process stand for two processes: bolt's lock is per
// open file, so the second cannot open the index while the first holds it.

func newBank(t *testing.T, dir string) *store.Store {
	t.Helper()
	s, err := store.Create(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	put(t, s, "mem_a", "prices are stored in cents")
	return s
}

func put(t *testing.T, s *store.Store, id, lemma string) {
	t.Helper()
	if err := s.PutRecords([]review.Record{{ID: id, Lemma: lemma, Category: review.Fact, Confidence: 0.5}}, "test", "test"); err != nil {
		t.Fatal(err)
	}
}

func open(t *testing.T, s *store.Store, opt Options) *Index {
	t.Helper()
	ix, err := Open(filepath.Join(s.Dir(), store.IndexDir), s, opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	return ix
}

func hold(t *testing.T, ix *Index) {
	t.Helper()
	if _, err := ix.Hold(time.Second); err != nil {
		t.Fatal(err)
	}
}

func find(t *testing.T, ix *Index, id string, minSeq int64) uint64 {
	t.Helper()
	res, err := ix.Search(index.Request{Query: "id:" + index.EscapeQuery(id), Type: "record"}, minSeq)
	if err != nil {
		t.Fatalf("search for %s: %v", id, err)
	}
	return res.Total
}

func TestClientSearchesThroughOwnerAndTakesOver(t *testing.T) {
	t.Parallel()
	s := newBank(t, t.TempDir())
	a := open(t, s, Options{})
	if n := find(t, a, "mem_a", 0); n != 1 || !a.Owner() {
		t.Fatalf("the first handle's search found %d; owner %v", n, a.Owner())
	}
	b := open(t, s, Options{})
	if n := find(t, b, "mem_a", 0); n != 1 {
		t.Fatalf("client search found %d", n)
	}
	if b.Owner() {
		t.Fatal("a second handle took the index its owner still holds")
	}
	// The client's write is visible to its next search at once: the owner
	// catches up to the sequence the client asks for.
	put(t, s, "mem_b", "a record written by the client")
	seq, _ := s.LastSeq()
	if n := find(t, b, "mem_b", seq); n != 1 {
		t.Fatalf("a search asking for seq %d did not see the write", seq)
	}
	a.Close()
	if n := find(t, b, "mem_b", 0); n != 1 {
		t.Fatal("search after the owner left found nothing")
	}
	if !b.Owner() {
		t.Fatal("the client did not take the index over when its owner left")
	}
	if _, err := os.Stat(filepath.Join(s.Dir(), SocketName)); err != nil {
		t.Fatalf("the new owner serves no socket: %v", err)
	}
}

func TestOwnerFollowsTheChangeSequence(t *testing.T) {
	t.Parallel()
	s := newBank(t, t.TempDir())
	a := open(t, s, Options{Poll: 10 * time.Millisecond})
	hold(t, a)
	put(t, s, "mem_late", "written behind the owner's back")
	seq, _ := s.LastSeq()
	deadline := time.Now().Add(5 * time.Second)
	for a.Seq() < seq {
		if time.Now().After(deadline) {
			t.Fatalf("the owner never caught up to %d (at %d)", seq, a.Seq())
		}
		time.Sleep(5 * time.Millisecond)
	}
	if n := find(t, a, "mem_late", 0); n != 1 {
		t.Fatal("caught-up owner does not find the record")
	}
}

func TestOwnerErrorsReachTheClient(t *testing.T) {
	t.Parallel()
	s := newBank(t, t.TempDir())
	hold(t, open(t, s, Options{}))
	b := open(t, s, Options{})
	start := time.Now()
	_, err := b.Search(index.Request{Query: "nosuchfield:x"}, 0)
	if err == nil || !strings.Contains(err.Error(), "nosuchfield") {
		t.Fatalf("bad query through the owner = %v", err)
	}
	if time.Since(start) > time.Second {
		t.Fatalf("a query error was retried as if the owner were gone (%s)", time.Since(start))
	}
	n, err := b.DocCount()
	if err != nil || n == 0 {
		t.Fatalf("doc count through the owner = %d, %v", n, err)
	}
}

// A bank path too long for a unix socket address uses an abstract name.
func TestLongBankPath(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for len(dir) < 120 {
		dir = filepath.Join(dir, strings.Repeat("d", 30))
	}
	s := newBank(t, dir)
	a := open(t, s, Options{})
	hold(t, a)
	b := open(t, s, Options{})
	if !strings.HasPrefix(a.sock, "@") {
		t.Fatalf("socket %q for a long path", a.sock)
	}
	if !a.Owner() || b.Owner() || find(t, b, "mem_a", 0) != 1 {
		t.Fatal("client search through an abstract socket failed")
	}
}

func TestNoServeFailsWithoutOwner(t *testing.T) {
	t.Parallel()
	s := newBank(t, t.TempDir())
	b := open(t, s, Options{NoServe: true, Timeout: 200 * time.Millisecond})
	_, err := b.Search(index.Request{}, 0)
	if err == nil || !strings.Contains(err.Error(), "no process answers") {
		t.Fatalf("search with no owner = %v", err)
	}
}

// A live process that holds the index without answering yet (opening it,
// catching up) is waited for past Timeout; the search then succeeds.
func TestSearchWaitsForALiveHolder(t *testing.T) {
	t.Parallel()
	s := newBank(t, t.TempDir())
	raw, err := index.Open(filepath.Join(s.Dir(), store.IndexDir), s)
	if err != nil {
		t.Fatal(err)
	}
	go func() { time.Sleep(600 * time.Millisecond); raw.Close() }()
	b := open(t, s, Options{Timeout: 100 * time.Millisecond})
	if n := find(t, b, "mem_a", 0); n != 1 {
		t.Fatalf("search after the holder left found %d", n)
	}
	if !b.Owner() {
		t.Fatal("the waiting handle did not take the index over")
	}
}
