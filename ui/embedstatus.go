package ui

import (
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/memreview/memreview/review/app"
	"github.com/memreview/memreview/ui/common"
)

// While this process embeds records in the background (the service's
// embedder, app.Options.BackgroundEmbedding), the footer's status line
// says how far it has come and why it fails when it does ("embeddings:
// 12,000 of 100,000; endpoint unreachable since 10:02"). The root asks
// the service every embedPoll.

const embedPoll = 2 * time.Second

// embedState is the latest embedding status the service gave.
type embedState struct {
	st app.EmbeddingStatus
	ok bool
}

// embedMsg is one status read; embedTick asks for the next.
type (
	embedMsg struct {
		st app.EmbeddingStatus
		ok bool
	}
	embedTick struct{}
)

// pollEmbeddings reads the status in a Cmd (a count over the bank).
func (m *Model) pollEmbeddings() tea.Cmd {
	svc := m.deps.Service
	if svc == nil {
		return nil
	}
	return func() tea.Msg {
		st, err := svc.EmbeddingsStatus()
		return embedMsg{st: st, ok: err == nil}
	}
}

func (m *Model) embedUpdate(msg embedMsg) tea.Cmd {
	m.embed = embedState(msg)
	return common.Heartbeat(embedPoll, embedTick{})
}

// showing reports whether the footer should carry the status: an
// embedder runs here and records wait for a vector or embedding fails.
func (e embedState) showing() bool { return e.ok && e.st.Running && e.st.Busy() }

// line is the footer's status line.
func (e embedState) line() string { return e.st.String() }
