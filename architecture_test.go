package main

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// module is this module's import path.
const module = "github.com/memreview/memreview"

// floors are the layers of docs/ARCHITECTURE.md, ground floor first: a
// package may import packages of its own floor and the floors below, never
// one above. A package belongs to the floor of the longest prefix that
// names it.
var floors = [][]string{
	{"probe", "review/printable"},
	{"review"},
	{"review/store"},
	{"review/formats"},
	{"index"},
	{"curator", "sample"},
	{"review/app"},
	{"ui", ""}, // the front ends, and main
}

// frontEnds may reach the rest of the module only through the service:
// besides each other they import the service, the domain's types and the
// probe layer's result types, never a store, a format, the index, the
// curator or the sample generator.
var frontEndMay = []string{"review/app", "review", "review/printable", "probe", "ui"}

// TestArchitecture reads every non-test Go file's imports and fails when a
// package imports one above its floor, when a front end (TUI, CLI, MCP
// server) imports anything but the service, the domain and the probe
// types, or when production code imports a test helper package. Test
// helpers (packages named *test) may import anything.
func TestArchitecture(t *testing.T) {
	imports := map[string]map[string]string{} // package → imported package → a file that imports it
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") && p != "." {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		pkg := filepath.ToSlash(filepath.Dir(p))
		if pkg == "." {
			pkg = ""
		}
		if imports[pkg] == nil {
			imports[pkg] = map[string]string{}
		}
		for _, spec := range f.Imports {
			ip, _ := strconv.Unquote(spec.Path.Value)
			if ip == module || strings.HasPrefix(ip, module+"/") {
				imports[pkg][strings.TrimPrefix(strings.TrimPrefix(ip, module), "/")] = p
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(imports) < 20 {
		t.Fatalf("read only %d packages; the walk is broken", len(imports))
	}
	for pkg, imps := range imports {
		for imp, file := range imps {
			if isTestHelper(imp) && !isTestHelper(pkg) {
				t.Errorf("%s imports the test helper %s", file, imp)
			}
			if isTestHelper(pkg) {
				continue
			}
			if floor(imp) > floor(pkg) {
				t.Errorf("%s imports %s, a floor above its own (%s is on floor %d, %s on %d)", file, imp, name(pkg), floor(pkg), imp, floor(imp))
			}
			if floor(pkg) == len(floors)-1 && !slices.ContainsFunc(frontEndMay, func(p string) bool { return within(imp, p) && longest(imp) == p || p == "ui" && within(imp, "ui") }) {
				t.Errorf("%s: a front end imports %s; front ends reach the bank only through review/app", file, imp)
			}
		}
	}
}

// within reports whether pkg is p or below it ("" is the module root only).
func within(pkg, p string) bool {
	if p == "" {
		return pkg == ""
	}
	return pkg == p || strings.HasPrefix(pkg, p+"/")
}

// longest is the longest floor prefix that names pkg.
func longest(pkg string) string {
	best, n := "", -1
	for _, fl := range floors {
		for _, p := range fl {
			if within(pkg, p) && len(p) > n {
				best, n = p, len(p)
			}
		}
	}
	return best
}

func floor(pkg string) int {
	p := longest(pkg)
	for i, fl := range floors {
		if slices.Contains(fl, p) {
			return i
		}
	}
	return len(floors) - 1
}

func isTestHelper(pkg string) bool { return strings.HasSuffix(path.Base(pkg), "test") }

func name(pkg string) string {
	if pkg == "" {
		return "the main package"
	}
	return pkg
}
