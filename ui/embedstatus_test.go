package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/memreview/memreview/review/app"
)

// The footer carries the background embedder's status, read through the
// service: the program's first read counts the bank's active records, and
// while an embedder runs and records wait the status line says how far it
// is and why it fails; once every record has its vector the line goes.
func TestFooterShowsEmbeddingStatus(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	m := started(t, w.deps, 120, 30).(*Model)
	want, err := w.deps.Service.EmbeddingsStatus()
	if err != nil {
		t.Fatal(err)
	}
	if !m.embed.ok || m.embed.st.Active != want.Active || want.Active == 0 {
		t.Fatalf("the footer's status was not read from the service: %+v, service says %+v", m.embed, want)
	}
	last := func(v string) string {
		lines := strings.Split(ansi.Strip(v), "\n")
		return lines[len(lines)-1]
	}
	if l := last(m.View()); strings.Contains(l, "embeddings") {
		t.Fatalf("no embedder runs in this process, yet the footer says %q", l)
	}
	since := time.Date(2026, 4, 1, 10, 2, 0, 0, time.Local)
	failing := app.EmbeddingStatus{Model: "nomic-embed-text", Active: 100000, Done: 12000, Running: true, LastError: "endpoint unreachable", Since: since}
	m = drive(t, m, embedMsg{st: failing, ok: true}).(*Model)
	if l := last(m.View()); !strings.Contains(l, "embeddings: 12,000 of 100,000; endpoint unreachable since 10:02") {
		t.Fatalf("footer while embedding fails: %q", l)
	}
	done := failing
	done.Done, done.LastError, done.Since = done.Active, "", time.Time{}
	m = drive(t, m, embedMsg{st: done, ok: true}).(*Model)
	if l := last(m.View()); strings.Contains(l, "embeddings") {
		t.Fatalf("footer once every record has its vector: %q", l)
	}
}
