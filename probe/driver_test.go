package probe

import (
	"context"
	"strings"
	"testing"
)

// withoutDriver unregisters kind's driver until the test ends, as in a
// program that does not link it in.
func withoutDriver(t *testing.T, kind Kind) {
	driversMu.Lock()
	d, had := drivers[kind]
	delete(drivers, kind)
	driversMu.Unlock()
	t.Cleanup(func() {
		driversMu.Lock()
		defer driversMu.Unlock()
		delete(drivers, kind)
		if had {
			drivers[kind] = d
		}
	})
}

// TestKindWithoutDriver: a postgres or mcp environment in a program that
// did not link in the kind's driver fails every probe, Health, Check,
// Fingerprint and Tools with a sentence naming the driver's package,
// never a panic; the declaration is still checked as usual.
func TestKindWithoutDriver(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		env   Env
		input string
	}{
		{Env{Name: "wh", Kind: KindPostgres, URL: "postgres://probe@localhost/warehouse"}, "SELECT 1"},
		{Env{Name: "docs", Kind: KindMCP, Command: []string{"/nonexistent/server"}}, "lookup"},
	} {
		t.Run(string(c.env.Kind), func(t *testing.T) {
			withoutDriver(t, c.env.Kind)
			want := string(c.env.Kind) + " probes are not built into this program: nothing linked in their driver (" + driverPackage[c.env.Kind] + ")"
			if err := CheckEnv(c.env); err != nil {
				t.Fatalf("CheckEnv: %v", err)
			}
			r := NewRunner()
			defer r.Close()
			if res := r.Run(ctx, c.env, c.input, Limits{}); res.Error != want || res.Kind != c.env.Kind || res.Fingerprint != "" {
				t.Errorf("Runner.Run: %+v", res)
			}
			if res := Run(ctx, c.env, c.input, Limits{}); res.Error != want {
				t.Errorf("Run: %+v", res)
			}
			if res := r.Run(ctx, c.env, "DELETE FROM t", Limits{}); res.Error != want {
				t.Errorf("a request the driver would refuse: %+v", res)
			}
			if h := r.Health(ctx, c.env, 0); h.Reachable || h.Detail != want {
				t.Errorf("Health: %+v", h)
			}
			if err := r.Check(ctx, c.env, 0); err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("Check: %v", err)
			}
			if fp, err := r.Fingerprint(ctx, c.env); err == nil || fp != "" || err.Error() != want {
				t.Errorf("Fingerprint: %q, %v", fp, err)
			}
			if c.env.Kind == KindMCP {
				if _, err := r.Tools(ctx, c.env); err == nil || err.Error() != want {
					t.Errorf("Tools: %v", err)
				}
				if d := r.Describe(ctx, c.env); d.Error != want || d.Usage != MCPUsage {
					t.Errorf("Describe: %+v", d)
				}
			}
		})
	}
}

// TestRegisterRefusesMistakes: a driver for a kind without state, one
// without Open, or a second driver for one kind is a programming error.
func TestRegisterRefusesMistakes(t *testing.T) {
	withoutDriver(t, KindPostgres)
	open := func(Env) (Conn, error) { return nil, nil }
	for name, f := range map[string]func(){
		"sql":     func() { Register(KindSQL, Driver{Open: open}) },
		"no Open": func() { Register(KindPostgres, Driver{}) },
		"twice":   func() { Register(KindPostgres, Driver{Open: open}); Register(KindPostgres, Driver{Open: open}) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: Register did not panic", name)
				}
			}()
			f()
		}()
	}
}
