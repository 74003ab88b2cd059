package ui

import (
	"slices"
	"testing"

	"github.com/charmbracelet/bubbles/key"

	"github.com/memreview/memreview/ui/common"
	"github.com/memreview/memreview/ui/uitest"
)

// TestScreenKeys shows every registered screen through ui.New and checks
// its keys as the operator meets them: no key is bound by two enabled
// bindings that mean different things (the footer's, and the number keys,
// ? and q unless the screen takes typed text), and the help overlay (?)
// lists every key the footer shows.
func TestScreenKeys(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	m := started(t, w.deps, 200, 60).(*Model)
	for _, d := range Screens {
		m = drive(t, m, uitest.Key(string(rune('0'+d.ID)))).(*Model)
		s := m.screens[d.ID]
		if s == nil {
			t.Fatalf("key %d did not show %s", d.ID, d.Name)
		}
		full := [][]key.Binding{s.ShortHelp()}
		if fh, ok := s.(common.FullHelper); ok {
			full = fh.FullHelp()
		}
		listed := map[string]bool{}
		for _, g := range full {
			for _, b := range g {
				listed[b.Help().Key+" "+b.Help().Desc] = true
			}
		}
		for _, b := range s.ShortHelp() {
			if b.Enabled() && !listed[b.Help().Key+" "+b.Help().Desc] {
				t.Errorf("%s: the footer shows %q %q but ? does not list it", d.Name, b.Help().Key, b.Help().Desc)
			}
		}
		// The keys that apply now: the footer's and, unless the screen
		// takes typed text, the global ones.
		all := s.ShortHelp()
		if c, ok := s.(common.Capturer); !ok || !c.Capturing() {
			all = append(slices.Clone(all), m.keys...)
			all = append(all, m.c.Keys.Help, m.c.Keys.Quit, m.c.Keys.Errors, m.c.Keys.Hygiene)
		}
		seen := map[string]string{}
		for _, b := range all {
			if !b.Enabled() {
				continue
			}
			for _, k := range b.Keys() {
				if prev, ok := seen[k]; ok && prev != b.Help().Desc {
					t.Errorf("%s: key %q is both %q and %q", d.Name, k, prev, b.Help().Desc)
				}
				seen[k] = b.Help().Desc
			}
		}
	}
}
