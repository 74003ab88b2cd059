package formats

// GenAI memory spans in traces: a search_memory span (the OpenTelemetry
// GenAI conventions' memory operation, attributes gen_ai.memory.*) says
// which records a run was given. Each becomes a retrieval of the run: its
// records join the run's retrieved list (so a record's worth counts how
// the run ended) and the report carries one retrieval-log entry per span.

import (
	"encoding/json"
	"slices"

	"github.com/memreview/memreview/review"
)

// isMemorySearch reports whether a span is a search_memory operation.
func (s *span) isMemorySearch() bool {
	return s.attr("gen_ai.operation.name") == "search_memory" || s.name == "search_memory" && s.attrs["gen_ai.memory.store.id"] != nil
}

// memoryRecords gives the ids of the records a memory span names:
// gen_ai.memory.record.id, the ids in gen_ai.memory.records (an array of
// {id, content, score}, possibly as a JSON string) and memreview's own
// memreview.record.ids, in that order, each once.
func (s *span) memoryRecords() []string {
	var ids []string
	add := func(id string) {
		if id != "" && !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	add(s.attr("gen_ai.memory.record.id"))
	if v, ok := s.attrs["gen_ai.memory.records"]; ok {
		v = unwrap(v)
		var recs []struct {
			ID any `json:"id"`
		}
		if json.Unmarshal(v, &recs) == nil {
			for _, r := range recs {
				if id, ok := r.ID.(string); ok {
					add(id)
				} else if r.ID != nil {
					b, _ := json.Marshal(r.ID)
					add(string(b))
				}
			}
		}
	}
	if a, ok := array(s.attrs["memreview.record.ids"]); ok {
		for _, v := range a {
			add(str(v))
		}
	}
	return ids
}

// memorySearch adds a search_memory span to its run: the records to the
// run's retrieved list, a retrieval-log entry to the report.
func (r *run) memorySearch(s *span) {
	ids := s.memoryRecords()
	for _, id := range ids {
		if review.CheckID(id) != nil {
			r.rep.Skip("record ids in search_memory spans that are not ids", 1)
			continue
		}
		if !slices.Contains(r.t.Retrieved, id) {
			r.t.Retrieved = append(r.t.Retrieved, id)
		}
	}
	client := "otel"
	if p := s.attr("gen_ai.provider.name"); p != "" {
		client += ":" + clip(p, 60)
	}
	query := s.attr("gen_ai.memory.query.text")
	if review.CheckText(query) != "" {
		query = clip(query, review.MaxTextBytes/2)
	}
	r.rep.Retrievals = append(r.rep.Retrievals, review.Retrieval{At: s.start, Client: client, TaskID: r.t.ID, Task: query, Records: ids})
}
