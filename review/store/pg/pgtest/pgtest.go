// Package pgtest starts throwaway PostgreSQL servers for tests: Debian's
// postgresql binaries, initdb into a temporary directory (a copy of the
// first initdb's result, kept in the user's cache folder), pg_ctl start
// listening only on a unix socket inside it (no TCP port, nothing shared).
//
// A test package runs its tests through Main from TestMain; the first test
// that asks for the package's server (Shared, NewDB) starts it, so a run
// of tests that need none starts none, and Main stops it at the end. Each
// test gets a fresh database on it (NewDB, CreateDatabase) and, for probe
// tests, a role that may only read it (ReadOnlyRole). When PostgreSQL is
// not installed the tests skip with a message saying how to run them,
// unless MEMREVIEW_REQUIRE_PG=1 or MEMREVIEW_CI=1 (as .ci/run sets), when they fail.
//
// It is the one throwaway-server helper of the module: the store's tests,
// the probe layer's, the service's, the CLI's and the TUI's use it (a test
// may import a test helper from any floor).
package pgtest

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Missing is the message a test skips with when PostgreSQL is absent.
const Missing = "PostgreSQL is not installed, so this test cannot start a server: " +
	"install it (apt-get install -y postgresql) or set MEMREVIEW_PG_BIN to the folder holding initdb and pg_ctl; " +
	"MEMREVIEW_REQUIRE_PG=1 turns this skip into a failure"

// Bin finds the folder holding initdb and pg_ctl: $MEMREVIEW_PG_BIN, the
// newest /usr/lib/postgresql/*/bin, or $PATH.
func Bin() (string, error) {
	if d := os.Getenv("MEMREVIEW_PG_BIN"); d != "" {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err != nil {
			return "", fmt.Errorf("MEMREVIEW_PG_BIN=%s holds no initdb", d)
		}
		return d, nil
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return version(dirs[i]) > version(dirs[j]) })
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			return d, nil
		}
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(p), nil
	}
	return "", errors.New(Missing)
}

func version(binDir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return n
}

// Server is one running PostgreSQL cluster in a temporary directory.
type Server struct {
	Dir     string // the temporary directory: data/, sock/, log
	Durable bool   // fsync on, as a production server (benchmarks)
	bin     string
	runAs   string // "" or the user initdb and pg_ctl run as (when we are root)
	nextDB  atomic.Int64
}

// Start makes a cluster in a new temporary directory and starts it, with
// fsync off.
func Start() (*Server, error) { return start(false) }

// StartDurable is Start with fsync and full-page writes on, as a
// production server runs: for benchmarks that compare with SQLite's
// synchronous=FULL.
func StartDurable() (*Server, error) { return start(true) }

func start(durable bool) (*Server, error) {
	bin, err := Bin()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "pgtest")
	if err != nil {
		return nil, err
	}
	s := &Server{Dir: dir, bin: bin, Durable: durable}
	if os.Geteuid() == 0 { // initdb refuses root: run the server as postgres
		u, err := user.Lookup("postgres")
		if err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("pgtest: running as root and there is no postgres user to run the server as: %w", err)
		}
		s.runAs = u.Username
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
	}
	if err := s.initdb(); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	if err := s.run("mkdir-sock"); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	if err := s.Restart(); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return s, nil
}

func (s *Server) data() string { return filepath.Join(s.Dir, "data") }

var initdbArgs = []string{"-U", "postgres", "--auth=trust", "-E", "UTF8", "--locale=C", "--no-sync"}

// initdb makes the server's data directory. initdb takes seconds, so its
// first result is kept in the user's cache folder (one cluster per
// PostgreSQL build and user, see templateDir) and later servers start from
// a copy of it (cp -a, a fraction of that). Without a cache folder, or when
// the copy fails, it runs initdb.
func (s *Server) initdb() error {
	tpl := s.templateDir()
	if tpl != "" {
		if _, err := os.Stat(filepath.Join(tpl, "PG_VERSION")); err == nil {
			if exec.Command("cp", "-a", tpl, s.data()).Run() == nil {
				return nil
			}
			os.RemoveAll(s.data())
		}
	}
	if err := s.run("initdb", append([]string{"-D", s.data()}, initdbArgs...)...); err != nil {
		return err
	}
	if tpl != "" {
		s.keepTemplate(tpl)
	}
	return nil
}

