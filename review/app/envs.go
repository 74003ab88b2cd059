package app

import (
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/memreview/memreview/probe"
	"github.com/memreview/memreview/probe/docs"
	"github.com/memreview/memreview/probe/docs/pdfwasm"
	// The drivers of the stateful kinds register themselves with probe:
	// the service is where the program links them in, so that every kind
	// runs from every front end, while the domain packages, which run
	// probes through probe alone, link neither pgx nor the MCP SDK.
	_ "github.com/memreview/memreview/probe/mcpenv"
	_ "github.com/memreview/memreview/probe/pg"
	"github.com/memreview/memreview/review"
)

// The service installs the PDF engine (wazero and the PDFium module) for
// the files kind, for the same reason: the domain's test binaries read no
// PDF and link neither.
func init() { docs.UsePDFEngine(pdfwasm.Pool) }

// The environments as the front ends see them beyond probing: their
// health (env list), an MCP server's tools (env tools), a description for
// the curator, and the PDF engine's warm-up. Every probe of every kind
// goes through one probe.Runner, made on first use and closed with the
// service, so a postgres environment keeps its small pool and an mcp
// environment its one server session between probes.

// probeRunner holds the service's probe.Runner.
type probeRunner struct {
	once sync.Once
	r    *probe.Runner
}

func (p *probeRunner) get() *probe.Runner {
	p.once.Do(func() { p.r = probe.NewRunner() })
	return p.r
}

// close closes the runner (stopping stdio MCP servers); a probe after it
// fails with a sentence saying memreview is exiting.
func (p *probeRunner) close() error { return p.get().Close() }

// runner is the service's probe.Runner.
func (s *Service) runner() *probe.Runner { return s.probes.get() }

// EnvStatus is one declared environment as `env list` shows it: the
// declaration as memreview.toml holds it, where it points (without
// secrets) and whether it can be probed now.
type EnvStatus struct {
	probe.Env
	Target string       `json:"target"`
	Health probe.Health `json:"health"`
}

// EnvHealthTimeout bounds the health check of each environment in
// EnvStatuses.
const EnvHealthTimeout = 5 * time.Second

// EnvStatuses lists the environments with their health, checked at once
// (each within EnvHealthTimeout): the file or folder is there; the
// database accepts the probe role, which must be read-only; the MCP server
// starts and lists its tools. Like EnvConfig it reads memreview.toml
// without refusing bad entries: problems names each, and a bad entry's
// health says it was not checked.
func (s *Service) EnvStatuses(ctx context.Context) (envs []EnvStatus, problems []error, err error) {
	cfg, problems, err := s.EnvConfig()
	if err != nil {
		return nil, nil, err
	}
	envs = make([]EnvStatus, len(cfg.Envs))
	seen := map[string]bool{}
	var wg sync.WaitGroup
	for i, e := range cfg.Envs {
		abs := review.ResolvePaths(e, s.opt.EnvDir)
		envs[i] = EnvStatus{Env: e, Target: abs.Target()}
		if review.CheckEnvName(e.Name) != nil || seen[e.Name] {
			envs[i].Health = probe.Health{Detail: "not checked: a bad entry (see the warning); fix it or remove it with 'memreview env rm'"}
			continue
		}
		seen[e.Name] = true
		wg.Add(1)
		go func() {
			defer wg.Done()
			envs[i].Health = s.runner().Health(ctx, abs, EnvHealthTimeout)
		}()
	}
	wg.Wait()
	return envs, problems, nil
}

// EnvTools lists an mcp environment's tools: their annotations, input
// schemas, and whether a probe may call each and why (`env tools`).
func (s *Service) EnvTools(ctx context.Context, name string) ([]probe.Tool, error) {
	e, err := s.ResolveEnv(name)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, review.CheckTimeout)
	defer cancel()
	tools, err := s.runner().Tools(ctx, e)
	if err != nil && ctx.Err() != nil {
		return nil, fmt.Errorf("the MCP server of %q did not list its tools within %s", name, review.CheckTimeout)
	}
	return tools, err
}

// DescribeEnv describes an environment for a model (the curator): its
// kind, where it points, the probe grammar, and for mcp the tools a probe
// may call with their input schemas.
func (s *Service) DescribeEnv(ctx context.Context, e probe.Env) probe.Description {
	return s.runner().Describe(ctx, e)
}

// pdfScanLimit bounds how many entries WarmPDF looks at in each files
// environment.
const pdfScanLimit = 2000

// WarmPDF starts preparing the PDF engine in the background when a files
// environment holds a PDF (among its first pdfScanLimit entries), so that
// the engine's one-time compile (about 15 s per machine) is done before
// the operator's first PDF probe; it says whether it started it. The TUI
// calls it in a Cmd when it reads the environments.
func (s *Service) WarmPDF() bool {
	cfg, err := s.b.Config()
	if err != nil {
		return false
	}
	for _, e := range cfg.Envs {
		if e.Kind == probe.KindFiles && holdsPDF(review.ResolvePaths(e, s.opt.EnvDir).Path) {
			probe.StartPDF()
			return true
		}
	}
	return false
}

// holdsPDF reports whether the folder holds a .pdf file among its first
// pdfScanLimit entries (links are not followed).
func holdsPDF(dir string) bool {
	n, found := 0, false
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		n++
		switch {
		case found || n > pdfScanLimit:
			return filepath.SkipAll
		case err != nil:
			return nil
		case d.Type().IsRegular() && strings.EqualFold(filepath.Ext(p), ".pdf"):
			found = true
		}
		return nil
	})
	return found
}
