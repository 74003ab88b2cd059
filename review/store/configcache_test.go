package store

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadConfigFollowsTheFile: the settings decoded once per content
// are still what the file says after each change (one of the same size
// included), a caller's change to what it got reaches no one else, and a
// file that became wrong is reported again on every read.
func TestReadConfigFollowsTheFile(t *testing.T) {
	t.Parallel()
	s, err := Create(filepath.Join(t.TempDir(), "bank"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	path := filepath.Join(s.dir, ConfigFile)
	write := func(text string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("[[env]]\nname = \"aaa\"\nkind = \"files\"\npath = \"docs\"\n")
	c, err := s.Config()
	if err != nil || len(c.Envs) != 1 || c.Envs[0].Name != "aaa" {
		t.Fatalf("first read: %+v %v", c.Envs, err)
	}
	c.Envs[0].Name = "changed by a caller"
	c.Envs = append(c.Envs, c.Envs[0])
	if c2, _ := s.Config(); len(c2.Envs) != 1 || c2.Envs[0].Name != "aaa" {
		t.Fatalf("a caller's change reached the next read: %+v", c2.Envs)
	}
	write("[[env]]\nname = \"bbb\"\nkind = \"files\"\npath = \"docs\"\n") // same size
	if c3, err := s.Config(); err != nil || c3.Envs[0].Name != "bbb" {
		t.Fatalf("after an edit of the same size: %+v %v", c3.Envs, err)
	}
	write("[[env]]\nname = \"bbb\"\nkind = \"files\"\npath = \"docs\"\ncolour = \"red\"\n")
	for range 2 {
		if _, err := s.Config(); err == nil || !strings.Contains(err.Error(), `unknown setting "env.colour"`) {
			t.Fatalf("a wrong file: %v", err)
		}
	}
	os.Remove(path)
	if c4, err := s.Config(); err != nil || len(c4.Envs) != 0 {
		t.Fatalf("without the file: %+v %v", c4, err)
	}
}

// BenchmarkReadConfig: reading the sample world's settings as the
// service does on every retrieval, against decoding them each time (the
// peer, as before).
//
//	go test ./review/store/ -run '^$' -bench ReadConfig -count 3
func BenchmarkReadConfig(b *testing.B) {
	s, err := Create(filepath.Join(b.TempDir(), "bank"), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	text := "[[env]]\nname = \"shop\"\nkind = \"sql\"\npath = \"envs/shop.db\"\n\n[[env]]\nname = \"docs\"\nkind = \"files\"\npath = \"envs/docs\"\n\n" +
		"[curator]\nbase_url = \"http://localhost:8080/v1\"\nmodel = \"m\"\n\n[eval.prices.m]\ninput_per_mtok = 1.0\noutput_per_mtok = 2.0\n"
	path := filepath.Join(s.dir, ConfigFile)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		b.Fatal(err)
	}
	b.Run("cached", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := s.Config(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("decoded", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			raw, err := os.ReadFile(path)
			if err != nil {
				b.Fatal(err)
			}
			c, err := decodeConfig(path, raw)
			if err != nil || len(c.CheckEnvs()) > 0 {
				b.Fatal(err)
			}
		}
	})
}
