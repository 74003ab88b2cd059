package probe

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"time"

	sqlite "modernc.org/sqlite"
)

// sqliteLimitLength is SQLITE_LIMIT_LENGTH: the largest string or blob a
// statement may build. Keeping it near the byte cap stops zeroblob(1e9) and
// friends before they allocate.
const sqliteLimitLength = 0

// BLOBs are shown as hex when they are at most this many bytes, and as
// "<blob N bytes>" otherwise.
const blobHexMax = 32

// openReadOnly opens path as a read-only, query-only SQLite database on a
// single connection with the read-only authorizer installed. The caller
// closes both the *sql.Conn and the *sql.DB.
func openReadOnly(ctx context.Context, path string, lim Limits) (*sql.DB, *sql.Conn, *denial, error) {
	fi, err := os.Stat(path)
	switch {
	case err != nil:
		return nil, nil, nil, fmt.Errorf("cannot open the database %s: %w", path, err)
	case !fi.Mode().IsRegular():
		return nil, nil, nil, fmt.Errorf("cannot open the database %s: not a regular file", path)
	}
	db, err := sql.Open("sqlite", dsn(path))
	if err != nil {
		return nil, nil, nil, fmt.Errorf("cannot open the database %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	conn, err := db.Conn(ctx)
	if err != nil {
		db.Close()
		return nil, nil, nil, fmt.Errorf("cannot open the database %s: %w", path, err)
	}
	d := &denial{}
	err = conn.Raw(func(dc any) error {
		reg, ok := dc.(sqlite.AuthorizerRegisterer)
		if !ok {
			return errors.New("the sqlite driver has no authorizer hook")
		}
		return reg.RegisterAuthorizer(d.authorize)
	})
	if err == nil {
		max := lim.MaxBytes*4 + 1024
		_, err = sqlite.Limit(conn, sqliteLimitLength, max)
	}
	if err != nil {
		conn.Close()
		db.Close()
		return nil, nil, nil, fmt.Errorf("cannot open the database %s read-only: %w", path, err)
	}
	return db, conn, d, nil
}

// dsn is a modernc "file:" URI: SQLite opens the file read-only (mode=ro,
// so it is never created), and the driver turns on query_only and
// defensive mode before the connection is handed out.
//
// A WAL-mode database would make even a read-only reader create -wal and
// -shm files beside it, which it cannot remove. When neither exists, every
// committed page is in the main file, so it is opened immutable instead
// and nothing is created. When they exist, another process owns them.
func dsn(path string) string {
	u := url.URL{Scheme: "file", Path: path, OmitHost: true}
	s := "file:" + u.EscapedPath() + "?mode=ro&_pragma=query_only(1)&_defensive=1"
	if isWAL(path) && !exists(path+"-wal") && !exists(path+"-shm") {
		s += "&immutable=1"
	}
	return s
}

// isWAL reports whether the database header says WAL mode (file format
// read and write versions 2, at offsets 18 and 19).
func isWAL(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var h [20]byte
	if _, err := f.ReadAt(h[:], 0); err != nil {
		return false
	}
	return h[18] == 2 && h[19] == 2
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// runSQL runs one read-only statement and fills r.Columns and r.Rows.
func runSQL(ctx context.Context, path, input string, lim Limits, r *Result) error {
	stmt, err := singleStatement(input)
	if err != nil {
		return err
	}
	db, conn, d, err := openReadOnly(ctx, path, lim)
	if err != nil {
		return err
	}
	defer db.Close()
	defer conn.Close()

	rows, err := conn.QueryContext(ctx, stmt)
	if err != nil {
		return d.explain(err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return d.explain(err)
	}
	r.Columns = cols
	used := 0
	for _, c := range cols {
		used += len(c)
	}
	for rows.Next() {
		if len(r.Rows) >= lim.MaxRows {
			r.Truncated = true
			break
		}
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return d.explain(err)
		}
		for i, v := range vals {
			vals[i] = plainValue(v)
			used += valueSize(vals[i])
		}
		if used > lim.MaxBytes {
			r.Truncated = true
			break
		}
		r.Rows = append(r.Rows, vals)
	}
	if err := rows.Err(); err != nil {
		return d.explain(err)
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return nil
}

// plainValue maps a driver value onto the types Result promises: int64,
// float64, string or nil. BLOBs become "x'…'" hex when short and
// "<blob N bytes>" otherwise. The driver parses TEXT in DATE, DATETIME and
// TIMESTAMP columns into time.Time; it is shown in SQLite's own
// "YYYY-MM-DD HH:MM:SS[.fff][±HH:MM]" form.
func plainValue(v any) any {
	switch t := v.(type) {
	case nil, int64, float64, string:
		return t
	case []byte:
		if len(t) <= blobHexMax {
			return fmt.Sprintf("x'%X'", t)
		}
		return fmt.Sprintf("<blob %d bytes>", len(t))
	case time.Time:
		s := t.Format("2006-01-02 15:04:05.999999999")
		if _, off := t.Zone(); off != 0 {
			s += t.Format("-07:00")
		}
		return s
	case bool:
		if t {
			return int64(1)
		}
		return int64(0)
	}
	return fmt.Sprint(v)
}

func valueSize(v any) int {
	if s, ok := v.(string); ok {
		return len(s) + 1
	}
	return 8
}

// singleStatement returns input trimmed of trailing semicolons and
// comments, or an error when it holds no statement or more than one.
func singleStatement(input string) (string, error) {
	first, rest := splitStatement(input)
	if strings.TrimSpace(first) == "" {
		return "", errors.New("empty query: give one SQL statement, such as SELECT name FROM sqlite_schema")
	}
	if !onlyTrivia(rest) {
		return "", refusedf("the sql probe runs one statement per call; found more after the first statement: %q", clip(strings.TrimSpace(rest), 60))
	}
	return first, nil
}

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
