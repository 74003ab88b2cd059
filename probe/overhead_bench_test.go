package probe_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/memreview/memreview/probe"
	"github.com/memreview/memreview/sample"
)

// overheadQuery is the probe every variant runs: a join and an aggregate
// over the sample world's shop database, one row of output.
const overheadQuery = "SELECT COUNT(*), ROUND(AVG(f.stars), 2) FROM fdbk_g2 f JOIN items_g2 i ON f.ref_id = i.item_id WHERE i.in_stock = 1"

// shopDB generates the sample world into a temporary directory, removed
// when b ends, and returns the path of its shop.db.
func shopDB(b *testing.B) string {
	b.Helper()
	bank := filepath.Join(b.TempDir(), "bank")
	if err := sample.Generate(bank, sample.Seed); err != nil {
		b.Fatal(err)
	}
	return filepath.Join(bank, sample.ShopPath)
}

// plainQuery runs q on db and reads every cell, as a probe does.
func plainQuery(b *testing.B, db *sql.DB, q string) {
	rows, err := db.Query(q)
	if err != nil {
		b.Fatal(err)
	}
	cols, _ := rows.Columns()
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			b.Fatal(err)
		}
	}
	if err := rows.Err(); err != nil {
		b.Fatal(err)
	}
	rows.Close()
}

// BenchmarkProbeOverhead compares one SQL probe through probe.Run (open
// read-only, authorizer, limits, fingerprint afterwards) with the same
// query on a plain database/sql connection, opened per call and reused.
// The overhead is probe.Run's ns/op minus plain-open-per-call's.
//
//	go test ./probe/ -run '^$' -bench 'ProbeOverhead' -count 10
func BenchmarkProbeOverhead(b *testing.B) {
	path := shopDB(b)
	env := probe.Env{Name: sample.EnvShop, Kind: probe.KindSQL, Path: path}
	b.Run("probe.Run", func(b *testing.B) {
		for b.Loop() {
			r := probe.Run(context.Background(), env, overheadQuery, probe.Limits{})
			if !r.OK() {
				b.Fatal(r.Error)
			}
		}
	})
	b.Run("fingerprint-only", func(b *testing.B) {
		// The fingerprint probe.Run takes after each run, alone.
		for b.Loop() {
			if _, err := probe.Fingerprint(context.Background(), env); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("plain-open-per-call", func(b *testing.B) {
		for b.Loop() {
			db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
			if err != nil {
				b.Fatal(err)
			}
			plainQuery(b, db, overheadQuery)
			db.Close()
		}
	})
	b.Run("plain-reused-conn", func(b *testing.B) {
		db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
		if err != nil {
			b.Fatal(err)
		}
		defer db.Close()
		db.SetMaxOpenConns(1)
		plainQuery(b, db, overheadQuery)
		for b.Loop() {
			plainQuery(b, db, overheadQuery)
		}
	})
}
