package pg

import "strings"

// deniedFunctions are functions a probe may not name, even though
// PostgreSQL runs them inside BEGIN READ ONLY as a SELECT-only role: each
// has an effect that a rollback does not undo (a lock held by the
// session, a consumed sequence value or transaction id, a signal to
// another backend, a connection elsewhere), or reads the server's files,
// or runs a string as SQL (so it would carry any of the others past the
// classifier).
var deniedFunctions = map[string]string{
	"set_config":                     "changes a setting",
	"nextval":                        "advances a sequence, which a rollback does not undo",
	"setval":                         "sets a sequence, which a rollback does not undo",
	"loread":                         "reads a large object",
	"lowrite":                        "writes a large object",
	"txid_current":                   "assigns a transaction id",
	"pg_current_xact_id":             "assigns a transaction id",
	"pg_notify":                      "sends a notification",
	"pg_reload_conf":                 "signals the server",
	"pg_rotate_logfile":              "signals the server",
	"pg_switch_wal":                  "switches the WAL file",
	"pg_promote":                     "promotes a standby",
	"pg_import_system_collations":    "creates collations",
	"gin_clean_pending_list":         "writes an index",
	"query_to_xml":                   "runs a string as SQL",
	"query_to_xmlschema":             "runs a string as SQL",
	"query_to_xml_and_xmlschema":     "runs a string as SQL",
	"cursor_to_xml":                  "reads a cursor",
	"cursor_to_xmlschema":            "reads a cursor",
	"ts_stat":                        "runs a string as SQL",
	"pg_log_backend_memory_contexts": "signals another backend",
	"pg_stat_file":                   "reads the server's files",
	"pg_prewarm":                     "loads relations into the buffer cache",
}

// deniedPrefixes are families of such functions, matched by prefix so
// that a member added by a later PostgreSQL release or an extension is
// refused too.
var deniedPrefixes = []struct{ prefix, why string }{
	{"pg_advisory_", "takes or releases an advisory lock"},
	{"pg_try_advisory_", "takes an advisory lock"},
	{"lo_", "creates, reads, writes or removes a large object"},
	{"dblink", "connects to another database, where it can write"},
	{"pg_terminate_", "terminates another session"},
	{"pg_cancel_", "cancels another session's query"},
	{"pg_signal_", "signals another session"},
	{"txid_current", "assigns a transaction id"},
	{"pg_current_xact_id", "assigns a transaction id"},
	{"pg_stat_reset", "resets statistics"},
	{"pg_stat_statements_reset", "resets statistics"},
	{"pg_replication_origin_", "changes replication state"},
	{"pg_create_", "creates a replication slot or restore point"},
	{"pg_drop_replication_slot", "drops a replication slot"},
	{"pg_copy_", "copies a replication slot"},
	{"pg_logical_", "reads or writes logical replication data"},
	{"pg_replication_slot_advance", "advances a replication slot"},
	{"pg_backup_", "starts or stops a backup"},
	{"pg_start_backup", "starts a backup"},
	{"pg_stop_backup", "stops a backup"},
	{"pg_wal_replay_", "pauses or resumes replay"},
	{"pg_read_", "reads the server's files"},
	{"pg_ls_", "lists the server's folders"},
	{"pg_file_", "writes the server's files"},
	{"brin_", "summarizes a BRIN index (writes it)"},
}

// deniedFunction says why name (any case) may not appear in a probe, or ""
// when it may.
func deniedFunction(name string) string {
	n := strings.ToLower(name)
	if why, ok := deniedFunctions[n]; ok {
		return why
	}
	for _, p := range deniedPrefixes {
		if strings.HasPrefix(n, p.prefix) {
			return p.why
		}
	}
	return ""
}

// stringWords splits a string constant into identifier-like words, so
// that a denied name inside a string (which query_to_xml and friends, or a
// function the deny-list does not know, might run) is refused too.
func stringWords(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool {
		return !(r == '_' || r == '$' || r >= 0x80 || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9'))
	})
}
