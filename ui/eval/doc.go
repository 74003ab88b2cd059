// Package eval is the Eval screen: the bank's eval runs (memreview eval),
// the selected run's per-condition table, a chart of pass rate over the
// task sequence per condition drawn in block characters, a run in
// progress followed live with a progress bar and its time left, and the
// run's task runs, where enter opens a task's transcript on the
// trajectories screen (importing the run's transcripts first).
//
// Its text (render.go) is plain and is shared with the eval command. It
// reads the bank only through the service (review/app) and builds on
// ui/common.
package eval
