package cli

import (
	"flag"
	"fmt"
	"strings"

	"github.com/memreview/memreview/review/app"
)

func exportCommand() *command {
	var format, env, tags, into string
	var maxBytes int
	return &command{name: "export", args: "records|proposals|decisions|trajectories",
		summary: "Write the bank's records, proposals, decisions or trajectories as JSON Lines on stdout, or (--format agents-md) its active records as the section an agent reads in AGENTS.md or CLAUDE.md.",
		help: "--format agents-md writes the records as Markdown between memreview's markers, grouped by category, within --max-bytes;\n" +
			"--into FILE replaces only that section of FILE (AGENTS.md, CLAUDE.md) and leaves the rest as it was.",
		exact: true,
		flags: func(fs *flag.FlagSet) {
			fs.StringVar(&format, "format", "", "agents-md: the active records as an instruction-file section (default: JSON Lines)")
			fs.StringVar(&env, "env", "", "agents-md: records for this environment (and those for any)")
			fs.StringVar(&tags, "tags", "", "agents-md: records with one of these comma-separated tags (and those with none)")
			fs.IntVar(&maxBytes, "max-bytes", 0, "agents-md: the section's size budget in bytes (default 16384)")
			fs.StringVar(&into, "into", "", "agents-md: write the section into FILE between memreview's markers instead of stdout")
		},
		run: func(c *call, args []string) error {
			if format != "" {
				return exportSection(c, args, format, env, tags, into, maxBytes)
			}
			if env != "" || tags != "" || into != "" || maxBytes != 0 {
				return usagef("export: --env, --tags, --max-bytes and --into go with --format agents-md")
			}
			if err := needArgs("export", args, 1, "what to export"); err != nil {
				return err
			}
			switch args[0] {
			case app.KindRecords, app.KindProposals, app.KindDecisions, app.KindTrajectories:
			default:
				return usagef("export: %q is not records, proposals, decisions or trajectories", args[0])
			}
			svc, err := c.service()
			if err != nil {
				return err
			}
			return svc.Export(args[0], c.stdout)
		}}
}

// exportSection is export --format agents-md.
func exportSection(c *call, args []string, format, env, tags, into string, maxBytes int) error {
	if format != app.FormatAgentsMD {
		return usagef("export: no format %q (export writes JSON Lines, or --format %s)", format, app.FormatAgentsMD)
	}
	if len(args) > 1 || len(args) == 1 && args[0] != app.KindRecords {
		return usagef("export --format %s writes records; give no other argument", app.FormatAgentsMD)
	}
	if maxBytes < 0 {
		return usagef("export: --max-bytes %d is negative", maxBytes)
	}
	opt := app.SectionOptions{Env: env, MaxBytes: maxBytes}
	for _, t := range strings.Split(tags, ",") {
		if t = strings.TrimSpace(t); t != "" {
			opt.Tags = append(opt.Tags, t)
		}
	}
	svc, err := c.service()
	if err != nil {
		return err
	}
	if into == "" {
		section, rep, err := svc.ExportSection(opt)
		if err != nil {
			return err
		}
		if _, err := c.stdout.Write(section); err != nil {
			return err
		}
		if rep.LeftOut > 0 {
			fmt.Fprintf(c.stderr, "memreview: %d records left out to stay within %d bytes (raise --max-bytes, or narrow with --env and --tags)\n", rep.LeftOut, rep.MaxBytes)
		}
		return nil
	}
	rep, err := svc.ExportSectionInto(opt, into)
	if err != nil {
		return err
	}
	fmt.Fprintf(c.stdout, "wrote memreview's section into %s: %d records, %d bytes", into, rep.Records, rep.Bytes)
	if rep.LeftOut > 0 {
		fmt.Fprintf(c.stdout, " (%d left out to stay within %d bytes)", rep.LeftOut, rep.MaxBytes)
	}
	fmt.Fprintln(c.stdout)
	return nil
}
