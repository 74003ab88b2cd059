package app

import (
	"strings"
	"testing"
)

// FuzzMemoryPath: any path the memory tool is sent is refused, or names a
// place of memreview's layout under /memories whose own path names it
// again (so a view, a create and a rename of it meet the same file), with
// no segment that climbs out; nothing panics.
func FuzzMemoryPath(f *testing.F) {
	for _, p := range []string{
		"/memories", "/memories/", "/memories/a.md", "/memories/shop/a.md", "/memories/shop/fact/a.md",
		"/memories/_any/warning/b.md", "/memories/shop/nope/c/d.md", "/memories/../etc/passwd",
		"/memories/%2e%2e/x", "/memories/%252e%252e/x", "/memories/a\\..\\b", "/memories//shop//fact//x.md",
		"/memories/./shop/./x.md", "/memoriesX/a", "/etc/passwd", "/memories/a\x00b", "/memories/\x1b[31m",
		"/memories/" + strings.Repeat("n", 300), "/memories/shop", "/memories/shop/fact",
	} {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, p string) {
		tree := newMemTree()
		at, err := tree.resolve(p)
		if err != nil {
			if _, ok := err.(*MemoryToolError); !ok {
				t.Fatalf("%q: %T %v, want a MemoryToolError the model is shown", p, err, err)
			}
			return
		}
		canon := at.String()
		if canon != MemoryRoot && !strings.HasPrefix(canon, MemoryRoot+"/") {
			t.Fatalf("%q resolves to %q, outside %s", p, canon, MemoryRoot)
		}
		for _, seg := range strings.Split(canon, "/") {
			if seg == ".." || seg == "." {
				t.Fatalf("%q resolves to %q, which holds %q", p, canon, seg)
			}
		}
		again, err := tree.resolve(canon)
		if err != nil || again != at {
			t.Fatalf("%q resolves to %q (%+v), which resolves to %+v, %v", p, canon, at, again, err)
		}
	})
}