// templateDir is where the cluster initdb made for this PostgreSQL build
// (its initdb's path, size and time) and server user is kept; "" without a
// user cache folder.
func (s *Server) templateDir() string {
	cache, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	fi, err := os.Stat(filepath.Join(s.bin, "initdb"))
	if err != nil {
		return ""
	}
	key := fmt.Sprintf("%s|%d|%d|%s|%s", s.bin, fi.Size(), fi.ModTime().UnixNano(), s.runAs, strings.Join(initdbArgs, " "))
	return filepath.Join(cache, "memreview", "pgtest", fmt.Sprintf("%x", sha256.Sum256([]byte(key)))[:16])
}

// keepTemplate copies the fresh data directory to tpl, atomically: a
// copy made beside it is renamed into place (when another test process
// got there first, its copy stays).
func (s *Server) keepTemplate(tpl string) {
	if err := os.MkdirAll(filepath.Dir(tpl), 0o755); err != nil {
		return
	}
	tmp, err := os.MkdirTemp(filepath.Dir(tpl), "new-")
	if err != nil {
		return
	}
	defer os.RemoveAll(tmp)
	if exec.Command("cp", "-a", s.data(), filepath.Join(tmp, "data")).Run() == nil {
		os.Rename(filepath.Join(tmp, "data"), tpl)
	}
}

// Socket is the folder holding the server's unix socket.
func (s *Server) Socket() string { return filepath.Join(s.Dir, "sock") }

func (s *Server) run(tool string, args ...string) error {
	var cmd *exec.Cmd
	if tool == "mkdir-sock" {
		tool, args = "mkdir", []string{"-p", s.Socket()}
		cmd = exec.Command(tool, args...)
	} else {
		cmd = exec.Command(filepath.Join(s.bin, tool), args...)
	}
	if s.runAs != "" {
		cmd = exec.Command("runuser", append([]string{"-u", s.runAs, "--", cmd.Path}, args...)...)
	}
	cmd.Dir = s.Dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("pgtest: %s %s: %v\n%s", tool, strings.Join(args, " "), err, out)
	}
	return nil
}

// Restart starts the server (again, after Stop). It listens on the unix
// socket only; fsync is off (tests need atomicity, not power-loss safety),
// synchronous commit stays on so an immediate stop loses no commit.
func (s *Server) Restart() error {
	opts := fmt.Sprintf("-c listen_addresses='' -k %s -c max_connections=200", s.Socket())
	if !s.Durable {
		opts += " -c fsync=off -c full_page_writes=off"
	}
	return s.run("pg_ctl", "-D", s.data(), "-l", filepath.Join(s.Dir, "log"), "-w", "-t", "60", "-o", opts, "start")
}

// Stop stops the server; mode is smart, fast or immediate (a crash: no
// checkpoint, every connection cut).
func (s *Server) Stop(mode string) error {
	return s.run("pg_ctl", "-D", s.data(), "-m", mode, "-w", "stop")
}

// Close stops the server and removes its directory.
func (s *Server) Close() error {
	err := s.Stop("fast")
	os.RemoveAll(s.Dir)
	return err
}

// DSN is the URL of database db on this server as the superuser.
func (s *Server) DSN(db string) string { return s.URL("postgres", db) }

// URL is the URL of database db on this server as role, with no password
// (the cluster trusts its unix socket).
func (s *Server) URL(role, db string) string {
	return "postgres://" + url.PathEscape(role) + "@/" + db + "?host=" + url.QueryEscape(s.Socket())
}

// Admin connects to database db as the superuser.
func (s *Server) Admin(ctx context.Context, db string) (*pgx.Conn, error) {
	c, err := pgx.Connect(ctx, s.DSN(db))
	if err != nil {
		return nil, fmt.Errorf("pgtest: connect: %w", err)
	}
	return c, nil
}

