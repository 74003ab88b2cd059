package app

import (
	"slices"
	"strings"
	"testing"
)

// FuzzMemoryText: whatever a model writes as a memory file reads back as
// a lemma, trigger and steps that are written as the same text, byte for
// byte; and a record whose parts memoryText can write reads back as those
// parts when its lemma (never blank in a record) holds no tail of its
// own.
func FuzzMemoryText(f *testing.F) {
	for _, s := range []string{"", "Prices are in cents.", "a\n\nWhen: b", "a\n\nSteps:\n1. x\n2. y", "a\n\nWhen: b\n\nSteps:\n1. x",
		"\n\nWhen: t", "a\n\nSteps:\n1. x\n3. y", "a\n\nWhen: b\r\n", "a\n\nSteps:\n1. \n", "x\n\nWhen: a\n\nWhen: b"} {
		f.Add(s, "trigger", "step one")
	}
	f.Fuzz(func(t *testing.T, text, trigger, step string) {
		l, tr, st := parseMemoryText(text)
		if got := memoryText(l, tr, st); got != text {
			t.Fatalf("%q reads as (%q, %q, %q), which is written %q", text, l, tr, st, got)
		}
		steps := []string{step, step + " again"}
		written := memoryText(text, trigger, steps)
		l, tr, st = parseMemoryText(written)
		if memoryText(l, tr, st) != written {
			t.Fatalf("the file of (%q, %q, %q) does not read back as itself", text, trigger, steps)
		}
		if pl, ptr, pst := parseMemoryText(text); pl == text && ptr == "" && pst == nil && written != text && strings.TrimSpace(text) != "" {
			// a lemma with no tail of its own: its record's parts come back
			if l != text || (tr != trigger && tr != "") || st != nil && !slices.Equal(st, steps) {
				t.Fatalf("(%q, %q, %q) is written %q and reads back as (%q, %q, %q)", text, trigger, steps, written, l, tr, st)
			}
		}
	})
}
