package formats

// MCP memory server knowledge graphs (JSON Lines): entities {type:
// "entity", name, entityType, observations[]} and relations {type:
// "relation", from, to, relationType}. Forks write the kind under type,
// _type or not at all (then name+entityType is an entity, from+to a
// relation), and observations as strings or {text, timestamp, version}.
// A read_graph result ({entities[], relations[]}) is read too. Each
// observation becomes a fact about its entity and each relation a relation
// record; duplicate entity names and relations to missing entities are
// reported, not fatal.

import (
	"errors"
	"fmt"
	"strings"

	"github.com/memreview/memreview/review"
)

func init() {
	register(&Format{Name: "mcp-memory", Kind: Memories,
		About: "MCP memory server graphs (JSON Lines of entities and relations, or {entities, relations}): one memory per observation and per relation",
		fits:  fitsMCPMemory, memories: readMCPMemory})
}

func graphKind(keys map[string]bool, o map[string]rawValue) string {
	for _, k := range []string{"type", "_type", "kind"} {
		switch strings.ToLower(str(o[k])) {
		case "entity", "node":
			return "entity"
		case "relation", "edge":
			return "relation"
		}
	}
	switch {
	case keys["name"] && (keys["entityType"] || keys["observations"]):
		return "entity"
	case keys["from"] && keys["to"]:
		return "relation"
	}
	return ""
}

func fitsMCPMemory(in *Input) error {
	sh := in.getShape()
	switch sh.kind {
	case "lines":
		o, _ := object(sh.first)
		if graphKind(sh.keys, o) != "" {
			return nil
		}
	case "object":
		if sh.keys["entities"] && sh.keys["relations"] {
			return nil
		}
		if graphKind(sh.keys, sh.obj) != "" {
			return nil // a graph of one line
		}
	}
	return errors.New("no entity/relation lines and no {entities, relations}")
}

