package mcpserver

// Tool arguments are checked here, against the same JSON schema that
// tools/list publishes, and every problem is reported at once: the SDK's
// own check (mcp.AddTool) stops at the first, and a missing field hid the
// wrong ones ("missing properties: [confidence]" for a record with an
// empty lemma and category "banana"). A tool's input type may add checks
// a schema cannot say (which ops need targets); they are reported with the
// schema's.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/memreview/memreview/review"
)

// problem is one thing wrong with a tool's arguments: the field, as the
// tool's input spells it ("record.lemma", "targets[1]"), and why.
type problem struct{ field, msg string }

func (p problem) String() string {
	if p.field == "" {
		return p.msg
	}
	return fmt.Sprintf("field %q: %s", p.field, p.msg)
}

// checker is an input type with rules beyond its schema.
type checker interface{ problems() []problem }

// addTool adds a tool whose arguments are In and result Out, as mcp.AddTool
// does, except that the arguments are checked by checkArgs (every problem
// in one tool error) before h runs.
func addTool[In, Out any](m *mcp.Server, t *mcp.Tool, h mcp.ToolHandlerFor[In, Out]) {
	in, err := jsonschema.For[In](nil)
	if err != nil {
		panic(fmt.Sprintf("mcpserver: the input schema of %s: %v", t.Name, err))
	}
	refineSchema(t.Name, in)
	tt := *t
	tt.InputSchema = in
	if out, err := jsonschema.For[Out](nil); err == nil {
		tt.OutputSchema = out
	}
	m.AddTool(&tt, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var args In
		if probs := checkArgs(req.Params.Arguments, in, &args); len(probs) > 0 {
			return toolError(argsError(t.Name, probs)), nil
		}
		res, out, err := h(ctx, req, args)
		if err != nil {
			return toolError(err), nil
		}
		if res == nil {
			res = &mcp.CallToolResult{}
		}
		b, err := json.Marshal(out)
		if err != nil {
			return nil, fmt.Errorf("%s: marshal the result: %w", t.Name, err)
		}
		res.StructuredContent = json.RawMessage(b)
		if res.Content == nil {
			res.Content = []mcp.Content{&mcp.TextContent{Text: string(b)}}
		}
		return res, nil
	})
}

func toolError(err error) *mcp.CallToolResult {
	var r mcp.CallToolResult
	r.SetError(err)
	return &r
}

// argsError is one sentence listing every problem, worded as the tool's
// other refusals are.
func argsError(tool string, probs []problem) error {
	parts := make([]string, len(probs))
	for i, p := range probs {
		parts[i] = p.String()
	}
	list := strings.Join(parts, "; ")
	if len(probs) > 1 {
		list = fmt.Sprintf("%d problems: %s", len(probs), list)
	}
	switch tool {
	case ToolPropose:
		return fmt.Errorf("proposal refused: %s; nothing was queued", list)
	case ToolSubmit:
		return fmt.Errorf("trajectory refused: %s; nothing was stored", list)
	}
	return fmt.Errorf("%s refused: %s", tool, list)
}

// checkArgs decodes raw into *in and returns every problem: the schema's,
// then (when in is a checker) its own, for fields the schema found sound.
func checkArgs[In any](raw json.RawMessage, schema *jsonschema.Schema, in *In) []problem {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		raw = json.RawMessage("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return []problem{{"", "the arguments are not JSON: " + err.Error()}}
	}
	var probs []problem
	checkValue(v, schema, "", &probs)
	// Fields of the wrong type are left zero; the rest decode.
	_ = json.Unmarshal(raw, in)
	if c, ok := any(in).(checker); ok {
		for _, p := range c.problems() {
			if !slices.ContainsFunc(probs, func(q problem) bool { return within(p.field, q.field) || within(q.field, p.field) }) {
				probs = append(probs, p)
			}
		}
	}
	return probs
}

