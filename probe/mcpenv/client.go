// Package mcpenv is the client side of mcp environments: another MCP
// server (a stdio command memreview starts, or a streamable HTTP URL)
// whose read-only tools are called as probes. It keeps one session per
// Client, restarts a session that died, bounds every message, and refuses
// a tool that is neither annotated read-only by the server nor named in
// the environment's allow-list before any call is made.
//
// It may import the MCP go-sdk and its JSON Schema package, and of
// memreview only probe: linking it in registers the mcp kind with probe
// (kind.go), so that a probe.Runner runs mcp probes; the program's
// service, review/app, imports it.
package mcpenv

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Config is one mcp environment.
type Config struct {
	Name      string   // the environment's name, for messages
	Command   []string // a stdio server: program and arguments
	Env       []string // its whole environment (KEY=value); nil gives it none
	URL       string   // or a streamable HTTP endpoint
	TokenFile string   // a file holding the HTTP server's bearer token
	Allow     []string // tools callable although not annotated read-only

	StartTimeout time.Duration // to start and answer initialize; default 20 s
	MaxMessage   int           // bytes in one JSON-RPC message; default 16 MiB
	StderrTail   int           // bytes of a stdio server's stderr kept for errors; default 8 KiB
}

// Client is the session with one MCP server, made on first use and
// remade when it has died.
type Client struct {
	cfg Config

	mu     sync.Mutex // one connect at a time; guards s and closed
	s      *session
	closed bool
}

// New checks cfg and returns a Client that connects when first used.
func New(cfg Config) (*Client, error) {
	if (len(cfg.Command) > 0) == (cfg.URL != "") {
		return nil, fmt.Errorf("the mcp environment %q needs either a command or a URL", cfg.Name)
	}
	if cfg.StartTimeout <= 0 {
		cfg.StartTimeout = 20 * time.Second
	}
	if cfg.MaxMessage <= 0 {
		cfg.MaxMessage = 16 << 20
	}
	if cfg.StderrTail <= 0 {
		cfg.StderrTail = 8 << 10
	}
	return &Client{cfg: cfg}, nil
}

// session is one connection: the go-sdk session, and for stdio the
// process, its stderr tail, and why it ended.
type session struct {
	cs     *mcp.ClientSession
	cmd    *exec.Cmd
	stderr *tail
	exited chan struct{} // closed when the process has exited (stdio)
	ended  chan struct{} // closed when the session has ended
	why    error         // why it ended, set before ended is closed
	out    *lineCap      // stdout, bounded per message (stdio)

	toolsMu sync.Mutex
	tools   []Tool // listed once per session; nil until then
}

func (s *session) alive() bool {
	select {
	case <-s.ended:
		return false
	default:
		return true
	}
}

// get returns a live session, connecting (again) when there is none.
func (c *Client) get(ctx context.Context) (*session, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, fmt.Errorf("the MCP session of %q is closed", c.cfg.Name)
	}
	if c.s != nil && c.s.alive() {
		return c.s, nil
	}
	if c.s != nil {
		c.s.stop(false)
		c.s = nil
	}
	s, err := c.connect(ctx)
	if err != nil {
		return nil, err
	}
	c.s = s
	return s, nil
}

// Close ends the session and stops a stdio server.
func (c *Client) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	if c.s != nil {
		c.s.stop(true)
		c.s = nil
	}
	return nil
}

func (c *Client) connect(ctx context.Context) (*session, error) {
	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, c.cfg.StartTimeout)
	defer cancel()
	s := &session{ended: make(chan struct{})}
	var transport mcp.Transport
	if len(c.cfg.Command) > 0 {
		t, err := c.startProcess(s)
		if err != nil {
			return nil, err
		}
		transport = t
	} else {
		t, err := c.httpTransport()
		if err != nil {
			return nil, err
		}
		transport = t
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "memreview-probe", Version: "1"}, &mcp.ClientOptions{
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			s.toolsMu.Lock()
			s.tools = nil
			s.toolsMu.Unlock()
		},
	})
	cs, err := client.Connect(ctx, transport, nil)
	if err != nil {
		why := c.startError(ctx, s, err, time.Since(start))
		s.stop(false)
		return nil, why
	}
	s.cs = cs
	go func() {
		err := cs.Wait()
		if s.exited != nil {
			select {
			case <-s.exited:
				err = c.exitError(s)
			case <-time.After(200 * time.Millisecond):
			}
		}
		s.why = err
		close(s.ended)
	}()
	return s, nil
}

// startError says why a server did not come up.
func (c *Client) startError(ctx context.Context, s *session, err error, waited time.Duration) error {
	if s.exited != nil {
		select {
		case <-s.exited:
			return fmt.Errorf("the MCP server of %q exited before it answered initialize: %v", c.cfg.Name, c.exitError(s))
		case <-time.After(100 * time.Millisecond):
		}
	}
	if ctx.Err() != nil {
		return fmt.Errorf("the MCP server of %q did not answer initialize within %s; it was stopped%s", c.cfg.Name, waited.Round(100*time.Millisecond), s.stderrNote())
	}
	return fmt.Errorf("the MCP server of %q could not be initialized: %s%s", c.cfg.Name, oneLine(err.Error()), s.stderrNote())
}

func (c *Client) exitError(s *session) error {
	st := s.cmd.ProcessState
	what := "it exited"
	if st != nil {
		what = "it exited with " + st.String()
	}
	return fmt.Errorf("%s%s", what, s.stderrNote())
}

