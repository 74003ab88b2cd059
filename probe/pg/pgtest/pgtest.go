// Package pgtest starts one throwaway PostgreSQL server for a test
// package of the probe layer, from Debian's postgresql binaries: initdb
// into a temporary folder (copied from a cluster kept in the user's cache
// folder after the first run), listening on a unix socket only.
//
// It follows review/pgstore/pgtest, which sits above the probe layer and
// cannot be imported from it; it imports only pgx. Without PostgreSQL the
// tests skip with a message saying how to run them, and fail under
// MEMREVIEW_REQUIRE_PG=1.
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
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"
)

// Missing is the message tests skip with when PostgreSQL is absent.
const Missing = "PostgreSQL is not installed, so this test cannot start a server: " +
	"install it (apt-get install -y postgresql) or set MEMREVIEW_PG_BIN to the folder holding initdb and pg_ctl; " +
	"MEMREVIEW_REQUIRE_PG=1 turns this skip into a failure"

// Server is one running cluster.
type Server struct {
	dir, bin, runAs string
	next            atomic.Int64
}

func binDir() (string, error) {
	if d := os.Getenv("MEMREVIEW_PG_BIN"); d != "" {
		return d, nil
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	sort.Slice(dirs, func(i, j int) bool { return ver(dirs[i]) > ver(dirs[j]) })
	if len(dirs) > 0 {
		return filepath.Dir(dirs[0]), nil
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(p), nil
	}
	return "", errors.New(Missing)
}

func ver(initdb string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(initdb))))
	return n
}

// Start makes and starts a cluster (fsync off) in a new temporary folder.
func Start() (*Server, error) {
	bin, err := binDir()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "probe-pgtest")
	if err != nil {
		return nil, err
	}
	s := &Server{dir: dir, bin: bin}
	if os.Geteuid() == 0 { // initdb refuses root
		u, err := user.Lookup("postgres")
		if err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("pgtest: running as root with no postgres user to run the server as: %w", err)
		}
		s.runAs = u.Username
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
	}
	if err := s.initdb(); err == nil {
		err = s.run("mkdir", "-p", s.socket())
		if err == nil {
			opts := fmt.Sprintf("-c listen_addresses='' -k %s -c fsync=off -c full_page_writes=off -c max_connections=100", s.socket())
			err = s.run(filepath.Join(bin, "pg_ctl"), "-D", s.data(), "-l", filepath.Join(dir, "log"), "-w", "-t", "60", "-o", opts, "start")
		}
		if err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
	} else {
		os.RemoveAll(dir)
		return nil, err
	}
	return s, nil
}

func (s *Server) data() string   { return filepath.Join(s.dir, "data") }
func (s *Server) socket() string { return filepath.Join(s.dir, "sock") }

var initdbArgs = []string{"-U", "postgres", "--auth=trust", "-E", "UTF8", "--locale=C", "--no-sync"}

// initdb copies the cached cluster for this build, or makes one and
// caches it.
func (s *Server) initdb() error {
	var tpl string
	if cache, err := os.UserCacheDir(); err == nil {
		if fi, err := os.Stat(filepath.Join(s.bin, "initdb")); err == nil {
			key := fmt.Sprintf("%s|%d|%d|%s|%s", s.bin, fi.Size(), fi.ModTime().UnixNano(), s.runAs, strings.Join(initdbArgs, " "))
			tpl = filepath.Join(cache, "memreview", "probe-pgtest", fmt.Sprintf("%x", sha256.Sum256([]byte(key)))[:16])
		}
	}
	if tpl != "" {
		if _, err := os.Stat(filepath.Join(tpl, "PG_VERSION")); err == nil && exec.Command("cp", "-a", tpl, s.data()).Run() == nil {
			return nil
		}
		os.RemoveAll(s.data())
	}
	if err := s.run(filepath.Join(s.bin, "initdb"), append([]string{"-D", s.data()}, initdbArgs...)...); err != nil {
		return err
	}
	if tpl != "" && os.MkdirAll(filepath.Dir(tpl), 0o755) == nil {
		if tmp, err := os.MkdirTemp(filepath.Dir(tpl), "new-"); err == nil {
			if exec.Command("cp", "-a", s.data(), filepath.Join(tmp, "data")).Run() == nil {
				os.Rename(filepath.Join(tmp, "data"), tpl)
			}
			os.RemoveAll(tmp)
		}
	}
	return nil
}

func (s *Server) run(tool string, args ...string) error {
	cmd := exec.Command(tool, args...)
	if s.runAs != "" {
		cmd = exec.Command("runuser", append([]string{"-u", s.runAs, "--", tool}, args...)...)
	}
	cmd.Dir = s.dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("pgtest: %s %s: %v\n%s", filepath.Base(tool), strings.Join(args, " "), err, out)
	}
	return nil
}

// Close stops the server and removes its folder.
func (s *Server) Close() {
	s.run(filepath.Join(s.bin, "pg_ctl"), "-D", s.data(), "-m", "fast", "-w", "stop")
	os.RemoveAll(s.dir)
}

// URL is the URL of database db on the server as role (no password: the
// cluster trusts its unix socket).
func (s *Server) URL(role, db string) string {
	return "postgres://" + url.PathEscape(role) + "@/" + db + "?host=" + url.QueryEscape(s.socket())
}

// Admin connects to database db as the superuser.
func (s *Server) Admin(ctx context.Context, db string) (*pgx.Conn, error) {
	return pgx.Connect(ctx, s.URL("postgres", db))
}

// CreateDB makes a new empty database and returns its name.
func (s *Server) CreateDB(ctx context.Context) (string, error) {
	name := fmt.Sprintf("p%d_%d", os.Getpid(), s.next.Add(1))
	c, err := s.Admin(ctx, "postgres")
	if err != nil {
		return "", err
	}
	defer c.Close(ctx)
	if _, err := c.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		return "", err
	}
	return name, nil
}

var (
	shared   *Server
	startErr error
)

// Main runs a test package with one server shared by its tests: call it
// from TestMain as os.Exit(pgtest.Main(m)).
func Main(m *testing.M) int {
	shared, startErr = Start()
	code := m.Run()
	if shared != nil {
		shared.Close()
	}
	return code
}

// Shared returns the package's server, or skips (fails under
// MEMREVIEW_REQUIRE_PG=1) when PostgreSQL is absent.
func Shared(t testing.TB) *Server {
	t.Helper()
	if shared != nil {
		return shared
	}
	err := startErr
	if err == nil {
		err = errors.New("pgtest: no server: call pgtest.Main from TestMain")
	}
	if err.Error() == Missing && os.Getenv("MEMREVIEW_REQUIRE_PG") != "1" {
		t.Skip(Missing)
	}
	t.Fatal(err)
	return nil
}
