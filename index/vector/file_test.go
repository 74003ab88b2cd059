package vector

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestSaveLoadRoundTrip(t *testing.T) {
	w := newWorld(700, 40)
	for _, rr := range []Rerank{Int8, Float32} {
		ix := w.build(t, Options{Model: "test-model", Dims: 40, Rerank: rr, Pool: 100})
		ix.Delete(w.entries[3].ID) // a free slot must not be written
		ix.SetSeq(42)
		path := filepath.Join(t.TempDir(), "vectors.idx")
		if err := ix.Save(path); err != nil {
			t.Fatal(err)
		}
		got, err := Load(path, Options{Model: "test-model", Pool: 100})
		if err != nil {
			t.Fatal(err)
		}
		if got.Len() != 699 || got.Seq() != 42 || got.Dims() != 40 || got.Model() != "test-model" || got.opt.Rerank != rr {
			t.Fatalf("%v: loaded Len %d Seq %d Dims %d Model %q rerank %v", rr, got.Len(), got.Seq(), got.Dims(), got.Model(), got.opt.Rerank)
		}
		if got.Has(w.entries[3].ID) {
			t.Errorf("%v: deleted entry came back", rr)
		}
		c := newClustered(40, 40, 7)
		for name, f := range testFilters {
			q := c.entry(1<<41, make([]float32, 40)).Vector
			a, b := mustSearch(t, ix, q, 10, f), mustSearch(t, got, q, 10, f)
			if !slices.Equal(a, b) {
				t.Errorf("%v %s: before save %v, after load %v", rr, name, a, b)
			}
		}
		// Written again, the file is the same bytes.
		var b1, b2 bytes.Buffer
		if err := ix.Write(&b1); err != nil {
			t.Fatal(err)
		}
		if err := got.Write(&b2); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b1.Bytes(), b2.Bytes()) {
			t.Errorf("%v: a loaded index writes %d bytes different from the saved %d", rr, b2.Len(), b1.Len())
		}
	}
}

func TestLoadRefusesOtherModelAndDamage(t *testing.T) {
	ix, _ := New(Options{Model: "m1", Dims: 8})
	for i := range 20 {
		v := make([]float32, 8)
		v[i%8] = 1
		v[(i+1)%8] = float32(i)
		ix.Add(Entry{ID: string(rune('a' + i)), Vector: v, Env: "e", Tags: []string{"x"}})
	}
	var buf bytes.Buffer
	if err := ix.Write(&buf); err != nil {
		t.Fatal(err)
	}
	good := buf.Bytes()
	if _, err := Read(bytes.NewReader(good), Options{Model: "m2"}); !errors.Is(err, ErrModel) {
		t.Errorf("another model: error %v, want ErrModel", err)
	}
	if _, err := Read(bytes.NewReader(good), Options{Dims: 16}); !errors.Is(err, ErrModel) {
		t.Errorf("other dims: error %v, want ErrModel", err)
	}
	// Every truncation and every flipped byte is an error, never a panic
	// nor an index with other contents.
	for n := range len(good) {
		if _, err := Read(bytes.NewReader(good[:n]), Options{}); err == nil {
			t.Fatalf("truncated at %d of %d: no error", n, len(good))
		}
		bad := slices.Clone(good)
		bad[n] ^= 0x41
		if _, err := Read(bytes.NewReader(bad), Options{}); err == nil {
			t.Fatalf("byte %d flipped: no error", n)
		}
	}
	if _, err := Read(bytes.NewReader(append(slices.Clone(good), 0)), Options{}); err == nil ||
		!strings.Contains(err.Error(), "after the end") {
		t.Errorf("trailing byte: error %v", err)
	}
	bad := slices.Clone(good)
	bad[len(good)-10] ^= 1 // inside the last entry's vector
	if _, err := Read(bytes.NewReader(bad), Options{}); err == nil || !strings.Contains(err.Error(), "damaged") {
		t.Errorf("flipped vector byte: error %v, want a checksum error", err)
	}
	// A failed save leaves the old file whole.
	dir := t.TempDir()
	path := filepath.Join(dir, "v.idx")
	if err := ix.Save(path); err != nil {
		t.Fatal(err)
	}
	if err := ix.Save(filepath.Join(dir, "missing", "v.idx")); err == nil {
		t.Error("save into a missing folder: no error")
	}
	if _, err := Load(path, Options{Model: "m1"}); err != nil {
		t.Errorf("the file saved before: %v", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("temporary files left: %v", ents)
	}
	if _, err := Load(filepath.Join(dir, "none"), Options{}); err == nil || !strings.Contains(err.Error(), "none") {
		t.Errorf("missing file: error %v", err)
	}
}
