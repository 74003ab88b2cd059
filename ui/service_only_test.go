package ui

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/memreview/memreview/index"
	"github.com/memreview/memreview/review/app"
	"github.com/memreview/memreview/review/store"
	"github.com/memreview/memreview/ui/common"
)

// TestDepsHoldOnlyTheService checks that the screens cannot reach the
// store or the index except through the service: common.Deps has no field
// that is (or holds) a store, a backend or an index.
func TestDepsHoldOnlyTheService(t *testing.T) {
	t.Parallel()
	banned := map[reflect.Type]bool{
		reflect.TypeOf((*store.Store)(nil)):        true,
		reflect.TypeOf((*index.Index)(nil)):        true,
		reflect.TypeOf((*app.Store)(nil)).Elem():   true,
		reflect.TypeOf((*app.Index)(nil)).Elem():   true,
		reflect.TypeOf((*store.Store)(nil)).Elem(): true,
		reflect.TypeOf((*index.Index)(nil)).Elem(): true,
		reflect.TypeOf((*app.Service)(nil)).Elem(): true, // by value would copy it
	}
	d := reflect.TypeOf(common.Deps{})
	var svc int
	for i := range d.NumField() {
		f := d.Field(i)
		if banned[f.Type] {
			t.Errorf("common.Deps.%s is a %s: screens must go through Deps.Service", f.Name, f.Type)
		}
		if f.Type == reflect.TypeOf((*app.Service)(nil)) {
			svc++
		}
	}
	if svc != 1 {
		t.Errorf("common.Deps has %d *app.Service fields, want 1", svc)
	}
}

// TestScreensDoNotOpenTheBank reads the screens' source (every non-test
// file under ui but the test helpers in ui/uitest): none names the store
// or the index types, nor opens a bank or an index, so every read and write
// goes through review/app.
func TestScreensDoNotOpenTheBank(t *testing.T) {
	t.Parallel()
	banned := map[string]bool{
		"store.Store": true, "review.Open": true, "review.Create": true, "app.Store": true,
		"index.Index": true, "index.Open": true, "share.Open": true, "share.Index": true,
	}
	files := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "uitest" {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		files++
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if x, ok := sel.X.(*ast.Ident); ok && banned[x.Name+"."+sel.Sel.Name] {
				t.Errorf("%s: uses %s.%s; screens go through Deps.Service", fset.Position(sel.Pos()), x.Name, sel.Sel.Name)
			}
			if sel.Sel.Name == "Backend" {
				t.Errorf("%s: reaches the service's backend; screens go through the service's own methods", fset.Position(sel.Pos()))
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 20 {
		t.Fatalf("read only %d source files under ui; the walk is broken", files)
	}
}
