package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"time"
)

// indexCommand holds the bank's index in this process: a long-running
// owner for a bank no TUI or server holds, and how a one-shot command
// hands a catch-up it started to another process (handoff.go).
func indexCommand() *command {
	var until bool
	var wait time.Duration
	return &command{name: "index", args: "",
		summary: "Hold the bank's search index and keep it caught up with every process's writes until interrupted.",
		help:    "With --until-caught-up it exits once the index holds every change made before it started.",
		flags: func(fs *flag.FlagSet) {
			fs.BoolVar(&until, "until-caught-up", false, "exit once the index holds every change made before it started")
			fs.DurationVar(&wait, "wait", 10*time.Second, "how long to wait for another process to let go of the index")
		},
		run: func(c *call, args []string) error {
			if err := noArgs("index", args); err != nil {
				return err
			}
			c.holdsIndex = true
			svc, err := c.service()
			if err != nil {
				return err
			}
			err = svc.FollowIndex(c.ctx, wait, until)
			if errors.Is(err, context.Canceled) {
				return nil
			}
			if err == nil && until {
				n, _ := svc.IndexDocs()
				fmt.Fprintf(c.stdout, "the index is caught up: %d documents\n", n)
			}
			return err
		}}
}
