package pg

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/memreview/memreview/review"
)

// A bank written at schema 1 opens at the current schema with its data,
// keeps its bank id, and gains the later tables; a bank newer than this
// code is refused, naming both versions.
func TestSchemaMigratesForward(t *testing.T) {
	t.Parallel()
	s, url := open(t)
	db := s.DB()
	must := func(q string, args ...any) {
		t.Helper()
		if _, err := db.Exec(q, args...); err != nil {
			t.Fatal(err)
		}
	}
	// Take the bank back to schema 1, holding one record.
	if err := s.PutRecords([]review.Record{rec("mem_old", "from schema 1")}, "t", ""); err != nil {
		t.Fatal(err)
	}
	must(`DROP TABLE claims`)
	must(`DROP TABLE agent_tokens`)
	must(`DROP TABLE agent_audit`)
	must(`ALTER TABLE proposals DROP COLUMN screen_rules, DROP COLUMN flagged`)
	must(`DROP TABLE retrieval_log`)
	must(`UPDATE memreview_meta SET value = '1' WHERE key = 'schema_version'`)
	id := s.BankID()

	again := openURL(t, url)
	if again.BankID() != id {
		t.Fatalf("bank id %q after migration, was %q", again.BankID(), id)
	}
	if r, err := again.Record("mem_old"); err != nil || r.Lemma != "from schema 1" {
		t.Fatalf("record after migration: %+v %v", r, err)
	}
	var v string
	if err := db.QueryRow(`SELECT value FROM memreview_meta WHERE key = 'schema_version'`).Scan(&v); err != nil || v != strconv.Itoa(schemaVersion) {
		t.Fatalf("schema version %q %v, want %d", v, err, schemaVersion)
	}
	if _, err := again.Claims(); err != nil {
		t.Fatalf("claims table missing after migration: %v", err)
	}

	must(`UPDATE memreview_meta SET value = '99' WHERE key = 'schema_version'`)
	_, err := Open(context.Background(), url, Options{ConfigDir: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("bank schema version 99 is newer than this memreview understands (%d)", schemaVersion)) {
		t.Fatalf("open of a newer bank: %v", err)
	}
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM records`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("the refused open changed the bank: %d records, %v", n, err)
	}
}