func readMCPMemory(in *Input, rep *Report) ([]Memory, error) {
	type item struct {
		raw  rawValue
		off  int64
		line int
		path string
		kind string // from a read_graph object's list
	}
	var items []item
	sh := in.getShape()
	if sh.kind == "object" && sh.keys["entities"] {
		for _, k := range []string{"entities", "relations"} {
			a, ok := array(sh.obj[k])
			if !ok && !isNull(sh.obj[k]) {
				return nil, in.errAt(0, in.data(), k, "want an array")
			}
			for i, e := range a {
				p := fmt.Sprintf("%s[%d]", k, i)
				off, _ := locate(in.data(), p)
				kind := "relation"
				if k == "entities" {
					kind = "entity"
				}
				items = append(items, item{e, off, in.lineAt(off), p, kind})
			}
		}
	} else {
		for _, l := range jsonLines(in.data()) {
			items = append(items, item{raw: l.data, off: l.off, line: l.n})
		}
	}
	entities := map[string]int{} // name → line first seen
	nobs := map[string]int{}     // name → observations so far (for ids)
	var out []Memory
	type rel struct {
		m        memory
		from, to string
	}
	var rels []rel
	for _, it := range items {
		o, ok := object(it.raw)
		if !ok {
			var v any
			if err := jsonUnmarshal(it.raw, &v); err != nil {
				return nil, in.decodeErr(it.off, it.raw, it.path, err)
			}
			return nil, in.errAt(it.off, it.raw, it.path, "want a JSON object (an entity or a relation)")
		}
		kind := it.kind
		if kind == "" {
			kind = graphKind(keySet(o), o)
		}
		base := it.off
		switch kind {
		case "entity":
			name := str(o["name"])
			if strings.TrimSpace(name) == "" {
				return nil, in.errAt(base, it.raw, joinPath(it.path, "name"), "an entity needs a name")
			}
			if first, dup := entities[name]; dup {
				rep.Note("entity %q appears again on line %d (first on line %d): its observations are imported too", name, it.line, first)
				rep.Skip("duplicate entity lines (observations kept)", 1)
			} else {
				entities[name] = it.line
			}
			etype := str(o["entityType"])
			obs, ok := array(o["observations"])
			if !ok && !isNull(o["observations"]) {
				return nil, in.errAt(base, it.raw, joinPath(it.path, "observations"), "want an array of strings or {text, timestamp} objects")
			}
			created, createdT := stamp(o["createdAt"], rep)
			updated, _ := stamp(o["updatedAt"], rep)
			if len(obs) == 0 {
				rep.Skip("entities with no observations", 1)
			}
			for k, ob := range obs {
				text, when, textField := str(ob), rawValue(nil), fmt.Sprintf("observations[%d]", k)
				if oo, ok := object(ob); ok {
					text, when = firstNonEmpty(str(oo["text"]), str(oo["content"])), oo["timestamp"]
					textField += ".text"
				}
				if strings.TrimSpace(text) == "" {
					rep.Skip("empty observations", 1)
					continue
				}
				lemma := name
				if etype != "" {
					lemma += " (" + etype + ")"
				}
				nobs[name]++
				m := memory{text: lemma + ": " + text, line: it.line, src: sourceOf("mcp-memory", in.File, fmt.Sprintf("%s#%d", name, nobs[name])),
					created: createdT, base: base, raw: it.raw, path: it.path, textField: textField}
				m.tag("entity:"+name, "name")
				m.field("id", "name")
				m.src.Created, m.src.Updated, m.src.Agent = created, updated, str(o["createdBy"])
				m.field("created", "createdAt")
				m.field("updated", "updatedAt")
				m.field("agent", "createdBy")
				if when != nil {
					m.src.Created, m.created = stamp(when, rep)
					m.field("created", textField[:strings.LastIndexByte(textField, '.')]+".timestamp")
				}
				if len(name)+len(etype) > len(text) {
					m.textField = "name" // the lemma is long for its name
				}
				if err := m.check(in); err != nil {
					return nil, err
				}
				out = append(out, m.proposal())
			}
		case "relation":
			from, to, rt := str(o["from"]), str(o["to"]), str(o["relationType"])
			if from == "" || to == "" {
				return nil, in.errAt(base, it.raw, joinPath(it.path, "from"), "a relation needs from and to")
			}
			m := memory{text: fmt.Sprintf("%s %s %s", from, firstNonEmpty(rt, "relates to"), to), category: review.Relation, line: it.line,
				src:  sourceOf("mcp-memory", in.File, fmt.Sprintf("%s -%s-> %s", from, rt, to)),
				base: base, raw: it.raw, path: it.path}
			m.tag("entity:"+from, "from")
			m.tag("entity:"+to, "to")
			m.src.Created, m.created = stamp(o["createdAt"], rep)
			m.src.Agent = str(o["createdBy"])
			m.field("created", "createdAt")
			m.field("agent", "createdBy")
			// The longest of the three makes the lemma or the cited id long.
			m.textField = "from"
			if len(to) > len(from) {
				m.textField = "to"
			}
			if len(rt) > max(len(from), len(to)) {
				m.textField = "relationType"
			}
			m.field("id", m.textField)
			if err := m.check(in); err != nil {
				return nil, err
			}
			rels = append(rels, rel{m, from, to})
		default:
			rep.Skip("lines that are neither entity nor relation", 1)
		}
	}
	dangling := 0
	for _, r := range rels {
		for _, n := range []string{r.from, r.to} {
			if _, ok := entities[n]; !ok {
				dangling++
				rep.Note("line %d: relation names entity %q, which the graph does not have (imported anyway)", r.m.line, n)
				break
			}
		}
		out = append(out, r.m.proposal())
	}
	if dangling > 0 {
		rep.Note("%d relations name a missing entity", dangling)
	}
	if len(out) == 0 {
		return nil, in.errAt(0, nil, "", "no observations or relations")
	}
	return out, nil
}
