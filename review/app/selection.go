package app

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/memreview/memreview/curator"
	"github.com/memreview/memreview/review"
)

// LLM-guided selection: before retrieval, one chat call (the curator's
// endpoint and model) reads the task and the bank's vocabulary — its
// categories, environments and tags — and answers through a tool call
// with the filters (env, tags), the categories that apply and the query
// to search with. What it proposes is checked: an env, tag or category
// the bank does not have is dropped and said. Hybrid retrieval then runs
// with what is left. Without a configured chat endpoint, or when the call
// fails, times out or answers in prose, retrieval runs as it would
// without selection and says so. Only an endpoint named in the
// environment (OPENAI_BASE_URL) or in memreview.toml [curator] base_url
// is ever called.

// Selection is what LLM-guided selection chose.
type Selection struct {
	Query      string   `json:"query"`
	Env        string   `json:"env,omitempty"`
	Tags       []string `json:"tags,omitempty"`
	Categories []string `json:"categories,omitempty"`
	// Dropped says what the model proposed that the bank does not have.
	Dropped []string `json:"dropped,omitempty"`
}

// DefaultSelectTimeout bounds the selection call.
const DefaultSelectTimeout = 10 * time.Second

// maxTags is how many of the bank's tags (the most used) the model is
// shown.
const maxTags = 200

const selectSystem = `You prepare memory retrieval for a task agent. The memory bank holds short lessons (records) from earlier tasks, each with a category, an environment and tags. Read the task and call select_memories with:
- query: a short search query (keywords and phrases) for the lessons that would help with this task;
- env: the environment the task runs in, only if it is one of the bank's environments;
- tags: tags from the bank's tag list that the task concerns (none if unsure);
- categories: the categories of lesson that would help (none for all).
Choose only from the lists given.`

// selectArgs is the tool call's arguments as the model sends them.
type selectArgs struct {
	Query      string   `json:"query"`
	Env        string   `json:"env"`
	Tags       []string `json:"tags"`
	Categories []string `json:"categories"`
}

var selectParams = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"query":      map[string]any{"type": "string", "description": "the search query"},
		"env":        map[string]any{"type": "string", "description": "one of the bank's environments, or empty"},
		"tags":       map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "description": "tags from the bank's list"},
		"categories": map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "description": "categories from the bank's list"},
	},
	"required": []string{"query"},
}

// wantSelect reports whether req asks for selection (or the bank's config
// turns it on).
func (s *Service) wantSelect(req RetrieveRequest) bool {
	if req.Select {
		return true
	}
	cfg, err := s.b.Config()
	return err == nil && cfg.Retrieval.Select
}

// selectFor runs selection for req; nil and a note when it cannot.
func (s *Service) selectFor(ctx context.Context, req RetrieveRequest) (*Selection, []string) {
	fallback := func(why string) (*Selection, []string) {
		return nil, []string{"selection: " + why + "; plain hybrid retrieval"}
	}
	cfg, err := s.b.Config()
	if err != nil {
		return fallback(err.Error())
	}
	if firstSet(os.Getenv("OPENAI_BASE_URL"), cfg.Curator.BaseURL) == "" {
		return fallback("no chat endpoint is configured (OPENAI_BASE_URL or [curator] base_url)")
	}
	timeout := DefaultSelectTimeout
	if d, err := time.ParseDuration(cfg.Retrieval.SelectTimeout); err == nil && d > 0 {
		timeout = d
	}
	envs, tags, err := s.vocabulary(cfg)
	if err != nil {
		return fallback(err.Error())
	}
	set, err := s.CuratorSettings("")
	if err != nil {
		return fallback(err.Error())
	}
	set.MaxRetries, set.HTTPTimeout = -1, timeout
	cats := make([]string, len(review.Categories))
	for i, c := range review.Categories {
		cats[i] = string(c)
	}
	user, _ := json.MarshalIndent(map[string]any{"task": cutRunes(req.Task, 8000), "categories": cats, "environments": envs, "tags": tags}, "", " ")
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	args, err := curator.NewLLM(set).CallTool(cctx, selectSystem, string(user), "select_memories",
		"Choose the filters, categories and query for this task's memory retrieval.", selectParams, "choosing what to retrieve")
	if err != nil {
		if cctx.Err() != nil {
			return fallback(fmt.Sprintf("the model did not answer within %s", timeout))
		}
		return fallback(err.Error())
	}
	var a selectArgs
	if err := json.Unmarshal([]byte(args), &a); err != nil {
		return fallback(fmt.Sprintf("the model's filter is malformed (%v)", err))
	}
	sel := &Selection{Query: strings.TrimSpace(cutRunes(a.Query, 2000))}
	if sel.Query == "" {
		sel.Query = req.Task
	}
	if e := strings.TrimSpace(a.Env); e != "" {
		if slices.Contains(envs, e) {
			sel.Env = e
		} else {
			sel.Dropped = append(sel.Dropped, fmt.Sprintf("env %q (not an environment of this bank)", e))
		}
	}
	for _, t := range a.Tags {
		if t = strings.TrimSpace(t); slices.Contains(tags, t) {
			sel.Tags = append(sel.Tags, t)
		} else if t != "" {
			sel.Dropped = append(sel.Dropped, fmt.Sprintf("tag %q (no record has it)", t))
		}
	}
	for _, c := range a.Categories {
		if c = strings.ToLower(strings.TrimSpace(c)); review.Category(c).Valid() {
			sel.Categories = append(sel.Categories, c)
		} else if c != "" {
			sel.Dropped = append(sel.Dropped, fmt.Sprintf("category %q (not a category)", c))
		}
	}
	var notes []string
	if len(sel.Dropped) > 0 {
		notes = append(notes, "selection: dropped "+strings.Join(sel.Dropped, ", "))
	}
	return sel, notes
}

// vocabulary is the bank's environments (configured, or named by a
// record) and its most used tags.
func (s *Service) vocabulary(cfg review.Config) (envs, tags []string, err error) {
	for _, e := range cfg.Envs {
		envs = append(envs, e.Name)
	}
	res, err := s.Search(SearchRequest{Type: "record", Facets: []string{"env", "tags"}, Size: 1})
	if err != nil {
		return nil, nil, err
	}
	for _, f := range res.Facets["env"] {
		if f.Term != "" && !slices.Contains(envs, f.Term) {
			envs = append(envs, f.Term)
		}
	}
	for _, f := range res.Facets["tags"] {
		if f.Term != "" && len(tags) < maxTags {
			tags = append(tags, f.Term)
		}
	}
	return envs, tags, nil
}

// apply narrows a retrieval by the selection: the caller's own scope
// stands, and the selection fills what it left open.
func (sel *Selection) apply(scope review.Scope, query string) (review.Scope, []string, string) {
	if scope.Env == "" {
		scope.Env = sel.Env
	}
	if len(scope.Tags) == 0 {
		scope.Tags = sel.Tags
	}
	if sel.Query != "" {
		query = sel.Query
	}
	return scope, sel.Categories, query
}

// cutRunes shortens s to at most n characters.
func cutRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n])
}
