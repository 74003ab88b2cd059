package curator

import (
	"encoding/json"
	"sort"
	"strings"

	openai "github.com/sashabaranov/go-openai"

	"github.com/memreview/memreview/probe"
	"github.com/memreview/memreview/review"
)

// Tool names the curator declares.
const (
	ToolSearch     = "memory_search"
	ToolGet        = "memory_get"
	ToolSQL        = "sql_query"
	ToolPostgres   = "postgres_query"
	ToolFilesLs    = "files_ls"
	ToolFilesRead  = "files_read"
	ToolFilesGrep  = "files_grep"
	ToolFilesSheet = "files_sheet"
	ToolMCP        = "mcp_call"
	ToolFinish     = "finish"
)

// proposeTools maps each propose_* tool to the op it proposes.
var proposeTools = map[string]review.Op{
	"propose_create": review.OpCreate,
	"propose_update": review.OpUpdate,
	"propose_narrow": review.OpNarrow,
	"propose_merge":  review.OpMerge,
	"propose_delete": review.OpDelete,
	"propose_skip":   review.OpSkip,
}

// probeTools maps each probe tool to the environment kind it runs on.
var probeTools = map[string]probe.Kind{
	ToolSQL: probe.KindSQL, ToolPostgres: probe.KindPostgres,
	ToolFilesLs: probe.KindFiles, ToolFilesRead: probe.KindFiles, ToolFilesGrep: probe.KindFiles, ToolFilesSheet: probe.KindFiles,
	ToolMCP: probe.KindMCP,
}

// Schema helpers. Every object is strict: all properties required, no
// others allowed, as OpenAI's strict mode demands.
func obj(props map[string]any) map[string]any {
	req := make([]string, 0, len(props))
	for k := range props {
		req = append(req, k)
	}
	sort.Strings(req)
	return map[string]any{"type": "object", "additionalProperties": false, "required": req, "properties": props}
}

func str(desc string) map[string]any { return map[string]any{"type": "string", "description": desc} }

func arr(items map[string]any) map[string]any { return map[string]any{"type": "array", "items": items} }

func integer(desc string) map[string]any {
	return map[string]any{"type": "integer", "description": desc}
}

func enum(desc string, vals []string) map[string]any {
	return map[string]any{"type": "string", "description": desc, "enum": vals}
}

var stepRangeSchema = obj(map[string]any{
	"from": integer("first step, 1-based"),
	"to":   integer("last step, inclusive"),
})

func recordSchema() map[string]any {
	cats := make([]string, len(review.Categories))
	for i, c := range review.Categories {
		cats[i] = string(c)
	}
	return obj(map[string]any{
		"lemma":    str("one or two sentences: the lesson itself, with exact names"),
		"category": enum("what kind of knowledge this is", cats),
		"scope": obj(map[string]any{
			"env":         str("environment the record applies to; empty for any"),
			"tags":        arr(str("a retrieval tag")),
			"task_family": str("family of tasks it applies to; empty for any"),
		}),
		"trigger":    str("when a task agent should apply it"),
		"steps":      arr(str("one short imperative step")),
		"confidence": map[string]any{"type": "number", "minimum": 0, "maximum": 1, "description": "0..1: how sure the evidence makes you"},
	})
}

func proposeSchema(op review.Op) map[string]any {
	p := map[string]any{
		"rationale":  str("why, citing the evidence"),
		"evidence":   arr(stepRangeSchema),
		"probe_runs": arr(str("id of a probe run of this session the proposal relies on; empty: all of them")),
	}
	switch op {
	case review.OpCreate:
		p["record"] = recordSchema()
	case review.OpUpdate, review.OpNarrow, review.OpMerge:
		p["record"] = recordSchema()
		p["targets"] = arr(str("id of an existing record"))
	default:
		p["targets"] = arr(str("id of an existing record"))
	}
	return obj(p)
}

var proposeDocs = map[review.Op]string{
	review.OpCreate: "Propose a new record the trajectory's evidence supports.",
	review.OpUpdate: "Propose a corrected version of one existing record (targets: exactly that record).",
	review.OpNarrow: "Propose narrowing one existing record's scope or trigger to where the evidence holds (targets: exactly that record).",
	review.OpMerge:  "Propose folding existing near-duplicate records (targets) and this lesson into one record.",
	review.OpDelete: "Propose retiring existing records the evidence shows are wrong or stale.",
	review.OpSkip:   "Record that the trajectory warrants no change to the bank, and why.",
}

func fn(name, desc string, params map[string]any) openai.Tool {
	b, _ := json.Marshal(params)
	return openai.Tool{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
		Name: name, Description: desc, Strict: true, Parameters: json.RawMessage(b),
	}}
}

// looseFn is fn without strict mode, for a tool one of whose arguments is
// an object of any shape (mcp_call's arguments follow the MCP tool's own
// schema), which strict mode cannot declare.
func looseFn(name, desc string, params map[string]any) openai.Tool {
	t := fn(name, desc, params)
	t.Function.Strict = false
	return t
}

