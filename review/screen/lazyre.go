package screen

import (
	"regexp"
	"sync"
)

// lazyRE is a pattern compiled the first time it is used: a memreview
// process that never screens text (a search, a show, help) does not pay
// for compiling the screen's patterns when it starts (18 ms and 6 MB of
// package init before).
func lazyRE(pattern string) func() *regexp.Regexp {
	re := sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(pattern) })
	lazyPatterns = append(lazyPatterns, re)
	return re
}

// lazyPatterns are every lazyRE, for the test that compiles them all (a
// bad pattern panics at its first use, not at start).
var lazyPatterns []func() *regexp.Regexp
