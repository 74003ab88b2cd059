package probe

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	sqlite "modernc.org/sqlite"
)

// readPragmas are the PRAGMAs a probe may run. They only describe the
// schema and take at most a table or index name, never a new value.
var readPragmas = map[string]bool{
	"table_info":       true,
	"table_xinfo":      true,
	"table_list":       true,
	"index_list":       true,
	"index_info":       true,
	"index_xinfo":      true,
	"foreign_key_list": true,
	"database_list":    true,
	"collation_list":   true,
	"function_list":    true,
	"module_list":      true,
	"pragma_list":      true,
	"compile_options":  true,
}

// readGetters are PRAGMAs that read a setting when given no argument and
// change it when given one; only the argument-less form is allowed.
var readGetters = map[string]bool{
	"user_version":   true,
	"schema_version": true,
	"application_id": true,
	"page_count":     true,
	"page_size":      true,
	"freelist_count": true,
	"encoding":       true,
	"journal_mode":   true,
	"foreign_keys":   true,
	"query_only":     true,
}

// deniedFunctions are SQL functions a probe may not call even though
// SQLite reports them as plain function calls.
var deniedFunctions = map[string]bool{
	"load_extension": true,
	"fts3_tokenizer": true,
}

// schemaTables are the tables SQLite writes when the schema changes; a
// denied write to one of them is reported only when nothing more specific
// (CREATE TABLE, ANALYZE, …) was denied too.
var schemaTables = map[string]bool{
	"sqlite_master":      true,
	"sqlite_temp_master": true,
	"sqlite_schema":      true,
	"sqlite_temp_schema": true,
}

// actionNames names the authorizer actions in refusal messages.
var actionNames = map[sqlite.AuthorizerActionCode]string{
	sqlite.AuthCreateIndex:       "CREATE INDEX",
	sqlite.AuthCreateTable:       "CREATE TABLE",
	sqlite.AuthCreateTempIndex:   "CREATE TEMP INDEX",
	sqlite.AuthCreateTempTable:   "CREATE TEMP TABLE",
	sqlite.AuthCreateTempTrigger: "CREATE TEMP TRIGGER",
	sqlite.AuthCreateTempView:    "CREATE TEMP VIEW",
	sqlite.AuthCreateTrigger:     "CREATE TRIGGER",
	sqlite.AuthCreateView:        "CREATE VIEW",
	sqlite.AuthDelete:            "DELETE",
	sqlite.AuthDropIndex:         "DROP INDEX",
	sqlite.AuthDropTable:         "DROP TABLE",
	sqlite.AuthDropTempIndex:     "DROP TEMP INDEX",
	sqlite.AuthDropTempTable:     "DROP TEMP TABLE",
	sqlite.AuthDropTempTrigger:   "DROP TEMP TRIGGER",
	sqlite.AuthDropTempView:      "DROP TEMP VIEW",
	sqlite.AuthDropTrigger:       "DROP TRIGGER",
	sqlite.AuthDropView:          "DROP VIEW",
	sqlite.AuthInsert:            "INSERT",
	sqlite.AuthUpdate:            "UPDATE",
	sqlite.AuthTransaction:       "a transaction statement (BEGIN, COMMIT, ROLLBACK)",
	sqlite.AuthAttach:            "ATTACH (which VACUUM also uses)",
	sqlite.AuthDetach:            "DETACH",
	sqlite.AuthAlterTable:        "ALTER TABLE",
	sqlite.AuthReindex:           "REINDEX",
	sqlite.AuthAnalyze:           "ANALYZE",
	sqlite.AuthCreateVTable:      "CREATE VIRTUAL TABLE",
	sqlite.AuthDropVTable:        "DROP VIRTUAL TABLE",
	sqlite.AuthSavepoint:         "SAVEPOINT",
}

// denial is the authorizer of one connection. It allows reads only and
// remembers the first operation it refused, so the error SQLite returns
// ("not authorized") can be explained.
type denial struct {
	mu       sync.Mutex
	first    string // first denial of a specific operation
	onSchema string // first denied write to a schema table
}

// authorize is the sqlite.AuthorizerFn: SELECT, reads, recursive CTEs,
// ordinary functions and the introspection PRAGMAs are allowed; anything
// else is denied while the statement is compiled.
func (d *denial) authorize(action sqlite.AuthorizerActionCode, arg1, arg2, _, _ string) sqlite.AuthorizerReturnCode {
	switch action {
	case sqlite.AuthSelect, sqlite.AuthRead, sqlite.AuthRecursive:
		return sqlite.AuthorizerOK
	case sqlite.AuthFunction:
		if !deniedFunctions[strings.ToLower(arg2)] {
			return sqlite.AuthorizerOK
		}
		return d.deny("the function " + arg2 + "() is not allowed")
	case sqlite.AuthPragma:
		name := strings.ToLower(arg1)
		if readPragmas[name] || (readGetters[name] && arg2 == "") {
			return sqlite.AuthorizerOK
		}
		if arg2 != "" {
			return d.deny(fmt.Sprintf("PRAGMA %s = %s is not allowed", arg1, arg2))
		}
		return d.deny("PRAGMA " + arg1 + " is not allowed")
	}
	name, ok := actionNames[action]
	if !ok {
		name = fmt.Sprintf("operation %d", action)
	}
	if (action == sqlite.AuthInsert || action == sqlite.AuthUpdate || action == sqlite.AuthDelete) &&
		schemaTables[strings.ToLower(arg1)] {
		d.mu.Lock()
		if d.onSchema == "" {
			d.onSchema = "changing the schema (" + name + " on " + arg1 + ") is not allowed"
		}
		d.mu.Unlock()
		return sqlite.AuthorizerDeny
	}
	return d.deny(name + " is not allowed")
}

func (d *denial) deny(what string) sqlite.AuthorizerReturnCode {
	d.mu.Lock()
	if d.first == "" {
		d.first = what
	}
	d.mu.Unlock()
	return sqlite.AuthorizerDeny
}

// refused returns what the authorizer denied, most specific first.
func (d *denial) refused() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.first != "" {
		return d.first
	}
	return d.onSchema
}

// explain rewrites a driver error: a refusal by the authorizer names what
// was refused, and a write stopped by read-only or query-only mode says so.
func (d *denial) explain(err error) error {
	if err == nil {
		return nil
	}
	first := d.refused()
	msg := err.Error()
	low := strings.ToLower(msg)
	switch {
	case first != "":
		return refusedf("the sql probe is read-only; %s (%s)", first, msg)
	case strings.Contains(low, "readonly") || strings.Contains(low, "read-only") ||
		strings.Contains(low, "read only") || strings.Contains(low, "not authorized"):
		return refusedf("the sql probe is read-only; the statement would write (%s)", msg)
	case strings.Contains(low, "too big"):
		return refusedf("a value is larger than the probe's byte cap allows (%s)", msg)
	}
	return errors.New("query failed: " + msg)
}
