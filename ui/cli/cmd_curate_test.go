package cli

import (
	"bytes"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// curate with no endpoint and no key fails at once with a non-zero exit
// that says how to configure one, and makes no connection: every HTTP(S)
// request would go through the proxy the environment names, a listener
// here that counts what reaches it (issue 23 item 6).
func TestCurateWithoutEndpointConnectsNowhere(t *testing.T) {
	t.Parallel()
	bank := filepath.Join(t.TempDir(), "bank")
	rawWorldTemplate.CopyTo(t, bank)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var conns atomic.Int32
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns.Add(1)
			c.Close()
		}
	}()
	proxy := "http://" + ln.Addr().String()
	for _, args := range [][]string{{"curate", "traj_07"}, {"hygiene", "--llm", "--dry-run"}} {
		cmd := exec.Command(bin, append([]string{"--bank", bank}, args...)...)
		cmd.Env = append(os.Environ(), "MEMREVIEW_OPERATOR=tester", "NO_COLOR=1", "OPENAI_BASE_URL=", "OPENAI_API_KEY=", "OPENAI_MODEL=",
			"HTTPS_PROXY="+proxy, "HTTP_PROXY="+proxy, "https_proxy="+proxy, "http_proxy="+proxy, "NO_PROXY=", "no_proxy=")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		ee, ok := err.(*exec.ExitError)
		if !ok || ee.ExitCode() == 0 {
			t.Errorf("%s with no endpoint and no key: %v, want a non-zero exit; stderr: %s", args[0], err, stderr.String())
		}
		for _, want := range []string{"no model server is configured, so nothing was sent", "OPENAI_BASE_URL", "OPENAI_API_KEY", "[curator] in the bank's memreview.toml"} {
			if !strings.Contains(stderr.String(), want) {
				t.Errorf("%s's error lacks %q: %s", args[0], want, stderr.String())
			}
		}
	}
	time.Sleep(100 * time.Millisecond) // a connection the process made just before it exited
	if n := conns.Load(); n != 0 {
		t.Errorf("%d connections reached the proxy", n)
	}
}
