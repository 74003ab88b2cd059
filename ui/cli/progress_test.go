package cli

import (
	"bytes"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// The index progress line: nothing for small work, the counts with commas
// and a percentage, a last line at the end, and silence once muted.
func TestIndexProgressLine(t *testing.T) {
	var buf bytes.Buffer
	var mute atomic.Bool
	report := indexProgress(&buf, time.Hour, &mute)
	report(10, 100) // small: nothing
	report(20000, 100000)
	report(40000, 100000) // within the interval: nothing
	report(100000, 100000)
	report(100000, 100000) // the end once
	want := "memreview: building the search index: 20,000 of 100,000 (20%)\n" +
		"memreview: building the search index: 100,000 of 100,000 (100%)\n"
	if buf.String() != want {
		t.Fatalf("progress printed:\n%s\nwant:\n%s", buf.String(), want)
	}
	buf.Reset()
	mute.Store(true)
	indexProgress(&buf, 0, &mute)(50000, 100000)
	if buf.Len() != 0 {
		t.Fatalf("a muted progress line printed %q", buf.String())
	}
	if got := thousands(1234567); got != "1,234,567" || thousands(999) != "999" || !strings.Contains(thousands(-12345), "-12,345") {
		t.Fatalf("thousands: %q %q %q", got, thousands(999), thousands(-12345))
	}
}
