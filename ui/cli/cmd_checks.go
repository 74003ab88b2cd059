// The check commands: live (a proposal's probes and checks run live and
// saved, the baselines accept takes) and rebaseline (a suspect record's
// checks take what verify got).

package cli

import (
	"flag"
	"fmt"
	"strconv"
	"strings"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/app"
)

func checkCommands(jsonOut *bool) []*command {
	return []*command{
		{name: "live", args: "PROPOSAL_ID", help: "Run a proposal's probe runs and its record's checks live, as p does on the review screen,\nand save each result as a probe run on the proposal: accepting it then takes the latest live run\nof each check as that check's expected result.",
			flags: func(fs *flag.FlagSet) { fs.BoolVar(jsonOut, "json", false, "print JSON") },
			run:   func(a *cmdline, fs *flag.FlagSet) error { return cmdLive(a, fs, *jsonOut) }},
		{name: "rebaseline", args: "RECORD_ID", help: "Take the last verify output of a suspect record's failing checks as their expected results,\nin a new version written as your edit (after you have looked at them: 'memreview show ID').",
			flags: func(fs *flag.FlagSet) {
				fs.BoolVar(jsonOut, "json", false, "print JSON")
				fs.String("check", "", "only these checks, 1-based and comma-separated (default: every check that failed)")
				fs.Int("version", 0, "the version you looked at (a record changed since is a conflict)")
				fs.String("note", "", "why (kept in the history)")
			},
			run: func(a *cmdline, fs *flag.FlagSet) error { return cmdRebaseline(a, fs, *jsonOut) }},
	}
}

func cmdLive(a *cmdline, fs *flag.FlagSet, jsonOut bool) error {
	if err := needArgs(fs, 1, "PROPOSAL_ID"); err != nil {
		return err
	}
	svc, err := a.open()
	if err != nil {
		return err
	}
	defer svc.Close()
	lived, err := svc.RunLiveAll(a.ctx, fs.Arg(0), a.operator)
	if jsonOut && err == nil {
		return printJSON(a.stdout, nonNil(lived))
	}
	for _, l := range lived {
		fmt.Fprintf(a.stdout, "%-10s %-9s %s  %s: %s\n", l.Run.ID, l.Verdict, liveWhat(l), l.Item.Expect.Env, oneLine(l.Item.Expect.Input, 60))
	}
	return err
}

// liveWhat names what a live run repeated: "run_0003" or "check 1".
func liveWhat(l app.Lived) string {
	if l.Item.Check > 0 {
		return fmt.Sprintf("check %d", l.Item.Check)
	}
	return l.Item.Run
}

func cmdRebaseline(a *cmdline, fs *flag.FlagSet, jsonOut bool) error {
	if err := needArgs(fs, 1, "RECORD_ID"); err != nil {
		return err
	}
	var checks []int
	if s := flagString(fs, "check"); s != "" {
		for _, f := range strings.Split(s, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || n < 1 {
				return usageError{fmt.Sprintf("rebaseline: --check %q: want check numbers from 1, comma-separated", s)}
			}
			checks = append(checks, n)
		}
	}
	version, _ := strconv.Atoi(flagString(fs, "version"))
	return a.decide(jsonOut, func(s *app.Service) (*review.Decision, error) {
		return s.Rebaseline(a.ctx, fs.Arg(0), version, checks, a.operator, flagString(fs, "note"))
	})
}
