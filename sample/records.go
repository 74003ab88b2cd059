package sample

import (
	"fmt"
	"sort"
	"time"

	"github.com/memreview/memreview/review"
)

// More record ids the trajectories cite.
const (
	RecSchemaFirst  = "mem_0010" // strategy: read sqlite_master first
	RecNoSuchColumn = "mem_0012" // recovery: "no such column" after the migration
	RecFTE          = "mem_0020" // fact: headcount is FTE
	RecGBP          = "mem_0021" // convention: workbook money is whole GBP
	RecSiteKeys     = "mem_0022" // recovery: site names vs codes
	RecGroups       = "mem_0025" // strategy: group names → g1/g2/g3
	RecSingleQuery  = "mem_0026" // optimisation: one aggregate query
)

// chk is a record check: a probe input and the environment it was
// recorded against (envPre for the database before the migration).
type chk struct{ env, input string }

// recSpec is a record of the sample bank before its checks are run.
type recSpec struct {
	id       string
	cat      review.Category
	lemma    string
	tags     []string
	family   string
	trigger  string
	steps    []string
	conf     float64
	traj     string
	from, to int
	checks   []chk
}

func (r recSpec) env() string {
	if r.family == "finance-workbooks" {
		return EnvDocs
	}
	return EnvShop
}

const shopFam, docsFam = "shop-analytics", "finance-workbooks"

