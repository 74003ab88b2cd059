package common

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestHasBidi: the byte scan finds a bidi character exactly when a rune
// by rune search does, on random mixes of bidi characters, box drawing,
// ASCII, escapes and broken UTF-8.
func TestHasBidi(t *testing.T) {
	parts := []string{"a", " ", "\x1b[38;5;245m", "─", "…", "▸", "\u061c", "\u200e", "\u200f", "\u202a", "\u202e", "\u2066", "\u2069",
		"\u2065", "\u202f", "\u200d", "\xe2", "\xe2\x80", "\xd8", "\x80", "\x8e", "é", "日"}
	r := rand.New(rand.NewPCG(1, 2))
	found := 0
	for range 20000 {
		var b strings.Builder
		for range r.IntN(6) {
			b.WriteString(parts[r.IntN(len(parts))])
		}
		s := b.String()
		want := strings.ContainsFunc(s, IsBidi)
		if hasBidi(s) != want {
			t.Fatalf("hasBidi(%q) = %v, want %v", s, !want, want)
		}
		if want {
			found++
			if hasBidi(StripBidi(s)) {
				t.Fatalf("StripBidi(%q) left a bidi character", s)
			}
		}
	}
	if found < 1000 {
		t.Fatalf("only %d of the random strings held a bidi character", found)
	}
}

// BenchmarkStripBidiFrame is StripBidi on a 200x60 frame with no bidi
// character (the root runs it on every frame), against the rune by rune
// search it replaced.
func BenchmarkStripBidiFrame(b *testing.B) {
	line := "\x1b[38;5;245m│\x1b[0m ▸ mem_000123 fact  shop  Reviews join items on fdbk_g1.ref_id = items_g1.item_id … " + strings.Repeat("─", 60)
	frame := strings.Repeat(line+"\n", 60)
	b.Run("bytes", func(b *testing.B) {
		b.SetBytes(int64(len(frame)))
		for b.Loop() {
			_ = StripBidi(frame)
		}
	})
	b.Run("runes", func(b *testing.B) {
		b.SetBytes(int64(len(frame)))
		for b.Loop() {
			_ = strings.ContainsFunc(frame, IsBidi)
		}
	})
}
