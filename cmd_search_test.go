package main

import "testing"

// The hit count line says when only the first hits of a huge result set
// were ranked, and how to rank them all; nothing when all were.
func TestRankedNote(t *testing.T) {
	if got := rankedNote(0); got != "" {
		t.Errorf("rankedNote(0) = %q, want nothing", got)
	}
	if got, want := rankedNote(100_000), "; best of the first 100000 ranked (--exact ranks all)"; got != want {
		t.Errorf("rankedNote(100000) = %q, want %q", got, want)
	}
}
