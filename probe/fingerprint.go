package probe

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io/fs"
	"strconv"
)

// fingerprintLen is how many hex digits of the SHA-256 a fingerprint keeps.
const fingerprintLen = 16

// Fingerprint hashes what an environment's probes depend on: for sql the
// rows of sqlite_schema (type, name, tbl_name, sql, ordered), for files
// every relative path under the folder with its type, size and
// modification time, for postgres the tables, columns and types the probe
// role sees in information_schema, for mcp the tool list with annotations
// and input schemas (opening a connection or session for the call: a
// Runner keeps them). It is the first 16 hex digits of a SHA-256, stable
// across runs while the environment is unchanged.
func Fingerprint(ctx context.Context, env Env) (string, error) {
	h := sha256.New()
	var err error
	switch env.Kind {
	case KindSQL:
		if _, err = checkedInfo(env); err == nil {
			err = schemaHash(ctx, env.Path, h)
		}
	case KindFiles:
		err = treeHash(ctx, env, h)
	case KindPostgres, KindMCP:
		r := NewRunner()
		defer r.Close()
		return r.Fingerprint(ctx, env)
	default:
		err = fmt.Errorf("environment %q has unknown kind %q", env.Name, env.Kind)
	}
	if err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil))[:fingerprintLen], nil
}

// field writes s length-prefixed, so ("ab","c") and ("a","bc") differ.
func field(h hash.Hash, s string) {
	h.Write([]byte(strconv.Itoa(len(s))))
	h.Write([]byte{':'})
	h.Write([]byte(s))
}

func schemaHash(ctx context.Context, path string, h hash.Hash) error {
	db, conn, d, err := openReadOnly(ctx, path, DefaultLimits())
	if err != nil {
		return err
	}
	defer db.Close()
	defer conn.Close()
	rows, err := conn.QueryContext(ctx,
		"SELECT type, name, tbl_name, coalesce(sql, '') FROM sqlite_schema ORDER BY type, name, tbl_name, sql")
	if err != nil {
		return d.explain(err)
	}
	defer rows.Close()
	for rows.Next() {
		var typ, name, tbl, sqlText string
		if err := rows.Scan(&typ, &name, &tbl, &sqlText); err != nil {
			return err
		}
		for _, s := range []string{typ, name, tbl, sqlText} {
			field(h, s)
		}
	}
	return rows.Err()
}

func treeHash(ctx context.Context, env Env, h hash.Hash) error {
	root, err := openPinnedRoot(env)
	if err != nil {
		return err
	}
	defer root.Close()
	return fs.WalkDir(root.FS(), ".", func(p string, de fs.DirEntry, err error) error {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil && de == nil {
			return err // the folder itself cannot be read
		}
		var info fs.FileInfo
		if err == nil {
			info, err = de.Info()
		}
		if err != nil {
			// An unreadable entry is part of the fingerprint, not a failure.
			field(h, p)
			field(h, "unreadable")
			if de.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		field(h, p)
		field(h, entryType(info.Mode()))
		if !info.IsDir() {
			field(h, strconv.FormatInt(info.Size(), 10))
			field(h, strconv.FormatInt(info.ModTime().UnixNano(), 10))
		}
		return nil
	})
}
