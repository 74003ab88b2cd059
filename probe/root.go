package probe

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// systemRoots are folders that are never an environment: the whole file
// system, and the kernel's pseudo-files, whose reads can block, never end
// or expose process memory.
var systemRoots = []string{"/proc", "/sys", "/dev"}

// CheckTarget checks, when an environment is added, that path can be the
// target of a kind environment: a regular file for sql, a folder for files;
// never "/", /proc, /sys, /dev or anything under them, a FIFO, socket or
// device. It returns the absolute path, and whether the path itself is a
// symbolic link: an environment added through a link records that
// (Env.Symlink), and only then is its link followed by probes.
func CheckTarget(kind Kind, path string) (abs string, symlink bool, err error) {
	abs, err = filepath.Abs(path)
	if err != nil {
		return "", false, err
	}
	li, err := os.Lstat(abs)
	if err != nil {
		return "", false, err
	}
	symlink = li.Mode()&fs.ModeSymlink != 0
	if _, err := checkedInfo(Env{Kind: kind, Path: abs, Symlink: symlink}); err != nil {
		return "", false, err
	}
	return abs, symlink, nil
}

// checkedInfo is the check a probe makes on env's root before every run:
// the root is not a symbolic link (unless it was added as one), is of the
// kind's type and is not a system folder. It returns the root's FileInfo,
// so that the opened root can be compared with it (pinned).
func checkedInfo(env Env) (fs.FileInfo, error) {
	what := "the folder"
	if env.Kind == KindSQL {
		what = "the database"
	}
	info, err := os.Lstat(env.Path)
	if err != nil {
		return nil, fmt.Errorf("cannot open %s %s: %w", what, env.Path, err)
	}
	if info.Mode()&fs.ModeSymlink != 0 {
		to, _ := os.Readlink(env.Path)
		if !env.Symlink {
			return nil, refusedf("the environment's path %s is a symbolic link (to %s) but was not added as one; it is not followed (re-add the environment if the link is meant)", env.Path, to)
		}
		if info, err = os.Stat(env.Path); err != nil {
			return nil, fmt.Errorf("cannot open %s %s: %w", what, env.Path, err)
		}
	}
	real, err := filepath.EvalSymlinks(env.Path)
	if err != nil {
		return nil, fmt.Errorf("cannot open %s %s: %w", what, env.Path, err)
	}
	if isSystemPath(real) {
		return nil, refusedf("%s is a system path: /, /proc, /sys, /dev and what is under them cannot be environments", real)
	}
	switch {
	case env.Kind == KindFiles && !info.IsDir():
		return nil, refusedf("the files environment %s is a %s, not a folder", env.Path, entryType(info.Mode()))
	case env.Kind == KindSQL && !info.Mode().IsRegular():
		return nil, refusedf("the sql environment %s is a %s, not a regular database file", env.Path, entryType(info.Mode()))
	}
	return info, nil
}

func isSystemPath(p string) bool {
	p = filepath.Clean(p)
	if p == "/" {
		return true
	}
	for _, s := range systemRoots {
		if p == s || strings.HasPrefix(p, s+"/") {
			return true
		}
	}
	return false
}

// openPinnedRoot opens env's folder as an *os.Root after checkedInfo, and
// makes sure the folder opened is the one checked: a root swapped for a
// link between the check and the open is refused, and every operation of
// the run goes through the opened handle, never the path again.
func openPinnedRoot(env Env) (*os.Root, error) {
	want, err := checkedInfo(env)
	if err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(env.Path)
	if err != nil {
		return nil, fmt.Errorf("cannot open the folder %s: %w", env.Path, err)
	}
	got, err := root.Stat(".")
	if err != nil || !os.SameFile(want, got) {
		root.Close()
		if err == nil {
			err = errors.New("it changed while it was being opened; run the probe again")
		}
		return nil, fmt.Errorf("cannot open the folder %s: %w", env.Path, err)
	}
	return root, nil
}