var recSpecs = []recSpec{
	{id: RecRefJoin, cat: review.Relation, lemma: "In shop.db, reviews join items on fdbk_g1.ref_id = items_g1.item_id.", tags: []string{"g1", "join"}, family: shopFam,
		trigger: "A task combines office-product reviews with item data.", conf: 0.9, traj: "traj_01", from: 5, to: 8,
		checks: []chk{{envPre, "SELECT COUNT(*) FROM fdbk_g1 f JOIN items_g1 i ON f.ref_id = i.item_id"}}},
	{id: RecCentsA, cat: review.Convention, lemma: "Prices are stored as integer cents in items_gN.price_cents; divide by 100.0 for dollar amounts.", tags: []string{"price"}, family: shopFam,
		trigger: "A task asks for a price or revenue in dollars.", conf: 0.95, traj: "traj_03", from: 5, to: 8,
		checks: []chk{{EnvShop, "SELECT MIN(price_cents), MAX(price_cents) FROM items_g2"}}},
	{id: RecWrong, cat: review.Fact, lemma: "Prices in the items tables are stored in dollars; price_cents is a legacy column name.", tags: []string{"price"}, family: shopFam,
		trigger: "A task asks for an average or total price.", conf: 0.55, traj: "traj_02", from: 5, to: 7},
	{id: RecAttrsG2, cat: review.Fact, lemma: "attrs_g2 holds electronics attributes — color, weight_g, warranty_months, connectivity — one row per item_id.", tags: []string{"g2", "attributes"}, family: shopFam,
		trigger: "A task filters electronics by warranty, weight or connectivity.", conf: 0.9, traj: "traj_03", from: 3, to: 4,
		checks: []chk{{envPre, "SELECT COUNT(*) FROM attrs_g2 WHERE warranty_months >= 24"}}},
	{id: RecWarrantyProc, cat: review.Procedure, lemma: "To price electronics by warranty, join items_g2 to attrs_g2 on item_id, filter warranty_months, and average price_cents / 100.0.", tags: []string{"g2", "price", "warranty"}, family: shopFam,
		trigger: "Average or total price of electronics with a warranty condition.", steps: []string{"Join items_g2 i to attrs_g2 a on a.item_id = i.item_id", "Filter a.warranty_months", "ROUND(AVG(i.price_cents) / 100.0, 2)"},
		conf: 0.85, traj: "traj_03", from: 3, to: 9,
		checks: []chk{{envPre, "SELECT ROUND(AVG(i.price_cents) / 100.0, 2) FROM items_g2 i JOIN attrs_g2 a ON a.item_id = i.item_id WHERE a.warranty_months >= 24"}}},
	{id: RecStarsG3, cat: review.Warning, lemma: "fdbk_g3 (musical instruments, partner feed) stores stars on a 1–10 scale; halve them before comparing with g1 or g2.", tags: []string{"g3", "ratings"}, family: shopFam,
		trigger: "Any rating average or comparison involving g3.", conf: 0.9, traj: "traj_06", from: 5, to: 8,
		checks: []chk{{EnvShop, OvergeneralRefuteProbe}}},
	{id: "mem_0007", cat: review.Fact, lemma: "fdbk_g1 and fdbk_g2 store stars as integers from 1 to 5.", tags: []string{"g1", "g2", "ratings"}, family: shopFam,
		conf: 0.8, traj: "traj_06", from: 5, to: 6,
		checks: []chk{{EnvShop, "SELECT MIN(stars), MAX(stars) FROM fdbk_g2"}}},
	{id: "mem_0008", cat: review.Relation, lemma: "group_ratings has one row per product group (g1, g2, g3) with review_count and avg_stars; g3's avg_stars is already on the 1–5 scale.", tags: []string{"ratings"}, family: shopFam,
		conf: 0.8, traj: "traj_06", from: 9, to: 10,
		checks: []chk{{EnvShop, "SELECT group_id, review_count, avg_stars FROM group_ratings ORDER BY group_id"}}},
	{id: "mem_0009", cat: review.Warning, lemma: "group_ratings is refreshed monthly and lags the fdbk tables; recompute from fdbk_gN when a task asks for current figures.", tags: []string{"ratings"}, family: shopFam,
		trigger: "A task asks for current review counts or averages.", conf: 0.8, traj: "traj_06", from: 9, to: 12,
		checks: []chk{{EnvShop, "SELECT DISTINCT refreshed_on FROM group_ratings"}}},
	{id: RecSchemaFirst, cat: review.Strategy, lemma: "Read the tables' CREATE statements from sqlite_master before the first real query; column names differ between groups.", tags: []string{"schema"}, family: shopFam,
		trigger: "Start of any shop task.", steps: []string{"SELECT name FROM sqlite_master WHERE type = 'table'", "SELECT sql FROM sqlite_master WHERE name IN (...)"}, conf: 0.85, traj: "traj_01", from: 3, to: 6},
	{id: "mem_0011", cat: review.Strategy, lemma: "For 'best brand' questions, require a minimum review count (HAVING COUNT(*) >= N) so brands with one or two reviews cannot win.", tags: []string{"ranking"}, family: shopFam,
		trigger: "Ranking brands or items by average rating.", conf: 0.8, traj: "traj_04", from: 5, to: 7},
	{id: RecNoSuchColumn, cat: review.Recovery, lemma: "If a query fails with 'no such column' or 'no such table', re-read the definition from sqlite_master and check schema_migrations: the 2026-03-16 migration renamed and split tables.", tags: []string{"schema", "migration"}, family: shopFam,
		trigger: "A remembered column or table is missing.", steps: []string{"SELECT name, sql FROM sqlite_master WHERE name LIKE '<table>%'", "SELECT * FROM schema_migrations ORDER BY version"}, conf: 0.9, traj: "traj_11", from: 3, to: 6,
		checks: []chk{{EnvShop, "SELECT version, applied_on, note FROM schema_migrations ORDER BY version"}}},
	{id: "mem_0013", cat: review.Optimisation, lemma: "Check a column's range with MIN/MAX before aggregating it instead of fetching sample rows; one row of output is enough to spot cents or a 1–10 scale.", tags: []string{"profiling"}, family: shopFam,
		conf: 0.75, traj: "traj_06", from: 5, to: 6},
	{id: "mem_0014", cat: review.Convention, lemma: "Dates in shop.db (posted_on, listed_on) are ISO-8601 text, YYYY-MM-DD; compare them as strings.", tags: []string{"dates"}, family: shopFam,
		conf: 0.85, traj: "traj_15", from: 7, to: 8,
		checks: []chk{{EnvShop, "SELECT MIN(posted_on), MAX(posted_on) FROM fdbk_g2"}}},
	{id: RecOvergeneral, cat: review.Fact, lemma: "Reviews carry a verified flag (fdbk_gN.verified, 1 = verified purchase); filter verified = 1 for 'verified review' tasks.", tags: []string{"ratings", "verified"}, family: shopFam,
		trigger: "A task mentions verified purchases or verified reviews.", conf: 0.8, traj: "traj_04", from: 3, to: 6,
		checks: []chk{{EnvShop, "SELECT COUNT(*), SUM(verified) FROM fdbk_g1"}}},
	{id: "mem_0016", cat: review.Relation, lemma: "attrs_g1 and attrs_g3 key on item_id with exactly one row per item of items_g1 / items_g3.", tags: []string{"attributes"}, family: shopFam,
		conf: 0.8, traj: "traj_06", from: 11, to: 12,
		checks: []chk{{EnvShop, "SELECT (SELECT COUNT(*) FROM attrs_g3), (SELECT COUNT(*) FROM items_g3)"}}},
	{id: RecRevenueHeadA, cat: review.Procedure, lemma: "Revenue per head: divide a site's revenue (revenue_by_site.csv) by its FTE (headcount.csv) for the same month, mapping site names to codes via sites.md.", tags: []string{"revenue", "headcount"}, family: docsFam,
		trigger: "A task asks for revenue per head at a site.", steps: []string{"Look up the site's code in sites.md", "Take revenue_gbp for the month", "Divide by fte for the same month and code"}, conf: 0.9, traj: "traj_05", from: 5, to: 11,
		checks: []chk{{EnvDocs, "grep LDS sites.md"}}},
	{id: RecRevenueHeadB, cat: review.Procedure, lemma: "To compute revenue per employee, join revenue_by_site.csv and headcount.csv on month and site; headcount uses site codes (LDS, MAN, BRS, EDI).", tags: []string{"revenue", "headcount"}, family: docsFam,
		trigger: "Revenue per employee or per FTE.", conf: 0.85, traj: "traj_14", from: 3, to: 8,
		checks: []chk{{EnvDocs, "grep 2024-09 headcount.csv"}}},
	{id: "mem_0019", cat: review.Warning, lemma: "Total revenue in pnl_fy2024.md includes central services revenue that no site reports; use the P&L, not the sum of site revenue, for company-level ratios.", tags: []string{"pnl", "revenue"}, family: docsFam,
		trigger: "Company-level margin or revenue questions.", conf: 0.85, traj: "traj_08", from: 3, to: 7,
		checks: []chk{{EnvDocs, "grep -i 'central services' pnl_fy2024.md"}}},
	{id: RecFTE, cat: review.Fact, lemma: "headcount.csv reports full-time equivalents (FTE, fractional), not a count of people.", tags: []string{"headcount"}, family: docsFam,
		conf: 0.9, traj: "traj_05", from: 3, to: 4,
		checks: []chk{{EnvDocs, "grep FTE notes/methodology.md"}}},
	{id: RecGBP, cat: review.Convention, lemma: "Money in the finance workbooks is GBP in whole pounds (revenue_by_site.csv revenue_gbp).", tags: []string{"units"}, family: docsFam,
		conf: 0.8, traj: "traj_05", from: 3, to: 6,
		checks: []chk{{EnvDocs, "grep GBP README.md"}}},
	{id: RecSiteKeys, cat: review.Recovery, lemma: "If joining revenue and headcount finds nothing, the site keys differ: revenue_by_site.csv uses names, headcount.csv uses codes; map them with sites.md.", tags: []string{"join"}, family: docsFam,
		trigger: "A site lookup in headcount.csv finds no rows.", conf: 0.85, traj: "traj_05", from: 7, to: 10,
		checks: []chk{{EnvDocs, "grep codes sites.md"}}},
	{id: RecCentsB, cat: review.Convention, lemma: "price_cents is in cents — always divide by 100 when a task asks for dollars.", tags: []string{"price"}, family: shopFam,
		conf: 0.85, traj: "traj_07", from: 3, to: 6,
		checks: []chk{{EnvShop, "SELECT price_cents FROM items_g2 ORDER BY item_id LIMIT 3"}}},
	{id: "mem_0024", cat: review.Fact, lemma: "Brand names in items_g3 are upper case (partner feed), e.g. 'HARTWOOD'; match them with UPPER() or exact case.", tags: []string{"g3", "brand"}, family: shopFam,
		conf: 0.8, traj: "traj_06", from: 11, to: 12,
		checks: []chk{{EnvShop, "SELECT DISTINCT brand FROM items_g3 ORDER BY brand"}}},
	{id: RecGroups, cat: review.Strategy, lemma: "Map product-group names to table suffixes with catalog_groups: office products = g1, electronics = g2, musical instruments = g3.", tags: []string{"schema"}, family: shopFam,
		trigger: "A task names a product group in words.", conf: 0.9, traj: "traj_06", from: 3, to: 4,
		checks: []chk{{EnvShop, "SELECT group_id, name FROM catalog_groups ORDER BY group_id"}}},
	{id: RecSingleQuery, cat: review.Optimisation, lemma: "Answer single-number questions with one aggregate query; do not fetch rows and add them up in the reply.", tags: []string{"cost"}, family: shopFam,
		conf: 0.8, traj: "traj_01", from: 7, to: 9},
	{id: RecConnectivity, cat: review.Relation, lemma: "Electronics connectivity (Bluetooth, USB, Wi-Fi) is attrs_g2.connectivity, keyed by item_id.", tags: []string{"g2", "attributes"}, family: shopFam,
		conf: 0.85, traj: "traj_07", from: 3, to: 4,
		checks: []chk{{envPre, "SELECT connectivity, COUNT(*) FROM attrs_g2 GROUP BY connectivity ORDER BY connectivity"}}},
	{id: "mem_0028", cat: review.Warning, lemma: "fdbk_g2.helpful_votes is NULL for reviews posted before 2025; use COALESCE(helpful_votes, 0) when summing.", tags: []string{"g2", "nulls"}, family: shopFam,
		trigger: "Summing or averaging helpful votes.", conf: 0.85, traj: "traj_15", from: 7, to: 8,
		checks: []chk{{EnvShop, nullVotesProbe}}},
	{id: "mem_0029", cat: review.Procedure, lemma: "Top brands by review count: join fdbk_gN to items_gN, GROUP BY brand, ORDER BY COUNT(*) DESC with brand as tie-break.", tags: []string{"ranking"}, family: shopFam,
		steps: []string{"JOIN items on the group's review key", "GROUP BY i.brand", "ORDER BY COUNT(*) DESC, i.brand LIMIT n"}, conf: 0.85, traj: "traj_15", from: 5, to: 6,
		checks: []chk{{EnvShop, topBrandsG2}}},
	{id: "mem_0030", cat: review.Warning, lemma: "Edinburgh (EDI) has no figures before April 2024; leave it out of year-on-year comparisons that start earlier.", tags: []string{"sites"}, family: docsFam,
		conf: 0.85, traj: "traj_14", from: 3, to: 4,
		checks: []chk{{EnvDocs, "grep EDI sites.md"}}},
}