// startProcess starts the stdio server in its own process group, with
// only cfg.Env as its environment and its stderr drained into a bounded
// tail, and returns the transport over its stdin and stdout.
func (c *Client) startProcess(s *session) (mcp.Transport, error) {
	cmd := exec.Command(c.cfg.Command[0], c.cfg.Command[1:]...)
	cmd.Env = append([]string{}, c.cfg.Env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	s.stderr = newTail(c.cfg.StderrTail)
	cmd.Stderr = s.stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("cannot start the MCP server of %q (%s): %v", c.cfg.Name, c.cfg.Command[0], unwrapExec(err))
	}
	s.cmd = cmd
	s.exited = make(chan struct{})
	go func() {
		cmd.Wait()
		close(s.exited)
	}()
	s.out = &lineCap{r: stdout, max: c.cfg.MaxMessage}
	return &mcp.IOTransport{Reader: s.out, Writer: stdin, MaxLineLength: c.cfg.MaxMessage + 1}, nil
}

// lineCap fails the read of a message (a line) longer than max, and
// remembers that it did, so the error can say so.
type lineCap struct {
	r    io.ReadCloser
	max  int
	line int
	over atomic.Bool
}

func (l *lineCap) Read(p []byte) (int, error) {
	if l.over.Load() {
		return 0, ErrTooLarge
	}
	n, err := l.r.Read(p)
	for _, b := range p[:n] {
		if b == '\n' {
			l.line = 0
		} else if l.line++; l.line > l.max {
			l.over.Store(true)
			return 0, ErrTooLarge
		}
	}
	return n, err
}

func (l *lineCap) Close() error { return l.r.Close() }

// drop stops s if it is still the client's session, so that the next
// probe starts a new one.
func (c *Client) drop(s *session) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.s == s {
		c.s = nil
		s.stop(false)
	}
}

func unwrapExec(err error) error {
	var ee *exec.Error
	if errors.As(err, &ee) {
		return ee.Err
	}
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// stop ends the session and, for stdio, the process group. A graceful
// stop closes stdin first (the MCP way) and gives the server half a second
// to exit; then, or at once for a broken session, SIGTERM, then SIGKILL.
func (s *session) stop(graceful bool) {
	if s.cs != nil {
		go s.cs.Close()
	}
	if s.cmd == nil || s.cmd.Process == nil {
		return
	}
	pgid := -s.cmd.Process.Pid
	wait := func(d time.Duration) bool {
		select {
		case <-s.exited:
			return true
		case <-time.After(d):
			return false
		}
	}
	if !(graceful && wait(500*time.Millisecond)) {
		syscall.Kill(pgid, syscall.SIGTERM)
		if !wait(500 * time.Millisecond) {
			syscall.Kill(pgid, syscall.SIGKILL)
			<-s.exited
		}
	}
	syscall.Kill(pgid, syscall.SIGKILL) // children it left behind
}

func (s *session) stderrNote() string {
	if s.stderr == nil {
		return ""
	}
	last := s.stderr.last(300)
	if last == "" {
		return ""
	}
	return "; its stderr ends: " + last
}

// httpTransport is the streamable HTTP transport with the bearer token
// and the message cap.
func (c *Client) httpTransport() (mcp.Transport, error) {
	var token string
	if c.cfg.TokenFile != "" {
		b, err := os.ReadFile(c.cfg.TokenFile)
		if err != nil {
			return nil, fmt.Errorf("cannot read the token file of %q: %v", c.cfg.Name, pathErr(err))
		}
		token = strings.TrimSpace(string(b))
		if token == "" || strings.ContainsAny(token, "\r\n") {
			return nil, fmt.Errorf("the token file of %q must hold one token on one line", c.cfg.Name)
		}
	}
	hc := &http.Client{Transport: &capped{base: http.DefaultTransport, token: token, max: int64(c.cfg.MaxMessage)}}
	return &mcp.StreamableClientTransport{Endpoint: c.cfg.URL, HTTPClient: hc, MaxRetries: 1, DisableStandaloneSSE: true}, nil
}

func pathErr(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %v", pe.Path, pe.Err)
	}
	return err
}

// capped adds the bearer token and bounds each response body.
type capped struct {
	base  http.RoundTripper
	token string
	max   int64
}

func (t *capped) RoundTrip(req *http.Request) (*http.Response, error) {
	if t.token != "" {
		req = req.Clone(req.Context())
		req.Header.Set("Authorization", "Bearer "+t.token)
	}
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden {
		resp.Body.Close()
		return nil, fmt.Errorf("the server refused the token (HTTP %d)", resp.StatusCode)
	}
	resp.Body = &limitedBody{rc: resp.Body, left: t.max}
	return resp, nil
}

// ErrTooLarge is the error of a message over the cap.
var ErrTooLarge = errors.New("the MCP server sent a message larger than the cap")

type limitedBody struct {
	rc   io.ReadCloser
	left int64
}

func (b *limitedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		return 0, ErrTooLarge
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	return n, err
}

func (b *limitedBody) Close() error { return b.rc.Close() }

// tail keeps the last bytes written to it (a server's stderr), so a flood
// costs a bounded buffer.
type tail struct {
	mu  sync.Mutex
	buf []byte
	max int
	n   int64
}

func newTail(max int) *tail { return &tail{max: max} }

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.n += int64(len(p))
	if len(p) >= t.max {
		t.buf = append(t.buf[:0], p[len(p)-t.max:]...)
		return len(p), nil
	}
	if over := len(t.buf) + len(p) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	t.buf = append(t.buf, p...)
	return len(p), nil
}

// last returns at most n bytes of the end of what was written, on one line.
func (t *tail) last(n int) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	b := t.buf
	if len(b) > n {
		b = b[len(b)-n:]
	}
	s := strings.TrimSpace(oneLine(strings.ToValidUTF8(string(b), "?")))
	if t.n > int64(len(t.buf)) && s != "" {
		s = fmt.Sprintf("(%d bytes in all) …%s", t.n, s)
	}
	return s
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
