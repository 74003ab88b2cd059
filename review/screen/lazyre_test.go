package screen

import "testing"

func TestLazyPatternsCompile(t *testing.T) {
	if len(lazyPatterns) < 30 {
		t.Fatalf("%d lazy patterns registered; the screen has 36", len(lazyPatterns))
	}
	for i, re := range lazyPatterns {
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("pattern %d does not compile: %v", i, r)
				}
			}()
			if got := re(); got == nil || got != re() {
				t.Errorf("pattern %d: %p then %p, want one compiled regexp", i, got, re())
			}
		}()
	}
}