// declareTools returns the tools of a session: memory tools, one set of
// probe tools per environment kind in cfg when withProbes, the propose_*
// tools and finish. tools names the callable tools of each mcp
// environment (Describe), for mcp_call's description.
func declareTools(cfg review.Config, withProbes bool, tools map[string][]string) []openai.Tool {
	out := []openai.Tool{
		fn(ToolSearch, "Full-text search over the memory bank's records; returns ids, lemmas and scopes.", obj(map[string]any{
			"query": str("words to search for"), "k": integer("how many records, 1..20"),
		})),
		fn(ToolGet, "Read one record in full by id.", obj(map[string]any{"id": str("record id")})),
	}
	if withProbes {
		for _, kind := range probe.Kinds {
			names := envNames(cfg, kind)
			if len(names) > 0 {
				out = append(out, probeToolsOf(kind, enum("environment name", names), names, tools)...)
			}
		}
	}
	for _, op := range review.Ops {
		out = append(out, fn("propose_"+string(op), proposeDocs[op], proposeSchema(op)))
	}
	return append(out, fn(ToolFinish, "End the session once every lesson has a proposal (propose_skip when nothing should change).", obj(map[string]any{
		"summary": str("one sentence on what you proposed"),
	})))
}

// probeToolsOf declares the probe tools of one environment kind.
func probeToolsOf(kind probe.Kind, env map[string]any, names []string, tools map[string][]string) []openai.Tool {
	switch kind {
	case probe.KindSQL:
		return []openai.Tool{fn(ToolSQL, "Run one read-only SQL statement on a SQLite environment; rows are capped.", obj(map[string]any{
			"env": env, "sql": str("one SELECT (or PRAGMA) statement"),
		}))}
	case probe.KindPostgres:
		return []openai.Tool{fn(ToolPostgres, "Run one read-only statement on a PostgreSQL environment, in a read-only transaction with a time limit; rows are capped.", obj(map[string]any{
			"env": env, "sql": str("one SELECT, WITH … SELECT, VALUES, TABLE, EXPLAIN (without ANALYZE) or SHOW statement"),
		}))}
	case probe.KindFiles:
		return []openai.Tool{
			fn(ToolFilesLs, "List a folder of a files environment.", obj(map[string]any{
				"env": env, "path": str("folder relative to the environment root; \".\" for the root"),
			})),
			fn(ToolFilesRead, "Read part of a file of a files environment: text by bytes, or a PDF, DOCX, XLSX or PPTX document as text with page, slide and sheet markers.", obj(map[string]any{
				"env": env, "path": str("file relative to the environment root"),
				"offset": integer("text files: byte offset to start at; 0 for the start"), "limit": integer("text files: bytes to read; 0 for the cap"),
				"page":  integer("PDF or DOCX: the one page to read; 0 for all"),
				"slide": integer("PPTX: the one slide to read; 0 for all"),
				"sheet": str("XLSX: the one sheet to read; empty for all"),
			})),
			fn(ToolFilesGrep, "Search files of a files environment (documents included) for a regular expression; each match names its file and the line, page (p3:12), slide, paragraph (¶7) or cell (Q3!B7) it came from; lines are capped.", obj(map[string]any{
				"env": env, "pattern": str("regular expression"), "path": str("file or folder; \".\" for all"),
			})),
			fn(ToolFilesSheet, "Read a range of an XLSX sheet as a table: values as the file stores them, dates as dates, formulas' cached values.", obj(map[string]any{
				"env": env, "path": str("the .xlsx file relative to the environment root"),
				"sheet": str("sheet name; empty for the first sheet"), "range": str("cell range such as B2:D9; empty for the whole sheet"),
			})),
		}
	case probe.KindMCP:
		var callable []string
		for _, n := range names {
			if len(tools[n]) == 0 {
				callable = append(callable, n+": none listed")
				continue
			}
			callable = append(callable, n+": "+strings.Join(tools[n], ", "))
		}
		return []openai.Tool{looseFn(ToolMCP, "Call one read-only tool of an MCP environment's server; the brief lists each environment's callable tools with their input schemas. Results are capped.", map[string]any{
			"type": "object", "additionalProperties": false, "required": []string{"env", "tool", "arguments"},
			"properties": map[string]any{
				"env":       env,
				"tool":      str("a callable tool of that environment (" + strings.Join(callable, "; ") + ")"),
				"arguments": map[string]any{"type": "object", "description": "the tool's arguments, as its input schema asks; {} for none"},
			},
		})}
	}
	return nil
}

func envNames(cfg review.Config, kind probe.Kind) []string {
	var out []string
	for _, e := range cfg.Envs {
		if e.Kind == kind {
			out = append(out, e.Name)
		}
	}
	return out
}

// Argument shapes of the tools.
type (
	searchArgs struct {
		Query string `json:"query"`
		K     int    `json:"k"`
	}
	getArgs struct {
		ID string `json:"id"`
	}
	probeArgs struct {
		Env     string `json:"env"`
		SQL     string `json:"sql"`
		Path    string `json:"path"`
		Pattern string `json:"pattern"`
		Offset  int64  `json:"offset"`
		Limit   int64  `json:"limit"`
		Page    int    `json:"page"`
		Slide   int    `json:"slide"`
		Sheet   string `json:"sheet"`
		Range   string `json:"range"`
		Tool    string `json:"tool"`
		// Arguments are an MCP tool's: an object, or (as some models send
		// it) a string holding one.
		Arguments json.RawMessage `json:"arguments"`
	}
	recordArgs struct {
		Lemma      string          `json:"lemma"`
		Category   review.Category `json:"category"`
		Scope      review.Scope    `json:"scope"`
		Trigger    string          `json:"trigger"`
		Steps      []string        `json:"steps"`
		Confidence *float64        `json:"confidence"`
	}
	proposeArgs struct {
		Targets   []string           `json:"targets"`
		Record    *recordArgs        `json:"record"`
		Rationale string             `json:"rationale"`
		Evidence  []review.StepRange `json:"evidence"`
		ProbeRuns []string           `json:"probe_runs"`
	}
)