// CreateDatabase makes a new empty database and returns its name.
func (s *Server) CreateDatabase(ctx context.Context) (string, error) {
	name := fmt.Sprintf("t%d_%d", os.Getpid(), s.nextDB.Add(1))
	c, err := s.Admin(ctx, "postgres")
	if err != nil {
		return "", err
	}
	defer c.Close(ctx)
	if _, err := c.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		return "", fmt.Errorf("pgtest: create database: %w", err)
	}
	return name, nil
}

// CreateDB makes a new empty database and returns its URL.
func (s *Server) CreateDB(ctx context.Context) (string, error) {
	name, err := s.CreateDatabase(ctx)
	if err != nil {
		return "", err
	}
	return s.DSN(name), nil
}

// ReadOnlyRole makes role a login role that may connect to database db and
// read every table of its public schema, those made later included (the
// role a README tells an operator to make for probes), and returns the
// URL of db as that role. Roles belong to the whole server: name one per
// database.
func (s *Server) ReadOnlyRole(ctx context.Context, db, role string) (string, error) {
	c, err := s.Admin(ctx, db)
	if err != nil {
		return "", err
	}
	defer c.Close(ctx)
	r := pgx.Identifier{role}.Sanitize()
	for _, q := range []string{
		"CREATE ROLE " + r + " LOGIN",
		"GRANT CONNECT ON DATABASE " + pgx.Identifier{db}.Sanitize() + " TO " + r,
		"GRANT USAGE ON SCHEMA public TO " + r,
		"GRANT SELECT ON ALL TABLES IN SCHEMA public TO " + r,
		"ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT ON TABLES TO " + r,
	} {
		if _, err := c.Exec(ctx, q); err != nil {
			return "", fmt.Errorf("pgtest: %s: %w", q, err)
		}
	}
	return s.URL(role, db), nil
}

// The package's shared server, started by the first test that asks.
var (
	sharedOnce sync.Once
	shared     *Server
	startErr   error
)

// Main runs a test package's tests: call it from TestMain as
// os.Exit(pgtest.Main(m)). The shared server starts when a test first
// asks for it (Shared, NewDB) and stops when the tests end; a server that
// cannot start is remembered and reported by each test that needs it.
func Main(m *testing.M) int {
	code := m.Run()
	sharedOnce.Do(func() { startErr = errors.New("pgtest: the tests have ended") })
	if shared != nil {
		shared.Close()
	}
	return code
}

// Shared returns the package's server, starting it on first use, or skips
// (fails under MEMREVIEW_REQUIRE_PG=1) when PostgreSQL is absent. The
// package's TestMain must run its tests through Main, which stops it.
func Shared(t testing.TB) *Server {
	t.Helper()
	sharedOnce.Do(func() { shared, startErr = Start() })
	if shared == nil {
		unavailable(t, startErr)
	}
	return shared
}

// NewDB returns the URL of a fresh database on the package's server.
func NewDB(t testing.TB) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	dsn, err := Shared(t).CreateDB(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return dsn
}

// Own starts a server for this test alone (for tests that stop it) and
// removes it when the test ends.
func Own(t testing.TB) *Server {
	t.Helper()
	s, err := Start()
	if err != nil {
		unavailable(t, err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// OwnDB is Own and CreateDB in one: the URL of a fresh database on a server
// for this test alone, removed when the test ends.
func OwnDB(t testing.TB) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	dsn, err := Own(t).CreateDB(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return dsn
}

func unavailable(t testing.TB, err error) {
	t.Helper()
	if err == nil {
		err = errors.New("pgtest: no server: call pgtest.Main from TestMain")
	}
	if err.Error() == Missing && os.Getenv("MEMREVIEW_REQUIRE_PG") != "1" && os.Getenv("MEMREVIEW_CI") != "1" {
		t.Skip(Missing)
	}
	t.Fatal(err)
}