// within reports whether field is f or inside it.
func within(field, f string) bool {
	return field == f || f != "" && (strings.HasPrefix(field, f+".") || strings.HasPrefix(field, f+"["))
}

// checkValue checks v (decoded with UseNumber) against s, appending a
// problem for every field that breaks it.
func checkValue(v any, s *jsonschema.Schema, field string, out *[]problem) {
	if s == nil {
		return
	}
	add := func(format string, args ...any) { *out = append(*out, problem{field, fmt.Sprintf(format, args...)}) }
	types := s.Types
	if s.Type != "" {
		types = []string{s.Type}
	}
	if len(types) > 0 && !slices.ContainsFunc(types, func(t string) bool { return isType(v, t) }) {
		var want []string
		for _, t := range types {
			if t != "null" {
				want = append(want, article(t))
			}
		}
		add("want %s, not %s", strings.Join(want, " or "), kindOf(v))
		return
	}
	if len(s.Enum) > 0 && !slices.ContainsFunc(s.Enum, func(e any) bool { return fmt.Sprint(e) == fmt.Sprint(v) }) {
		names := make([]string, len(s.Enum))
		for i, e := range s.Enum {
			names[i] = fmt.Sprint(e)
		}
		add("%s is not one of %s", shown(v), strings.Join(names, ", "))
		return
	}
	switch v := v.(type) {
	case string:
		if s.MinLength != nil && len([]rune(v)) < *s.MinLength {
			add("is empty")
		}
	case json.Number:
		f, _ := v.Float64()
		if s.Minimum != nil && f < *s.Minimum {
			add("%s is less than %g", v, *s.Minimum)
		}
		if s.Maximum != nil && f > *s.Maximum {
			add("%s is more than %g", v, *s.Maximum)
		}
	case []any:
		for i, x := range v {
			checkValue(x, s.Items, fmt.Sprintf("%s[%d]", field, i), out)
		}
	case map[string]any:
		for _, name := range s.Required {
			if _, ok := v[name]; !ok {
				why := "missing"
				if d := s.Properties[name].Description; d != "" {
					why += " (" + d + ")"
				}
				*out = append(*out, problem{join(field, name), why})
			}
		}
		for _, name := range propertyOrder(s, v) {
			x := v[name]
			ps, known := s.Properties[name]
			if !known {
				if s.AdditionalProperties != nil && s.AdditionalProperties.Not != nil {
					*out = append(*out, problem{join(field, name), "no such field (the fields are " + strings.Join(propertyNames(s), ", ") + ")"})
				}
				continue
			}
			checkValue(x, ps, join(field, name), out)
		}
	}
}

// propertyOrder lists the keys of v: the schema's properties in their
// declared order, then the others sorted.
func propertyOrder(s *jsonschema.Schema, v map[string]any) []string {
	var names []string
	for _, n := range propertyNames(s) {
		if _, ok := v[n]; ok {
			names = append(names, n)
		}
	}
	var rest []string
	for n := range v {
		if _, ok := s.Properties[n]; !ok {
			rest = append(rest, n)
		}
	}
	sort.Strings(rest)
	return append(names, rest...)
}

func propertyNames(s *jsonschema.Schema) []string {
	names := slices.Clone(s.PropertyOrder)
	for n := range s.Properties {
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	if len(s.PropertyOrder) == 0 {
		sort.Strings(names)
	}
	return names
}

func join(field, name string) string {
	if field == "" {
		return name
	}
	return field + "." + name
}

func isType(v any, t string) bool {
	switch v := v.(type) {
	case nil:
		return t == "null"
	case bool:
		return t == "boolean"
	case string:
		return t == "string"
	case json.Number:
		if t == "number" {
			return true
		}
		_, err := v.Int64()
		return t == "integer" && err == nil
	case []any:
		return t == "array"
	case map[string]any:
		return t == "object"
	}
	return false
}

func kindOf(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case string:
		return "a string"
	case json.Number:
		return "the number " + v.String()
	case []any:
		return "an array"
	}
	return "an object"
}

