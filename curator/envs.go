package curator

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/memreview/memreview/probe"
)

// What the model is told of the environments it may probe: each one's
// kind, where it points, its probe tool and grammar, and for an mcp
// environment the tools a probe may call with their input schemas, as
// the server lists them (Deps.Describe).

// describeTimeout bounds describing one environment (an MCP server may
// have to start, npx may install it first).
const describeTimeout = 30 * time.Second

// envBriefCap bounds what the brief says of the environments; a server
// with very many or very large tool schemas is cut, and says so.
const envBriefCap = 24 << 10

// describeEnvs describes every environment of the bank's config.
func (c *curation) describeEnvs(ctx context.Context) {
	c.envs = nil
	for _, e := range c.cfg.Envs {
		env, err := c.deps.resolveEnv(e.Name)
		if err != nil {
			c.envs = append(c.envs, probe.Description{Name: e.Name, Kind: e.Kind, Usage: probe.Usage(e.Kind), Error: err.Error()})
			continue
		}
		dctx, cancel := context.WithTimeout(ctx, describeTimeout)
		c.envs = append(c.envs, c.deps.Describe(dctx, env))
		cancel()
	}
}

// callable names the callable tools of each mcp environment.
func (c *curation) callable() map[string][]string {
	out := map[string][]string{}
	for _, d := range c.envs {
		for _, t := range d.Tools {
			out[d.Name] = append(out[d.Name], t.Name)
		}
	}
	return out
}

// toolFor is the probe tool of each kind, as the brief names it.
var toolFor = map[probe.Kind]string{
	probe.KindSQL:      ToolSQL,
	probe.KindPostgres: ToolPostgres,
	probe.KindFiles:    ToolFilesLs + ", " + ToolFilesRead + ", " + ToolFilesGrep + ", " + ToolFilesSheet,
	probe.KindMCP:      ToolMCP,
}

// envBrief is the brief's section on the environments.
func (c *curation) envBrief() string {
	var b strings.Builder
	b.WriteString("Environments you may probe read-only:\n")
	for _, d := range c.envs {
		fmt.Fprintf(&b, "- %s (%s)", d.Name, d.Kind)
		if d.Target != "" {
			fmt.Fprintf(&b, ", %s", d.Target)
		}
		fmt.Fprintf(&b, ": probe with %s (%s).\n", toolFor[d.Kind], d.Usage)
		if d.Kind != probe.KindMCP {
			continue
		}
		switch {
		case d.Error != "":
			fmt.Fprintf(&b, "  Its tools could not be listed: %s\n", d.Error)
		case len(d.Tools) == 0:
			b.WriteString("  It has no tool a probe may call.\n")
		default:
			b.WriteString("  Its callable tools (name: description; input schema):\n")
		}
		for _, t := range d.Tools {
			line := fmt.Sprintf("  - %s: %s; %s", t.Name, oneLine(t.Description), compactJSON(t.InputSchema))
			if t.AllowListed {
				line += " (callable by the operator's allow-list; the server does not say it is read-only)"
			}
			if b.Len()+len(line) > envBriefCap {
				b.WriteString("  (more tools: the list is cut here)\n")
				break
			}
			b.WriteString(line + "\n")
		}
	}
	return b.String()
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if s == "" {
		return "(no description)"
	}
	return snippet(s)
}

// compactJSON is a tool's input schema on one line.
func compactJSON(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "{}"
	}
	out, err := json.Marshal(raw) // compacts it
	if err != nil {
		return "(a schema that is not JSON)"
	}
	return string(out)
}
