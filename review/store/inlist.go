package store

import "strings"

// inArgs are ids (at least one) as the arguments of an IN list and its placeholders
// ("?, ?, …)"), the list padded with its last id to the next power of
// two (at least 8): a query then has a few texts rather than one for
// every count of ids, so its prepared statements stay in the read cache
// (stmtcache.go) instead of being prepared anew on most calls. A
// repeated id matches nothing more.
func inArgs(ids []string) (args []any, placeholders string) {
	n := 8
	for n < len(ids) {
		n *= 2
	}
	args = make([]any, n)
	for i := range args {
		args[i] = ids[min(i, len(ids)-1)]
	}
	return args, strings.Repeat("?, ", n-1) + "?)"
}
