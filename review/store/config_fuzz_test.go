package store

import (
	"bytes"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
)

// FuzzConfig: any memreview.toml is either refused with an error naming
// the file, or read into settings that SaveConfig's encoding writes back
// and that read and write the same again (what `env add` and the settings forms
// save is what was read); nothing panics.
func FuzzConfig(f *testing.F) {
	for _, s := range []string{
		"[[env]]\nname = \"shop\"\nkind = \"sql\"\npath = \"envs/shop.db\"\n\n[[env]]\nname = \"docs\"\nkind = \"files\"\npath = \"envs/docs\"\n",
		"[hygiene]\nmax_unused_days = 30\nmemory_limit_mb = 512\n",
		"[curator]\nmodel = \"m\"\nbase_url = \"http://127.0.0.1:1/v1\"\n",
		"[[env]]\nname = \"w\"\nkind = \"postgres\"\nurl = \"postgres://ro@db/w\"\npassword_env = \"PGW\"\n",
		"[[env]]\nname = \"m\"\nkind = \"mcp\"\ncommand = [\"npx\", \"-y\", \"x\"]\nallow = [\"search\"]\n",
		"[oauth]\nrate_per_min = 60\n", "nonsense = 1\n", "[hygiene]\nmemory_limit_mb = 3\n",
		"[[env]]\nname = 1\n", "\x00", "[[env]\n", "a = \"\\u0000\"\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		const path = "/bank/memreview.toml"
		c, err := decodeConfig(path, b)
		if err != nil {
			if !strings.HasPrefix(err.Error(), path+": ") {
				t.Fatalf("the error does not name the file: %v", err)
			}
			return
		}
		var buf bytes.Buffer
		if err := toml.NewEncoder(&buf).Encode(c); err != nil {
			t.Fatalf("settings read from %q do not encode: %v", b, err)
		}
		again, err := decodeConfig(path, buf.Bytes())
		if err != nil {
			t.Fatalf("%q read, but its encoding %q does not: %v", b, buf.Bytes(), err)
		}
		var buf2 bytes.Buffer
		if err := toml.NewEncoder(&buf2).Encode(again); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(buf.Bytes(), buf2.Bytes()) {
			t.Fatalf("%q written as\n%s\nread and written again as\n%s", b, buf.Bytes(), buf2.Bytes())
		}
	})
}