// lemmaOf returns the lemma of a sample record.
func lemmaOf(id string) string {
	for _, r := range recSpecs {
		if r.id == id {
			return r.lemma
		}
	}
	return ""
}

// records runs every record's checks and returns the bank's records in the
// order they were accepted.
func (w *world) records() []review.Record {
	out := make([]review.Record, 0, len(recSpecs))
	for i, sp := range recSpecs {
		t := w.trajs[sp.traj]
		if t == nil {
			w.fail(errUnknown("trajectory", sp.traj, sp.id))
			continue
		}
		created := t.Ended.Add(3*time.Hour + time.Duration(i)*time.Minute)
		r := review.Record{ID: sp.id, Lemma: sp.lemma, Category: sp.cat, Trigger: sp.trigger, Steps: sp.steps,
			Scope:      review.Scope{Env: sp.env(), Tags: sp.tags, TaskFamily: sp.family},
			Confidence: sp.conf, Priority: 1,
			Provenance: review.Provenance{Trajectory: sp.traj, Steps: &review.StepRange{From: sp.from, To: sp.to}},
			Status:     review.Active, Created: created}
		for _, c := range sp.checks {
			res := w.probe(c.env, c.input)
			if !res.OK() {
				w.fail(fmt.Errorf("check of %s: %s", sp.id, res.Error))
			}
			r.Checks = append(r.Checks, review.Check{Env: res.Env, Input: c.input, Expect: res})
			r.VerifiedAgainst = res.Fingerprint
		}
		out = append(out, r)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Created.Before(out[j].Created) })
	return out
}
