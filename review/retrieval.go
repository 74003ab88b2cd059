package review

import (
	"time"
)

// Retrieval is one retrieval call a task agent made: who asked (Client, a
// name such as "cli" or an MCP client's), for which task, and the records
// it was given, best first.
type Retrieval struct {
	Seq    int64     `json:"seq,omitempty"` // assigned by the store, ascending
	At     time.Time `json:"at"`
	Client string    `json:"client,omitempty"`
	TaskID string    `json:"task_id,omitempty"`
	// Session is the MCP session that asked ("" outside one): its task_id
	// links only to a run the same session submits.
	Session string   `json:"session,omitempty"`
	Task    string   `json:"task"`
	Records []string `json:"records"`
}
