//go:build unix

package cli

import (
	"os/exec"
	"syscall"
)

// detach starts cmd in a session of its own, so that it outlives this
// process and its terminal.
func detach(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} }
