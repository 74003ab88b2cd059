package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/memreview/memreview/probe"
)

// TestEveryKindIsLinkedIn: the program links in the driver of every
// probe kind that has one (the service imports probe/pg and probe/mcpenv),
// so no front end meets "not built into this program". The environments
// cannot be reached; only the reason they fail matters.
func TestEveryKindIsLinkedIn(t *testing.T) {
	r := probe.NewRunner()
	defer r.Close()
	ctx := context.Background()
	for _, c := range []struct {
		env   probe.Env
		input string
	}{
		{probe.Env{Name: "wh", Kind: probe.KindPostgres, URL: "postgres://probe@127.0.0.1:1/warehouse?connect_timeout=2"}, "SELECT 1"},
		{probe.Env{Name: "docs", Kind: probe.KindMCP, Command: []string{"/nonexistent/server"}}, "lookup"},
	} {
		res := r.Run(ctx, c.env, c.input, probe.Limits{Timeout: 5 * time.Second})
		if res.OK() || strings.Contains(res.Error, "not built into this program") {
			t.Errorf("%s: %+v", c.env.Kind, res)
		}
	}
}
