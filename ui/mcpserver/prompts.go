package mcpserver

// Prompts and completions: recall (a task in, the bank's guidelines for it
// out) and propose_lesson (a template that asks the model for a
// well-formed memory_propose), and completions for the ids, environments
// and tags their arguments and the resource templates take.

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/app"
)

// Prompt names.
const (
	PromptRecall  = "recall"
	PromptPropose = "propose_lesson"
)

// CompletionService is a Service that can complete argument values.
type CompletionService interface {
	// Complete returns up to limit values of kind (app.CompleteRecord,
	// CompleteProposal, CompleteTrajectory, CompleteEnv, CompleteTag)
	// that start with prefix, and how many there are.
	Complete(ctx context.Context, kind, prefix string, limit int) ([]string, int, error)
}

func (b appService) Complete(_ context.Context, kind, prefix string, limit int) ([]string, int, error) {
	return b.s.Complete(kind, prefix, limit)
}

// addPrompts offers recall on a server that reads and propose_lesson on
// one that proposes.
func (s *Server) addPrompts(m *mcp.Server, read, write bool) {
	if read {
		m.AddPrompt(&mcp.Prompt{Name: PromptRecall, Title: "Recall what the bank knows",
			Description: "The memory bank's reviewed guidelines for a task: the records memory_search would give, as a list to follow.",
			Arguments: []*mcp.PromptArgument{
				{Name: "task", Description: "the task you are about to work on", Required: true},
				{Name: "env", Description: "the environment it runs in (a database or folder name)"},
				{Name: "tags", Description: "the task's tags, comma-separated"},
				{Name: "task_id", Description: "an id for the task, to link the records to the run you submit later"},
			}}, s.recall)
	}
	if !write {
		return
	}
	m.AddPrompt(&mcp.Prompt{Name: PromptPropose, Title: "Propose a lesson",
		Description: "A template that asks for one well-formed memory_propose call: a concise, scoped, checkable lesson from a finished run.",
		Arguments: []*mcp.PromptArgument{
			{Name: "lesson", Description: "what you learned, in your own words (optional)"},
			{Name: "trajectory_id", Description: "the run it comes from, as trajectory_submit returned it"},
			{Name: "env", Description: "the environment it applies to"},
		}}, s.proposeLesson)
}

// promptTags splits a comma-separated tags argument.
func promptTags(s string) []string {
	var out []string
	for _, t := range strings.Split(s, ",") {
		if t = strings.TrimSpace(t); t != "" {
			out = append(out, t)
		}
	}
	return out
}

func (s *Server) recall(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	args := req.Params.Arguments
	task := strings.TrimSpace(args["task"])
	if task == "" {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "recall: argument \"task\" is required: the task you are about to work on"}
	}
	hits, err := s.bank.Retrieve(ctx, RetrieveRequest{Query: task, Env: strings.TrimSpace(args["env"]), Tags: promptTags(args["tags"]),
		K: DefaultK, Client: clientName(req.Session), TaskID: strings.TrimSpace(args["task_id"])})
	if err != nil {
		return nil, fmt.Errorf("recall: the bank could not be searched: %w", err)
	}
	for _, h := range hits {
		s.saw(req.Session, h.Record.ID, h.Record.Version)
	}
	return &mcp.GetPromptResult{Description: fmt.Sprintf("%d reviewed records for the task", len(hits)),
		Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: guidelines(task, hits)}}}}, nil
}

// guidelines renders retrieved records for a model to follow: the
// guidelines section (review.RenderGuidelines, as retrieve --format
// guidelines gives it), then the task.
func guidelines(task string, hits []app.Retrieved) string {
	recs := make([]review.Record, len(hits))
	for i, h := range hits {
		recs[i] = h.Record
	}
	return review.RenderGuidelines(recs, review.GuidelineOptions{}).Text + "\nTask: " + task + "\n"
}

