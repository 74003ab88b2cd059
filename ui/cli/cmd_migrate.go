package cli

import (
	"flag"
	"fmt"
	"text/tabwriter"

	"github.com/memreview/memreview/review/app"
)

// migrateCommand copies a folder bank into a PostgreSQL database whole.
func migrateCommand() *command {
	var from, to string
	return &command{name: "migrate", args: "--from DIR --to postgres://USER@HOST/DB",
		summary: "Copy a folder bank whole into an empty PostgreSQL bank in one transaction, then check every table on both sides.",
		help: "Records with every version, proposals, decisions, probe runs, trajectories and retrievals are copied;\n" +
			"row counts and a content hash of every table are compared. The environments go to your own memreview.toml.",
		flags: func(fs *flag.FlagSet) {
			fs.StringVar(&from, "from", "", "the SQLite bank directory")
			fs.StringVar(&to, "to", "", "the PostgreSQL bank URL (an empty database)")
		},
		run: func(c *call, args []string) error {
			if err := noArgs("migrate", args); err != nil {
				return err
			}
			if from == "" || !app.IsTeamBank(to) {
				return usagef("migrate: need --from DIR and --to postgres://USER@HOST/DB")
			}
			m, err := app.Migrate(c.ctx, from, to)
			if m != nil {
				tw := tabwriter.NewWriter(c.stdout, 2, 4, 2, ' ', 0)
				fmt.Fprintf(tw, "table\tsqlite rows\tpostgres rows\tsha-256 (both)\n")
				for _, t := range m.Tables {
					mark := t.SQLiteHash[:16]
					if !t.Same() {
						mark = fmt.Sprintf("DIFFERENT %s ≠ %s", t.SQLiteHash[:16], t.PGHash[:16])
					}
					fmt.Fprintf(tw, "%s\t%d\t%d\t%s\n", t.Table, t.SQLiteRows, t.PGRows, mark)
				}
				tw.Flush()
			}
			if err != nil {
				return err
			}
			fmt.Fprintf(c.stdout, "copied into bank %s (%s); every table matches\n", m.BankID, m.Where)
			switch {
			case m.EnvsLeft > 0:
				fmt.Fprintf(c.stdout, "%s already declares environments; add the bank's %d by hand ('memreview env add')\n", m.ConfigFile, m.EnvsLeft)
			case m.Envs > 0:
				fmt.Fprintf(c.stdout, "wrote %d environments to %s\n", m.Envs, m.ConfigFile)
			}
			return nil
		}}
}
