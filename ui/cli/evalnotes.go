package cli

import (
	"fmt"

	"github.com/memreview/memreview/review/app"
)

// printRecordEval prints what the bank's eval runs say of a record
// (history's last lines): its effect in each run that compared the bank
// with no memory, and what each decision that changed it recovered and
// regressed. Nothing when no run says anything.
func printRecordEval(c *call, svc *app.Service, id string) error {
	re, err := svc.RecordEval(id)
	if err != nil {
		return err
	}
	if re.Empty() {
		return nil
	}
	fmt.Fprintln(c.stdout, "\neval:")
	for _, d := range re.Decisions {
		fmt.Fprintf(c.stdout, "  %s\n", d.String())
	}
	for _, e := range re.Runs {
		fmt.Fprintf(c.stdout, "  %s\n", e.String())
	}
	return nil
}