func (s *Server) proposeLesson(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	args := req.Params.Arguments
	var b strings.Builder
	b.WriteString("Propose one lesson from the run you just finished for the team's memory bank, by calling memory_propose once.\n\n")
	if l := strings.TrimSpace(args["lesson"]); l != "" {
		fmt.Fprintf(&b, "The lesson, as you first put it: %s\n\n", l)
	}
	b.WriteString(`First call memory_search with the lesson's words: if a record already says it, propose "update" or "narrow" with that record as the one target instead of a new record; if nothing should change, propose "skip".

A well-formed proposal:
- record.lemma: one or two sentences stating the lesson as a fact or an instruction another agent can act on; name the tables, fields, files or tools it is about; no narration of what you did.
- record.category: one of ` + categoryList() + `.
- record.scope: env (the environment it holds in) and tags (the tables, tools or topics), as narrow as the evidence is.
- record.trigger: when it applies, in a few words.
- record.steps: short imperative steps, only when the lesson is a procedure.
- record.confidence: 0 to 1, how sure the run makes you; lower when it rests on one observation.
- record.checks: a read-only probe (an SQL SELECT, or ls/read/grep) whose result would show the lesson still holds, when there is one.
- rationale: what you observed that shows it, citing the step numbers.
`)
	if t := strings.TrimSpace(args["trajectory_id"]); t != "" {
		fmt.Fprintf(&b, "- trajectory_id: %s, with steps {from, to} the steps that show it.\n", t)
	} else {
		b.WriteString("- trajectory_id and steps: submit the run with trajectory_submit first, then cite its id and the steps that show the lesson.\n")
	}
	if e := strings.TrimSpace(args["env"]); e != "" {
		fmt.Fprintf(&b, "\nThe lesson applies in environment %s: set record.scope.env to it.\n", e)
	}
	b.WriteString("\nThe proposal is reviewed by a person before it enters the bank; poll proposal_status with the id it returns.\n")
	return &mcp.GetPromptResult{Description: "a template for one memory_propose call",
		Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: b.String()}}}}, nil
}

func categoryList() string {
	names := make([]string, len(review.Categories))
	for i, c := range review.Categories {
		names[i] = string(c)
	}
	return strings.Join(names, ", ")
}

// maxCompletions is the most values one completion returns (the
// protocol's cap).
const maxCompletions = 100

// complete answers completion/complete for the prompts' arguments and the
// resource templates' {id}. An argument without completions gets none; a
// prompt or template the server does not have is an invalid-params error.
func (s *Server) complete(ctx context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	p := req.Params
	if p.Ref == nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "completion: missing ref"}
	}
	kind := ""
	switch p.Ref.Type {
	case "ref/prompt":
		switch p.Ref.Name {
		case PromptRecall, PromptPropose:
		default:
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("completion: no prompt %q", p.Ref.Name)}
		}
		kind = map[string]string{"env": app.CompleteEnv, "tags": app.CompleteTag, "trajectory_id": app.CompleteTrajectory, "task_id": app.CompleteTrajectory}[p.Argument.Name]
	case "ref/resource":
		switch p.Ref.URI {
		case RecordURI + "{id}":
			kind = app.CompleteRecord
		case ProposalURI + "{id}":
			kind = app.CompleteProposal
		default:
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("completion: no resource template %q", p.Ref.URI)}
		}
		if p.Argument.Name != "id" {
			kind = ""
		}
	}
	cb, ok := s.bank.(CompletionService)
	if kind == "" || !ok {
		return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{}}}, nil
	}
	value, head := p.Argument.Value, ""
	if kind == app.CompleteTag { // complete the last of a comma-separated list
		if i := strings.LastIndexByte(value, ','); i >= 0 {
			rest := strings.TrimLeft(value[i+1:], " ")
			head, value = value[:len(value)-len(rest)], rest
		}
	}
	vals, total, err := cb.Complete(ctx, kind, value, maxCompletions)
	if err != nil {
		return nil, fmt.Errorf("completion: %w", err)
	}
	if who := principalOf(req.Extra); !who.Can(review.ScopeRead) || who.scoped() {
		vals, total = s.visibleCompletions(ctx, who, kind, vals)
	}
	for i := range vals {
		vals[i] = head + vals[i]
	}
	return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: nonNilStrings(vals), Total: total, HasMore: total > len(vals)}}, nil
}

func nonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// visibleCompletions keeps the completions a principal limited to some
// environments or tags (or without the read scope) may see: ids of the
// records and proposals it can read, its own environments and tags, and
// no trajectory ids (runs carry no scope it could be checked against).
func (s *Server) visibleCompletions(ctx context.Context, who *Principal, kind string, vals []string) ([]string, int) {
	if !who.Can(review.ScopeRead) {
		return nil, 0
	}
	var out []string
	for _, v := range vals {
		ok := false
		switch kind {
		case app.CompleteRecord:
			ok = s.uriVisible(ctx, who, RecordURI+v)
		case app.CompleteProposal:
			ok = s.uriVisible(ctx, who, ProposalURI+v)
		case app.CompleteEnv:
			ok = v != "" && who.EnvAllowed(v)
		case app.CompleteTag:
			ok = len(who.Tags) == 0 || slices.Contains(who.Tags, v)
		}
		if ok {
			out = append(out, v)
		}
	}
	return out, len(out)
}
