package formats

// mem0 exports: a JSON array (or {"results": […]}, or {"memories": […]},
// or one per line) of {id, memory, user_id | agent_id | run_id, metadata,
// categories, created_at, updated_at, expiration_date}.

import (
	"errors"
	"fmt"
	"strings"
)

func init() {
	register(&Format{Name: "mem0", Kind: Memories,
		About: "mem0 exports: {id, memory, user_id/agent_id, categories, created_at, …} as an array, {results: […]} or lines",
		fits:  fitsMem0, memories: readMem0})
}

func mem0List(in *Input) ([]rawValue, []int64, string, bool) {
	sh := in.getShape()
	switch sh.kind {
	case "array":
		if sh.keys["memory"] {
			elems, offs, err := arrayElems(in, in.data())
			return elems, offs, "", err == nil
		}
	case "object":
		for _, k := range []string{"results", "memories"} {
			a, ok := array(sh.obj[k])
			if !ok || len(a) == 0 {
				continue
			}
			if o, ok := object(a[0]); ok && o["memory"] != nil {
				return a, nil, k, true
			}
		}
	}
	return nil, nil, "", false
}

func fitsMem0(in *Input) error {
	sh := in.getShape()
	if sh.kind == "lines" && sh.keys["memory"] {
		return nil
	}
	if _, _, _, ok := mem0List(in); ok {
		return nil
	}
	return errors.New("no list of objects with \"memory\" (an array, or under results or memories)")
}

func readMem0(in *Input, rep *Report) ([]Memory, error) {
	type item struct {
		raw  rawValue
		off  int64
		path string
	}
	var items []item
	if in.getShape().kind == "lines" {
		for _, l := range jsonLines(in.data()) {
			items = append(items, item{l.data, l.off, ""})
		}
	} else {
		elems, offs, key, _ := mem0List(in)
		for i, e := range elems {
			it := item{raw: e, path: fmt.Sprintf("%s[%d]", key, i)}
			if offs != nil {
				it.off, it.path = offs[i], fmt.Sprintf("[%d]", i)
			} else if off, ok := locate(in.data(), it.path); ok {
				it.off = off
			}
			items = append(items, it)
		}
	}
	var out []Memory
	seen := map[string]string{}
	for _, it := range items {
		o, ok := object(it.raw)
		if !ok {
			return nil, in.errAt(it.off, it.raw, it.path, "want a memory object")
		}
		base, raw := it.off, it.raw
		text := str(o["memory"])
		if strings.TrimSpace(text) == "" {
			if !isNull(o["memory"]) && (o["memory"][0] == '{' || o["memory"][0] == '[') {
				return nil, in.errAt(base, raw, joinPath(it.path, "memory"), "want a string")
			}
			rep.Skip("memories with empty text", 1)
			continue
		}
		id := str(o["id"])
		if first, dup := seen[id]; dup && id != "" {
			rep.Note("memory id %s appears twice (%s and %s): both imported as separate proposals", id, first, it.path)
		}
		seen[id] = it.path
		m := memory{text: text, line: in.lineAt(base), src: sourceOf("mem0", in.File, id),
			base: base, raw: raw, path: it.path, textField: "memory", listField: "categories"}
		m.field("id", "id")
		m.src.User = str(o["user_id"])
		m.field("user", "user_id")
		for _, k := range []string{"agent_id", "run_id"} {
			if a := str(o[k]); a != "" {
				m.src.Agent = a
				m.field("agent", k)
				break
			}
		}
		m.src.Created, m.created = stamp(o["created_at"], rep)
		m.src.Updated, _ = stamp(o["updated_at"], rep)
		m.src.Expires, _ = stamp(o["expiration_date"], rep)
		m.field("created", "created_at")
		m.field("updated", "updated_at")
		m.field("expires", "expiration_date")
		if cats, ok := array(o["categories"]); ok {
			for j, c := range cats {
				if s := str(c); s != "" {
					m.tag(s, fmt.Sprintf("categories[%d]", j))
				}
			}
		}
		if m.src.User != "" {
			m.tag("user:"+m.src.User, "user_id")
		}
		if m.src.Agent != "" {
			m.tag("agent:"+m.src.Agent, m.srcFields["agent"])
		}
		if err := m.check(in); err != nil {
			return nil, err
		}
		out = append(out, m.proposal())
	}
	if len(out) == 0 {
		return nil, in.errAt(0, nil, "", "no memories with text")
	}
	return out, nil
}
