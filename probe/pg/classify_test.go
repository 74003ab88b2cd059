package pg

import (
	"strings"
	"testing"
)

// TestClassifyAllows: the reading statements a probe sends, and the text
// sent (first statement, without trailing semicolons or comments).
func TestClassifyAllows(t *testing.T) {
	t.Parallel()
	cases := []struct{ in, text, verb string }{
		{"SELECT 1", "SELECT 1", "select"},
		{"  select count(*) from items;  -- done\n", "select count(*) from items", "select"},
		{"WITH x AS (SELECT 1 AS n) SELECT n FROM x;;", "WITH x AS (SELECT 1 AS n) SELECT n FROM x", "with"},
		{"VALUES (1, 'a'), (2, 'b')", "VALUES (1, 'a'), (2, 'b')", "values"},
		{"TABLE items", "TABLE items", "table"},
		{"(SELECT 1) UNION (SELECT 2)", "(SELECT 1) UNION (SELECT 2)", "select"},
		{"EXPLAIN SELECT * FROM items", "EXPLAIN SELECT * FROM items", "explain"},
		{"EXPLAIN (FORMAT JSON, VERBOSE) SELECT 1", "EXPLAIN (FORMAT JSON, VERBOSE) SELECT 1", "explain"},
		{"SHOW search_path", "SHOW search_path", "show"},
		{"SHOW ALL", "SHOW ALL", "show"},
		{`SELECT "update", "into" FROM quirky`, `SELECT "update", "into" FROM quirky`, "select"},
		{"SELECT 'it''s; fine', $$a;b$$, $t$x$t$ FROM items", "SELECT 'it''s; fine', $$a;b$$, $t$x$t$ FROM items", "select"},
		{"SELECT substring(name FROM 1 FOR 2) FROM items", "SELECT substring(name FROM 1 FOR 2) FROM items", "select"},
		{"SELECT /* a /* nested */ comment */ 1", "SELECT /* a /* nested */ comment */ 1", "select"},
		{"SELECT pg_sleep(0.1), current_setting('search_path'), lower('X')", "SELECT pg_sleep(0.1), current_setting('search_path'), lower('X')", "select"},
		{"SELECT E'a\\'b' AS s", "SELECT E'a\\'b' AS s", "select"},
	}
	for _, c := range cases {
		st, err := Classify(c.in)
		if err != nil {
			t.Errorf("Classify(%q) refused: %v", c.in, err)
			continue
		}
		if st.Text != c.text || st.Verb != c.verb {
			t.Errorf("Classify(%q) = %q (%s), want %q (%s)", c.in, st.Text, st.Verb, c.text, c.verb)
		}
	}
}

