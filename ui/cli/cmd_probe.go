package cli

import (
	"errors"
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/memreview/memreview/probe"
)

func probeCommand() *command {
	var timeout time.Duration
	var maxRows int
	return &command{name: "probe", args: "ENV INPUT...",
		summary: "Run a read-only probe: SQL on a sql or postgres environment; ls, read, grep, stat, csv or sheet on a files environment; TOOL {json arguments} on an mcp environment.",
		help:    "Everything after ENV is the probe's input.",
		json:    true,
		text:    true,
		flags: func(fs *flag.FlagSet) {
			fs.DurationVar(&timeout, "timeout", probe.DefaultLimits().Timeout, "time limit")
			fs.IntVar(&maxRows, "max-rows", probe.DefaultLimits().MaxRows, "row cap")
		},
		run: func(c *call, args []string) error {
			if err := needArgs("probe", args, 2, "ENV and INPUT"); err != nil {
				return err
			}
			s, err := c.service()
			if err != nil {
				return err
			}
			if _, err := s.ResolveEnv(args[0]); err != nil {
				return err
			}
			lim := probe.DefaultLimits()
			lim.Timeout, lim.MaxRows = timeout, maxRows
			res := s.Probe(c.ctx, args[0], strings.Join(args[1:], " "), lim)
			if c.json {
				if err := printJSON(c.stdout, res); err != nil {
					return err
				}
			} else {
				fmt.Fprint(c.stdout, probe.FormatText(res, 0))
			}
			if !res.OK() {
				return errors.New("the probe failed")
			}
			return nil
		}}
}
