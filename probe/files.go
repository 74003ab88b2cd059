package probe

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/memreview/memreview/probe/docs"
)

// sniffLen is how much of a file is checked for a NUL byte; a file with one
// is binary and is described, never dumped.
const sniffLen = 8 << 10

// runFiles runs one files request under env's folder, opened and pinned
// once (openPinnedRoot).
func runFiles(ctx context.Context, env Env, input string, lim Limits, r *Result) error {
	op, err := parseFilesInput(input)
	if err != nil {
		return err
	}
	rel, err := cleanRel(op.Path)
	if err != nil {
		return err
	}
	root, err := openPinnedRoot(env)
	if err != nil {
		return err
	}
	defer root.Close()
	switch op.Verb {
	case "ls":
		return listDir(root, rel, lim, r)
	case "stat":
		if f, ok := docs.FormatOf(rel); ok {
			return statDocument(ctx, root, rel, f, r)
		}
		return statPath(root, rel, r)
	case "read":
		if f, ok := docs.FormatOf(rel); ok {
			return readDocument(ctx, root, rel, f, op, lim, r)
		}
		if op.Page != 0 || op.Slide != 0 || op.Sheet != "" {
			return fmt.Errorf("read: --page, --slide and --sheet are for PDF, PPTX and XLSX files; %s is read as text", rel)
		}
		return readFile(root, rel, op.Offset, op.Limit, lim, r)
	case "grep":
		return grep(ctx, root, rel, op, lim, r)
	case "csv":
		return readCSV(root, rel, lim, r)
	case "sheet":
		return sheetTable(ctx, root, rel, op, lim, r)
	}
	return fmt.Errorf("unknown files request %q: %s", op.Verb, filesUsage)
}

// cleanRel checks that p names something inside the folder and returns it
// cleaned, with forward slashes. Absolute paths and ".." escapes are
// refused before anything is opened.
func cleanRel(p string) (string, error) {
	if p == "" {
		p = "."
	}
	if strings.ContainsRune(p, 0) {
		return "", refusedf("the path %q holds a NUL byte", p)
	}
	if filepath.IsAbs(p) || strings.HasPrefix(p, "/") || strings.HasPrefix(p, `\`) {
		return "", refusedf("%s is an absolute path; paths are relative to the environment folder", p)
	}
	c := path.Clean(filepath.ToSlash(p))
	if c == ".." || strings.HasPrefix(c, "../") {
		return "", refusedf("%s leads outside the environment folder", p)
	}
	return c, nil
}

// lstatNoLinks returns the Lstat of rel after checking that no component
// of it is a symbolic link: the files probe never follows links.
func lstatNoLinks(root *os.Root, rel string) (fs.FileInfo, error) {
	if rel == "." {
		return root.Lstat(".")
	}
	parts := strings.Split(rel, "/")
	var info fs.FileInfo
	for i := range parts {
		p := strings.Join(parts[:i+1], "/")
		var err error
		if info, err = root.Lstat(p); err != nil {
			return nil, notFound(rel, err)
		}
		if info.Mode()&fs.ModeSymlink != 0 {
			return nil, refusedf("%s is a symbolic link; the files probe does not follow links", p)
		}
	}
	return info, nil
}

func notFound(rel string, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s does not exist in the environment folder", rel)
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return fmt.Errorf("cannot read %s: %v", rel, err)
}

// openRegular opens rel for reading after checking, without opening it,
// that it is a regular file reached through no link. A FIFO or device is
// refused before open, so it can never block the probe.
func openRegular(root *os.Root, rel string) (*os.File, fs.FileInfo, error) {
	info, err := lstatNoLinks(root, rel)
	if err != nil {
		return nil, nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, nil, refusedf("%s is a %s; only regular files can be read", rel, entryType(info.Mode()))
	}
	f, err := root.OpenFile(rel, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, notFound(rel, err)
	}
	now, err := f.Stat()
	if err != nil || !os.SameFile(info, now) {
		f.Close()
		return nil, nil, fmt.Errorf("%s changed while it was being opened; run the probe again", rel)
	}
	return f, now, nil
}

// isBinary reports whether f has a NUL byte in its first 8 KiB.
func isBinary(f *os.File) (bool, error) {
	buf := make([]byte, sniffLen)
	n, err := f.ReadAt(buf, 0)
	if err != nil && err != io.EOF {
		return false, err
	}
	return bytes.IndexByte(buf[:n], 0) >= 0, nil
}

func entryType(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "file"
	case m.IsDir():
		return "dir"
	case m&fs.ModeSymlink != 0:
		return "symbolic link"
	case m&fs.ModeNamedPipe != 0:
		return "named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeDevice != 0:
		return "device"
	}
	return "special file"
}

func listDir(root *os.Root, rel string, lim Limits, r *Result) error {
	info, err := lstatNoLinks(root, rel)
	if err != nil {
		return err
	}
	if !info.IsDir() {
		return fmt.Errorf("%s is a %s, not a folder; use stat or read", rel, entryType(info.Mode()))
	}
	f, err := root.Open(rel)
	if err != nil {
		return notFound(rel, err)
	}
	defer f.Close()
	entries, err := f.ReadDir(-1)
	if err != nil {
		return notFound(rel, err)
	}
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	r.Columns = []string{"name", "type", "size"}
	for _, e := range entries {
		if len(r.Rows) >= lim.MaxRows {
			r.Truncated = true
			break
		}
		var size any
		fi, err := e.Info()
		if err == nil && fi.Mode().IsRegular() {
			size = fi.Size()
		}
		r.Rows = append(r.Rows, []any{e.Name(), entryType(e.Type()), size})
	}
	return nil
}

func statPath(root *os.Root, rel string, r *Result) error {
	info, err := lstatNoLinks(root, rel)
	if err != nil {
		return err
	}
	r.Columns = []string{"path", "type", "size", "mode", "modified"}
	r.Rows = [][]any{{rel, entryType(info.Mode()), info.Size(), info.Mode().String(),
		info.ModTime().UTC().Format(time.RFC3339)}}
	return nil
}

func readFile(root *os.Root, rel string, offset, limit int64, lim Limits, r *Result) error {
	f, info, err := openRegular(root, rel)
	if err != nil {
		return err
	}
	defer f.Close()
	if bin, err := isBinary(f); err != nil {
		return notFound(rel, err)
	} else if bin {
		r.Text = fmt.Sprintf("binary file, %d bytes", info.Size())
		return nil
	}
	n, capped := limit, false
	if n == 0 || n > int64(lim.MaxBytes) {
		n, capped = int64(lim.MaxBytes), true
	}
	buf, err := io.ReadAll(io.NewSectionReader(f, offset, n))
	if err != nil {
		return notFound(rel, err)
	}
	if capped && offset+int64(len(buf)) < info.Size() {
		r.Truncated = true
		buf = trimPartialRune(buf)
	}
	r.Text = string(buf)
	return nil
}

// trimPartialRune drops an incomplete UTF-8 sequence cut at the end of b.
func trimPartialRune(b []byte) []byte {
	for i := 1; i <= utf8.UTFMax && i <= len(b); i++ {
		if utf8.RuneStart(b[len(b)-i]) {
			if !utf8.FullRune(b[len(b)-i:]) {
				return b[:len(b)-i]
			}
			break
		}
	}
	return b
}