// TestClassifyRefuses: every statement that is not reading, and every way
// of hiding a denied function's name, is refused before anything is sent,
// with a sentence naming what.
func TestClassifyRefuses(t *testing.T) {
	t.Parallel()
	cases := []struct{ in, want string }{
		{"INSERT INTO items VALUES (1)", "INSERT"},
		{"UPDATE items SET name = 'x'", "UPDATE"},
		{"DELETE FROM items", "DELETE"},
		{"MERGE INTO items USING x ON true WHEN MATCHED THEN DELETE", "MERGE"},
		{"TRUNCATE items", "TRUNCATE"},
		{"DROP TABLE items", "DROP"},
		{"CREATE TABLE x (a int)", "CREATE"},
		{"ALTER TABLE items ADD COLUMN z int", "ALTER"},
		{"GRANT ALL ON items TO public", "GRANT"},
		{"COPY items TO PROGRAM 'touch /tmp/x'", "COPY"},
		{"COPY (SELECT 1) TO STDOUT", "COPY"},
		{"SET statement_timeout = 0", "SET"},
		{"SET ROLE postgres", "SET"},
		{"RESET ALL", "RESET"},
		{"LISTEN ch", "LISTEN"},
		{"NOTIFY ch", "NOTIFY"},
		{"UNLISTEN *", "UNLISTEN"},
		{"PREPARE s AS SELECT 1", "PREPARE"},
		{"EXECUTE s", "EXECUTE"},
		{"DECLARE c CURSOR FOR SELECT 1", "DECLARE"},
		{"ANALYZE items", "ANALYZE"},
		{"VACUUM items", "VACUUM"},
		{"LOCK TABLE items", "LOCK"},
		{"CALL p()", "CALL"},
		{"DO $$ BEGIN PERFORM 1; END $$", "DO"},
		{"BEGIN", "BEGIN"},
		{"COMMIT", "COMMIT"},
		{"REFRESH MATERIALIZED VIEW mv", "REFRESH"},
		{"DISCARD ALL", "DISCARD"},
		{"CHECKPOINT", "CHECKPOINT"},
		{"LOAD 'plpgsql'", "LOAD"},
		{"SELECT 1; SELECT 2", "one statement"},
		{"SELECT 1; DROP TABLE items", "one statement"},
		{"SELECT 1 /* open", "cannot be read"},
		{"SELECT 'open", "cannot be read"},
		{"SELECT $x$ open", "cannot be read"},
		{`SELECT "open`, "cannot be read"},
		{"SELECT \\x", "cannot be read"},
		{"EXPLAIN ANALYZE SELECT 1", "ANALYZE"},
		{"EXPLAIN (ANALYZE) SELECT 1", "ANALYZE"},
		{"EXPLAIN (analyse true) SELECT 1", "ANALYSE"},
		{"EXPLAIN DELETE FROM items", "DELETE"},
		{"EXPLAIN EXECUTE s", "EXPLAIN"},
		{"EXPLAIN CREATE TABLE x AS SELECT 1", "EXPLAIN"},
		{"WITH d AS (DELETE FROM items RETURNING *) SELECT * FROM d", "DELETE"},
		{"WITH u AS (UPDATE items SET n = 1 RETURNING *) SELECT 1", "UPDATE"},
		{"WITH i AS (INSERT INTO items VALUES (1) RETURNING *) SELECT 1", "INSERT"},
		{"SELECT * INTO newtab FROM items", "INTO"},
		{"SELECT * FROM items FOR UPDATE", "UPDATE"},
		{"SELECT * FROM items FOR NO KEY UPDATE", "locking clause"},
		{"SELECT * FROM items FOR SHARE", "locking clause"},
		{"SELECT * FROM items FOR KEY SHARE", "locking clause"},
		{"SELECT * FROM items f for\n/* x */ share", "locking clause"},
		{"SELECT nextval('s')", "nextval"},
		{"SELECT setval('s', 10)", "setval"},
		{"SELECT pg_advisory_lock(1)", "advisory lock"},
		{"SELECT PG_ADVISORY_LOCK(1)", "advisory lock"},
		{"SELECT pg_catalog.pg_advisory_lock(1)", "advisory lock"},
		{"SELECT pg_catalog . /* hidden */ pg_advisory_lock (1)", "advisory lock"},
		{`SELECT "pg_advisory_lock"(1)`, "advisory lock"},
		{`SELECT pg_catalog."pg_advisory_xact_lock"(1)`, "advisory lock"},
		{`SELECT "PG_ADVISORY_LOCK"(1)`, "advisory lock"},
		{`SELECT U&"pg\005fadvisory\005flock"(1)`, "advisory lock"},
		{`SELECT u&"pg!005fadvisory!005flock" UESCAPE '!' (1)`, "advisory lock"},
		{`SELECT U&"\+000070g_advisory_lock"(1)`, "advisory lock"},
		{"SELECT pg_try_advisory_lock(1)", "advisory lock"},
		{"SELECT pg_advisory_unlock_all()", "advisory lock"},
		{"SELECT * FROM pg_advisory_lock(1)", "advisory lock"},
		{"SELECT set_config('search_path', 'x', false)", "set_config"},
		{"SELECT pg_catalog.set_config('default_transaction_read_only', 'off', false)", "set_config"},
		{"SELECT pg_notify('ch', 'x')", "pg_notify"},
		{"SELECT lo_creat(-1)", "large object"},
		{"SELECT lo_import('/etc/passwd')", "large object"},
		{"SELECT lowrite(0, 'x')", "lowrite"},
		{"SELECT txid_current()", "transaction id"},
		{"SELECT pg_current_xact_id()", "transaction id"},
		{"SELECT pg_terminate_backend(1)", "terminates"},
		{"SELECT pg_cancel_backend(1)", "cancels"},
		{"SELECT dblink_exec('dbname=x', 'DELETE FROM items')", "dblink"},
		{"SELECT * FROM dblink('dbname=x', 'SELECT 1') AS t(a int)", "dblink"},
		{"SELECT pg_read_file('/etc/passwd')", "files"},
		{"SELECT pg_ls_dir('.')", "folders"},
		{"SELECT query_to_xml('select 1', true, true, '')", "runs a string as SQL"},
		{"SELECT ts_stat('select 1')", "runs a string as SQL"},
		{"SELECT brin_summarize_new_values('i')", "BRIN"},
		{"SELECT pg_reload_conf()", "signals"},
		{"SELECT 'pg_advisory_lock(1)'", "string"},
		{"SELECT $q$ select nextval('s') $q$", "string"},
		{"SELECT E'\\'; SELECT pg_advisory_lock(1); --'", "string"},
		{"SELECT 'a\\' , pg_advisory_lock(1), 'b'", "advisory lock"},
		{"/* x */ -- y\n DELETE FROM items", "DELETE"},
		{"(DELETE FROM items)", "DELETE"},
		{"(EXPLAIN SELECT 1)", "parentheses"},
		{"SHOW search_path; SET x = 1", "one statement"},
		{"SHOW (1)", "setting name"},
		{"", "empty"},
		{"  ;  -- nothing\n", "empty"},
	}
	for _, c := range cases {
		_, err := Classify(c.in)
		if err == nil {
			t.Errorf("Classify(%q) allowed it", c.in)
			continue
		}
		if !strings.Contains(strings.ToLower(err.Error()), strings.ToLower(c.want)) {
			t.Errorf("Classify(%q) = %v, want it to mention %q", c.in, err, c.want)
		}
		if strings.ContainsAny(err.Error(), "\n") {
			t.Errorf("Classify(%q): the error is not one line: %q", c.in, err)
		}
	}
}
