package eval

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// A run's folder appears with its plan in it: a listing made while runs
// are created never reads one without its plan, and a folder a crashed
// Create left under its dot name is not listed.
func TestListDuringCreate(t *testing.T) {
	root := filepath.Join(t.TempDir(), "evals")
	if err := os.MkdirAll(filepath.Join(root, ".ev_crashed-123"), 0o755); err != nil {
		t.Fatal(err)
	}
	const n = 40
	var wg sync.WaitGroup
	stop := make(chan struct{})
	bad := make(chan string, 1)
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			infos, err := List(root)
			if err != nil {
				bad <- err.Error()
				return
			}
			for _, in := range infos {
				if in.Err != nil {
					select {
					case bad <- in.Plan.ID + ": " + in.Err.Error():
					default:
					}
					return
				}
			}
		}
	}()
	for i := 0; i < n; i++ {
		p := testPlan(1, 1)
		p.ID = fmt.Sprintf("ev_%02d", i)
		l, err := Create(filepath.Join(root, p.ID), p)
		if err != nil {
			t.Fatal(err)
		}
		l.Close()
	}
	close(stop)
	wg.Wait()
	select {
	case b := <-bad:
		t.Fatalf("a listing during Create read %s", b)
	default:
	}
	infos, err := List(root)
	if err != nil || len(infos) != n {
		t.Fatalf("listed %d runs (%v), want %d", len(infos), err, n)
	}
	entries, _ := os.ReadDir(root)
	if len(entries) != n+1 {
		t.Fatalf("%d entries under evals: a Create left a temporary folder", len(entries))
	}
	p := testPlan(1, 1)
	p.ID = "ev_00"
	if _, err := Create(filepath.Join(root, p.ID), p); !errors.Is(err, os.ErrExist) {
		t.Fatalf("Create over an existing run: %v", err)
	}
}
