package cli

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestEnvNamesAndBadEntries: env add refuses bad names and roots and
// never writes max_steps = 0; a memreview.toml with bad entries (an empty
// name, white space, a name declared twice) fails probe with a sentence
// naming the entry, while env list shows every entry and env rm removes
// them.
func TestEnvNamesAndBadEntries(t *testing.T) {
	t.Parallel()
	bank := newCLIBank(t)
	dir := t.TempDir()
	for _, name := range []string{"", "a b", "tab\there", "esc\x1b[2J", "new\nline"} {
		if r := mr(t, "", "--bank", bank, "env", "add", name, "--files", dir); r.code == 0 || !strings.Contains(r.stderr, "env add") {
			t.Errorf("env add %q: exit %d, %s", name, r.code, r.stderr)
		}
	}
	fifo := filepath.Join(t.TempDir(), "fifo")
	syscall.Mkfifo(fifo, 0o644)
	for _, c := range [][]string{{"--files", "/"}, {"--files", "/proc"}, {"--files", "/sys"}, {"--files", "/dev"}, {"--sql", "/dev/zero"}, {"--sql", "/proc/self/mem"}, {"--sql", fifo}, {"--files", fifo}} {
		if r := mr(t, "", append([]string{"--bank", bank, "env", "add", "x"}, c...)...); r.code == 0 || !strings.Contains(r.stderr, "refused") {
			t.Errorf("env add x %v: exit %d, %s", c, r.code, r.stderr)
		}
	}
	must(t, mr(t, "", "--bank", bank, "env", "add", "good", "--files", dir))
	if r := mr(t, "", "--bank", bank, "env", "add", "good", "--files", dir); r.code == 0 {
		t.Error("a second env named good was added")
	}
	cfgPath := filepath.Join(bank, "memreview.toml")
	cfg, _ := os.ReadFile(cfgPath)
	if strings.Contains(string(cfg), "max_steps") || strings.Count(string(cfg), "[[env]]") != 1 {
		t.Fatalf("memreview.toml after env add:\n%s", cfg)
	}
	bad := "\n[[env]]\nname = \"\"\nkind = \"files\"\npath = \"/tmp\"\n[[env]]\nname = \"a b\"\nkind = \"files\"\npath = \"/tmp\"\n[[env]]\nname = \"good\"\nkind = \"sql\"\npath = \"x.db\"\n"
	os.WriteFile(cfgPath, append(cfg, bad...), 0o644)
	r := mr(t, "", "--bank", bank, "probe", "good", "ls")
	if r.code == 0 || !strings.Contains(r.stderr, `env #2: field "name": the name is empty`) {
		t.Errorf("probe with a bad config: exit %d, %s", r.code, r.stderr)
	}
	r = must(t, mr(t, "", "--bank", bank, "env", "list"))
	for _, want := range []string{"good ", `""`, `"a b"`} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("env list lacks %q:\n%s", want, r.stdout)
		}
	}
	for _, want := range []string{"env #2", "env #3", "env #4", "also the name of env #1"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("env list warnings lack %q:\n%s", want, r.stderr)
		}
	}
	must(t, mr(t, "", "--bank", bank, "env", "rm", ""))
	must(t, mr(t, "", "--bank", bank, "env", "rm", "a b"))
	if r := must(t, mr(t, "", "--bank", bank, "env", "rm", "good")); !strings.Contains(r.stdout, "removed 2") {
		t.Errorf("env rm of a duplicated name: %q", r.stdout)
	}
	if r := must(t, mr(t, "", "--bank", bank, "env", "list")); r.stdout != "" || r.stderr != "" {
		t.Errorf("after rm: %q %q", r.stdout, r.stderr)
	}
}

// TestVerifyWithBadConfigWritesNothing: verify with an unreadable
// memreview.toml exits with the config error and leaves the bank as it was.
func TestVerifyWithBadConfigWritesNothing(t *testing.T) {
	t.Parallel()
	bank := newCLIBank(t)
	before := exportAll(t, bank)
	cfgPath := filepath.Join(bank, "memreview.toml")
	os.Remove(cfgPath)
	os.Mkdir(cfgPath, 0o755) // unreadable as a file, for root too
	r := mr(t, "", "--bank", bank, "verify")
	if r.code != 1 || !strings.Contains(r.stderr, "verify") || strings.Contains(r.stdout, "fails-now") {
		t.Fatalf("verify: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if after := exportAll(t, bank); after != before {
		t.Error("verify with a bad config changed the bank")
	}
}

// TestEmptyOrForeignBankDBIsAnError: a zero-length or foreign bank.db is
// an error for every command, and nothing is written.
func TestEmptyOrForeignBankDBIsAnError(t *testing.T) {
	t.Parallel()
	for name, content := range map[string][]byte{"empty": nil, "text": []byte("hello, this is not a database file at all.......")} {
		bank := t.TempDir()
		path := filepath.Join(bank, "bank.db")
		os.WriteFile(path, content, 0o644)
		for _, args := range [][]string{{"export", "records"}, {"queue"}, {"search", "x"}, {"import", "records", "-"}} {
			r := mr(t, goodRecords, append([]string{"--bank", bank}, args...)...)
			if r.code != 1 || !strings.Contains(r.stderr, "not a memreview bank") {
				t.Errorf("%s: %v: exit %d, %s", name, args, r.code, r.stderr)
			}
		}
		if got, _ := os.ReadFile(path); string(got) != string(content) {
			t.Errorf("%s: bank.db changed", name)
		}
		if _, err := os.Stat(filepath.Join(bank, "index")); err == nil {
			t.Errorf("%s: an index was created", name)
		}
	}
}

// TestInfiniteCheckVerifies: probe --json of SELECT 1e999 encodes, its
// output is a record's check, and verify (twice: against the import, then
// against its own stored results) says the check holds.
func TestInfiniteCheckVerifies(t *testing.T) {
	t.Parallel()
	bank := newCLIBank(t)
	db := filepath.Join(filepath.Dir(bank), "n.sqlite")
	writeDB(t, db)
	must(t, mr(t, "", "--bank", bank, "env", "add", "n", "--sql", db))
	for _, q := range []string{"SELECT 1e999 AS big", "SELECT -1e999 AS small, 1e999 AS big"} {
		r := must(t, mr(t, "", "--bank", bank, "probe", "--json", "n", q))
		if !strings.Contains(r.stdout, `"+Inf"`) {
			t.Fatalf("probe --json: %s", r.stdout)
		}
		text := must(t, mr(t, "", "--bank", bank, "probe", "n", q))
		if !strings.Contains(text.stdout, "+Inf") {
			t.Errorf("probe text: %s", text.stdout)
		}
	}
	expect := must(t, mr(t, "", "--bank", bank, "probe", "--json", "n", "SELECT 1e999 AS big")).stdout
	rec := `{"id":"mem_inf","lemma":"infinite","category":"fact","checks":[{"env":"n","input":"SELECT 1e999 AS big","expect":` + strings.Join(strings.Fields(expect), " ") + `}]}`
	must(t, mr(t, rec+"\n", "--bank", bank, "import", "records", "-"))
	for i := 0; i < 2; i++ {
		r := must(t, mr(t, "", "--bank", bank, "verify"))
		if !strings.Contains(r.stdout, "same") || !strings.Contains(r.stdout, "0 records suspect") {
			t.Fatalf("verify %d: %s", i, r.stdout)
		}
		must(t, mr(t, "", "--bank", bank, "verify", "--json"))
		must(t, mr(t, "", "--bank", bank, "show", "--json", "mem_inf"))
	}
}