func article(t string) string {
	if t == "array" || t == "object" || t == "integer" {
		return "an " + t
	}
	return "a " + t
}

// shown is a value as a message quotes it.
func shown(v any) string {
	if s, ok := v.(string); ok {
		return fmt.Sprintf("%q", s)
	}
	return fmt.Sprint(v)
}

// refineSchema adds to a tool's generated input schema what Go's types do
// not say: the ops and categories there are, the ranges of numbers, the
// fields that may not be empty.
func refineSchema(tool string, s *jsonschema.Schema) {
	prop := func(s *jsonschema.Schema, path ...string) *jsonschema.Schema {
		for _, p := range path {
			if s == nil {
				return nil
			}
			if p == "[]" {
				s = s.Items
			} else {
				s = s.Properties[p]
			}
		}
		if s == nil {
			panic(fmt.Sprintf("mcpserver: %s has no input field %s", tool, strings.Join(path, ".")))
		}
		return s
	}
	nonEmpty := func(path ...string) { prop(s, path...).MinLength = new(1) }
	between := func(lo, hi float64, path ...string) {
		p := prop(s, path...)
		p.Minimum = &lo
		if hi > lo {
			p.Maximum = &hi
		}
	}
	switch tool {
	case ToolSearch:
		between(1, MaxK, "k")
	case ToolRead:
		nonEmpty("id")
	case ToolStatus:
		nonEmpty("proposal_id")
	case ToolPropose:
		for _, o := range review.Ops {
			prop(s, "op").Enum = append(prop(s, "op").Enum, string(o))
		}
		for _, c := range review.Categories {
			prop(s, "record", "category").Enum = append(prop(s, "record", "category").Enum, string(c))
		}
		nonEmpty("targets", "[]")
		nonEmpty("record", "lemma")
		nonEmpty("record", "checks", "[]", "env")
		nonEmpty("record", "checks", "[]", "input")
		between(0, 1, "record", "confidence")
		between(1, 0, "steps", "from")
		between(1, 0, "steps", "to")
	}
}

// problems are the rules of memory_propose a schema does not say: which
// ops take targets and a record, and what may not be blank.
func (in *ProposeIn) problems() []problem {
	var out []problem
	add := func(field, format string, args ...any) {
		out = append(out, problem{field, fmt.Sprintf(format, args...)})
	}
	op := review.Op(strings.TrimSpace(in.Op))
	if m := review.CheckTargetCount(op, len(in.Targets)); m != "" {
		add("targets", "%s", m)
	}
	if needsRecord := op == review.OpCreate || op == review.OpUpdate || op == review.OpNarrow || op == review.OpMerge; needsRecord && in.Record == nil {
		add("record", "%s needs a record", op)
	}
	seen := map[string]int{}
	for i, id := range in.Targets {
		if j, dup := seen[id]; dup && id != "" {
			add(fmt.Sprintf("targets[%d]", i), "record %q is also targets[%d]", id, j)
		}
		seen[id] = i
	}
	if r := in.Record; r != nil {
		if r.Lemma != "" && strings.TrimSpace(r.Lemma) == "" {
			add("record.lemma", "is blank")
		}
		for i, c := range r.Checks {
			if c.Env != "" && strings.TrimSpace(c.Env) == "" {
				add(fmt.Sprintf("record.checks[%d].env", i), "is blank")
			}
			if c.Input != "" && strings.TrimSpace(c.Input) == "" {
				add(fmt.Sprintf("record.checks[%d].input", i), "is blank")
			}
		}
	}
	if st := in.Steps; st != nil {
		if st.To < st.From {
			add("steps", "to (%d) is before from (%d)", st.To, st.From)
		}
		if strings.TrimSpace(in.TrajectoryID) == "" {
			add("steps", "steps need the trajectory they come from (trajectory_id)")
		}
	}
	return out
}
