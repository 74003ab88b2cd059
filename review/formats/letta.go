package formats

// Letta Agent Files (.af): {agents[], blocks[], tools[], …}, sometimes a
// JSON string holding that JSON. Core-memory blocks (label, value,
// description, limit) become records; blocks are matched to the agents
// whose block_ids (or memory_blocks) name them.

import (
	"errors"
	"fmt"
	"strings"

	"github.com/memreview/memreview/review"
)

func init() {
	register(&Format{Name: "letta", Kind: Memories,
		About: "Letta Agent Files (.af): one memory per core-memory block (label, value, description, limit), cited with its agent",
		fits:  fitsLetta, memories: readLetta})
}

func fitsLetta(in *Input) error {
	sh := in.getShape()
	if sh.kind == "object" && sh.keys["agents"] && (sh.keys["blocks"] || sh.keys["tools"]) {
		return nil
	}
	return errors.New("no {agents, blocks} object")
}

func readLetta(in *Input, rep *Report) ([]Memory, error) {
	obj := in.getShape().obj
	data := in.data()
	agents, ok := array(obj["agents"])
	if !ok {
		return nil, in.errAt(0, data, "agents", "want an array of agents")
	}
	owner := map[string]string{} // block id → agent name
	type blk struct {
		raw  rawValue
		path string
	}
	var blocks []blk
	for i, a := range agents {
		ao, ok := object(a)
		if !ok {
			return nil, in.errAt(0, data, fmt.Sprintf("agents[%d]", i), "want an agent object")
		}
		name := firstNonEmpty(str(ao["name"]), str(ao["id"]))
		if msg := review.CheckText(name); msg != "" {
			return nil, in.errAt(0, data, fmt.Sprintf("agents[%d].name", i), "the agent a memory cites is %s", msg)
		}
		ids, _ := array(ao["block_ids"])
		for _, id := range ids {
			owner[str(id)] = name
		}
		inline, _ := array(ao["memory_blocks"])
		for j, b := range inline {
			bo, _ := object(b)
			owner[str(bo["id"])] = name
			if str(bo["id"]) == "" {
				owner[fmt.Sprintf("agents[%d].memory_blocks[%d]", i, j)] = name
			}
			blocks = append(blocks, blk{b, fmt.Sprintf("agents[%d].memory_blocks[%d]", i, j)})
		}
	}
	top, ok := array(obj["blocks"])
	if !ok && !isNull(obj["blocks"]) {
		return nil, in.errAt(0, data, "blocks", "want an array of blocks")
	}
	for i, b := range top {
		blocks = append(blocks, blk{b, fmt.Sprintf("blocks[%d]", i)})
	}
	created, createdT := stamp(obj["created_at"], rep)
	var out []Memory
	seen := map[string]bool{}
	for _, b := range blocks {
		bo, ok := object(b.raw)
		if !ok {
			return nil, in.errAt(0, data, b.path, "want a block object")
		}
		id := str(bo["id"])
		if id != "" && seen[id] {
			rep.Skip("blocks listed twice (inline and top level)", 1)
			continue
		}
		seen[id] = true
		if !isNull(bo["value"]) && bo["value"][0] != '"' {
			return nil, in.errAt(0, data, b.path+".value", "want a string")
		}
		value := str(bo["value"])
		if strings.TrimSpace(value) == "" {
			rep.Skip("empty blocks", 1)
			continue
		}
		label := str(bo["label"])
		off, _ := locate(data, b.path)
		parts := blockParts(value)
		for n, pt := range parts {
			m := memory{text: pt.text, line: in.lineAt(off), src: sourceOf("letta", in.File, id),
				base: off, raw: b.raw, path: b.path, textField: "value", listField: "value"}
			m.field("id", "id")
			m.src.Label, m.src.Agent = label, firstNonEmpty(owner[id], owner[b.path])
			m.field("label", "label")
			m.src.Created, m.created = created, createdT
			if len(parts) > 1 {
				// Each part cites the block and its place in it.
				m.src.ID = fmt.Sprintf("%s#%d", firstNonEmpty(id, label), n+1)
			}
			if label != "" {
				m.tag("letta:"+strings.TrimPrefix(label, "/"), "label")
			}
			if err := m.check(in); err != nil {
				return nil, err
			}
			p := m.proposal()
			if len(parts) > 1 {
				p.Proposal.Rationale += fmt.Sprintf(" Part %d of %d of the block (a %s; the block is %d bytes).", n+1, len(parts), pt.kind, len(value))
			}
			if d := str(bo["description"]); d != "" {
				p.Proposal.Rationale += " Block description: " + clip(d, 1<<10) + "."
			}
			if l := str(bo["limit"]); l != "" {
				p.Proposal.Rationale += " Character limit " + clip(l, 40) + "."
			}
			if str(bo["read_only"]) == "true" {
				p.Proposal.Rationale += " Read-only in Letta."
			}
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		return nil, in.errAt(0, nil, "", "no memory blocks with a value")
	}
	return out, nil
}
