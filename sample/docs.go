package sample

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// site is one office of the company the docs workbooks describe.
type site struct {
	code, name string
	opened     int // index of the first month with figures
	revenue    float64
	fte        float64
}

var sites = []site{
	{"LDS", "Leeds", 0, 410000, 38},
	{"MAN", "Manchester", 0, 520000, 47},
	{"BRS", "Bristol", 0, 300000, 29},
	{"EDI", "Edinburgh", 3, 240000, 21},
}

// docsData holds the figures behind the workbooks, for trajectories that
// compute with them.
type docsData struct {
	months  []string          // 2024-01 … 2025-06
	revenue map[string]int    // month|code → £
	fte     map[string]string // month|code → FTE as written
	files   map[string]string // relative path → content
	pnl     pnlFigures
}

type pnlFigures struct {
	site, central, revenue, cogs, staff, premises, marketing, it, operating int // £ thousands
}

func key(month, code string) string { return month + "|" + code }

// buildDocs generates the workbooks from seed.
func buildDocs(seed int64) *docsData {
	rng := rand.New(rand.NewPCG(uint64(seed), 0xd0c5))
	d := &docsData{revenue: map[string]int{}, fte: map[string]string{}, files: map[string]string{}}
	for y := 2024; y <= 2025; y++ {
		for m := 1; m <= 12 && (y == 2024 || m <= 6); m++ {
			d.months = append(d.months, fmt.Sprintf("%d-%02d", y, m))
		}
	}
	var rev, hc strings.Builder
	rev.WriteString("month,site,revenue_gbp\n")
	hc.WriteString("month,site_code,fte\n")
	siteTotal2024 := 0
	for i, month := range d.months {
		for _, s := range sites {
			if i < s.opened {
				continue
			}
			growth := 1 + 0.006*float64(i)
			season := 1.0
			if strings.HasSuffix(month, "-08") || strings.HasSuffix(month, "-12") {
				season = 0.88
			}
			r := int(s.revenue*growth*season*(0.93+rng.Float64()*0.14)) / 10 * 10
			f := s.fte + float64(i)*0.25 + float64(rng.IntN(5))*0.5 - 1
			fs := fmt.Sprintf("%.1f", f)
			d.revenue[key(month, s.code)] = r
			d.fte[key(month, s.code)] = fs
			fmt.Fprintf(&rev, "%s,%s,%d\n", month, s.name, r)
			fmt.Fprintf(&hc, "%s,%s,%s\n", month, s.code, fs)
			if strings.HasPrefix(month, "2024") {
				siteTotal2024 += r
			}
		}
	}
	p := pnlFigures{site: (siteTotal2024 + 500) / 1000}
	p.central = 1800 + rng.IntN(400)
	p.revenue = p.site + p.central
	p.cogs = p.revenue * 41 / 100
	p.staff = p.revenue * 28 / 100
	p.premises = 940 + rng.IntN(80)
	p.marketing = 610 + rng.IntN(90)
	p.it = 480 + rng.IntN(60)
	p.operating = p.revenue - p.cogs - p.staff - p.premises - p.marketing - p.it
	d.pnl = p
	d.files["revenue_by_site.csv"] = rev.String()
	d.files["headcount.csv"] = hc.String()
	d.files["pnl_fy2024.md"] = pnlText(p)
	d.files["sites.md"] = sitesText
	d.files["README.md"] = readmeText
	d.files["notes/methodology.md"] = methodologyText
	return d
}

func pnlText(p pnlFigures) string {
	gross := p.revenue - p.cogs
	return fmt.Sprintf(`# Northwind Studios Ltd — P&L, FY2024 (Jan–Dec 2024)

All figures in £ thousands (£k). Unaudited management accounts.

| Line                      | FY2024 (£k) |
|---------------------------|------------:|
| Site revenue              | %d |
| Central services revenue  | %d |
| **Total revenue**         | **%d** |
| Cost of sales             | (%d) |
| **Gross profit**          | **%d** |
| Staff costs               | (%d) |
| Premises                  | (%d) |
| Marketing                 | (%d) |
| IT and software           | (%d) |
| **Operating profit**      | **%d** |

Central services revenue (licensing, training) is booked centrally and is
not allocated to any site, so it does not appear in revenue_by_site.csv.
`, p.site, p.central, p.revenue, p.cogs, gross, p.staff, p.premises, p.marketing, p.it, p.operating)
}

const sitesText = `# Sites

| code | site       | opened     | notes                          |
|------|------------|------------|--------------------------------|
| LDS  | Leeds      | 2016-09-01 | head office                    |
| MAN  | Manchester | 2018-03-12 |                                |
| BRS  | Bristol    | 2020-01-06 |                                |
| EDI  | Edinburgh  | 2024-04-02 | no figures before April 2024   |

revenue_by_site.csv names sites in full; headcount.csv uses the codes.
`

const readmeText = `# Finance workbooks

Exports from the FP&A model, refreshed monthly.

- revenue_by_site.csv — monthly revenue per site, whole pounds (GBP)
- headcount.csv — monthly headcount per site, in FTE
- pnl_fy2024.md — company P&L for FY2024, £ thousands
- sites.md — site codes and opening dates
- notes/methodology.md — definitions
`

const methodologyText = `# Methodology

- Headcount is full-time equivalent (FTE) at month end: two half-time staff
  count as 1.0. Contractors are excluded.
- Revenue per head = site revenue for the period / average FTE over the
  period. For a quarter, sum the three months of revenue and divide by the
  mean of the three month-end FTE figures.
- Site revenue excludes central services revenue (see pnl_fy2024.md).
`

// writeDocs writes the workbooks under dir and stamps every file and
// folder with Epoch, so the folder's fingerprint is the same every time.
func writeDocs(dir string, d *docsData) error {
	names := make([]string, 0, len(d.files))
	for n := range d.files {
		names = append(names, n)
	}
	sort.Strings(names)
	dirs := []string{dir}
	for _, n := range names {
		p := filepath.Join(dir, filepath.FromSlash(n))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return fmt.Errorf("docs: %w", err)
		}
		if err := os.WriteFile(p, []byte(d.files[n]), 0o644); err != nil {
			return fmt.Errorf("docs: %w", err)
		}
		if filepath.Dir(p) != dir {
			dirs = append(dirs, filepath.Dir(p))
		}
		if err := os.Chtimes(p, Epoch, Epoch); err != nil {
			return fmt.Errorf("docs: %w", err)
		}
	}
	for i := len(dirs) - 1; i >= 0; i-- {
		if err := os.Chtimes(dirs[i], Epoch, Epoch); err != nil {
			return fmt.Errorf("docs: %w", err)
		}
	}
	return nil
}
