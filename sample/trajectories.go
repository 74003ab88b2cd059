package sample

import (
	"fmt"
	"sort"
	"strconv"
	"time"

	"github.com/memreview/memreview/review"
)

// at is a moment of the story: day d of March 2026 at hh:mm UTC.
func at(d, hh, mm int) time.Time { return time.Date(2026, 3, d, hh, mm, 0, 0, time.UTC) }

// trajectories runs the task sequence: nine tasks before the migration,
// nine after it. They are returned sorted by id.
func (w *world) trajectories() []review.Trajectory {
	w.preMigration()
	w.postMigration()
	ids := make([]string, 0, len(w.trajs))
	for id := range w.trajs {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	out := make([]review.Trajectory, len(ids))
	for i, id := range ids {
		out[i] = *w.trajs[id]
	}
	return out
}

func (w *world) preMigration() {
	b := w.traj(1, EnvShop, "How many reviews of in-stock office products (group g1) have 4 or more stars?", at(2, 9, 10))
	b.sql("I'll list the tables first.", "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
	b.sql("Office products are g1. Let me read the item and review tables' definitions.", "SELECT name, sql FROM sqlite_master WHERE name IN ('items_g1', 'fdbk_g1') ORDER BY name")
	r := b.sql("fdbk_g1 has no item_id; ref_id points at items_g1.item_id. One aggregate query:", "SELECT COUNT(*) FROM fdbk_g1 f JOIN items_g1 i ON f.ref_id = i.item_id WHERE f.stars >= 4 AND i.in_stock = 1")
	b.answer(fmt.Sprintf("%s reviews. Counted fdbk_g1 rows with stars >= 4 joined to in-stock items_g1 rows on fdbk_g1.ref_id = items_g1.item_id.", r.cell(0, 0)))
	b.end(true, 1, "", review.Packet{
		Observations: []review.Observation{obs(3, 6, "fdbk_g1 has no item_id column; reviews reference items through fdbk_g1.ref_id = items_g1.item_id."), obs(7, 8, "One COUNT(*) over the join with stars >= 4 AND in_stock = 1 gives "+r.cell(0, 0)+".")},
		Procedures:   []string{"Read sqlite_master for the group's tables", "Join fdbk_g1 to items_g1 on ref_id = item_id", "Filter and count in one query"},
	})

	b = w.traj(2, EnvShop, "What is the average price, in US dollars, of Voltra-brand electronics (group g2)?", at(3, 14, 2), RecRefJoin)
	b.sql("Checking the items table for electronics.", "SELECT sql FROM sqlite_master WHERE name = 'items_g2'")
	r = b.sql("Prices are in price_cents. Averaging for Voltra:", "SELECT AVG(price_cents) FROM items_g2 WHERE brand = 'Voltra'")
	wrong := fmt.Sprintf("$%.2f", r.num(0, 0))
	b.answer(fmt.Sprintf("The average price of Voltra electronics is %s.", wrong))
	b.end(false, 0, "expected "+money(r.num(0, 0))+": price_cents holds cents, the agent reported the raw value as dollars", review.Packet{
		Observations: []review.Observation{obs(5, 6, "AVG(price_cents) for Voltra is "+r.cell(0, 0)+"; reported as dollars without conversion.")},
		Assumptions:  []string{"price_cents values are dollar amounts"},
	})

	b = w.traj(3, EnvShop, "What is the average price, in US dollars, of electronics (g2) that come with a warranty of at least 24 months?", at(4, 10, 30), RecRefJoin, RecWrong)
	b.sql("Warranty is not on items_g2; checking the attribute table.", "SELECT sql FROM sqlite_master WHERE name = 'attrs_g2'")
	r = b.sql("mem_0003 says prices are dollars, but the column is price_cents. Checking the range:", "SELECT MIN(price_cents), MAX(price_cents) FROM items_g2")
	r2 := b.sql("Values like "+r.cell(0, 0)+" are cents (no item costs thousands of dollars here). Dividing by 100.0:", "SELECT ROUND(AVG(i.price_cents) / 100.0, 2) FROM items_g2 i JOIN attrs_g2 a ON a.item_id = i.item_id WHERE a.warranty_months >= 24")
	b.answer(fmt.Sprintf("$%s. Joined items_g2 to attrs_g2 on item_id, kept warranty_months >= 24, averaged price_cents / 100.0.", r2.cell(0, 0)))
	b.end(true, 1, "", review.Packet{
		Observations: []review.Observation{obs(3, 4, "attrs_g2 holds color, weight_g, warranty_months and connectivity, one row per item_id."),
			obs(5, 6, "price_cents ranges "+r.cell(0, 0)+"–"+r.cell(0, 1)+": cents, contradicting retrieved mem_0003."), obs(7, 8, "Average over warranty_months >= 24 is $"+r2.cell(0, 0)+".")},
		Procedures: []string{"Join items_g2 to attrs_g2 on item_id", "Filter warranty_months >= 24", "AVG(price_cents) / 100.0"},
	})

	b = w.traj(4, EnvShop, "Among verified-purchase reviews of office products (g1), which brand has the highest average star rating? Only consider brands with at least 20 such reviews.", at(5, 11, 5), RecRefJoin)
	b.sql("Reading fdbk_g1's definition.", "SELECT sql FROM sqlite_master WHERE name = 'fdbk_g1'")
	r = b.sql("There is a verified flag. Grouping by brand with a minimum review count:", "SELECT i.brand, COUNT(*) AS reviews, ROUND(AVG(f.stars), 2) AS avg_stars FROM fdbk_g1 f JOIN items_g1 i ON f.ref_id = i.item_id WHERE f.verified = 1 GROUP BY i.brand HAVING COUNT(*) >= 20 ORDER BY avg_stars DESC, i.brand")
	b.answer(fmt.Sprintf("%s, with an average of %s stars over %s verified reviews.", r.cell(0, 0), r.cell(0, 2), r.cell(0, 1)))
	b.end(true, 1, "", review.Packet{
		Observations: []review.Observation{obs(3, 4, "fdbk_g1 has verified (1 = verified purchase)."), obs(5, 6, "HAVING COUNT(*) >= 20 removes brands with a handful of reviews; "+r.cell(0, 0)+" leads.")},
		Procedures:   []string{"Filter verified = 1", "GROUP BY brand HAVING COUNT(*) >= 20", "ORDER BY the average, brand"},
	})

	d := w.docs
	b = w.traj(5, EnvDocs, "What was revenue per head at the Leeds site in June 2024?", at(6, 9, 40))
	b.read("Starting with the folder's README.", "README.md")
	b.grep("Leeds revenue for June 2024:", "2024-06", "revenue_by_site.csv")
	b.grep("Headcount for June 2024:", "2024-06", "headcount.csv")
	b.read("headcount.csv uses codes, not names. Looking up Leeds' code.", "sites.md")
	lds := perHead(d.revenue[key("2024-06", "LDS")], d.fte[key("2024-06", "LDS")])
	b.answer(fmt.Sprintf("Leeds (LDS), June 2024: £%d revenue / %s FTE = £%s per head.", d.revenue[key("2024-06", "LDS")], d.fte[key("2024-06", "LDS")], lds))
	b.end(true, 1, "", review.Packet{
		Observations: []review.Observation{obs(3, 4, "Revenue is in whole pounds (GBP); headcount is FTE."), obs(5, 8, "revenue_by_site.csv names sites; headcount.csv uses site codes."), obs(9, 10, "sites.md maps Leeds to LDS.")},
		Procedures:   []string{"Find the site's code in sites.md", "Take revenue for the month and site", "Divide by the FTE for the same month and code"},
	})

	b = w.traj(6, EnvShop, "What is the average star rating of musical instruments (g3) on the usual 1–5 scale, and does group_ratings agree?", at(9, 15, 20), RecRefJoin)
	b.sql("Which group is musical instruments?", "SELECT group_id, name, source FROM catalog_groups ORDER BY group_id")
	r = b.sql("g3 comes from a partner feed. Sampling the star values before averaging:", "SELECT MIN(stars), MAX(stars), COUNT(*) FROM fdbk_g3")
	r2 = b.sql("Stars run to 10 in g3, so halve them.", "SELECT ROUND(AVG(stars) / 2.0, 2) FROM fdbk_g3")
	r3 := b.sql("Comparing with the aggregate table:", "SELECT group_id, review_count, avg_stars, refreshed_on FROM group_ratings ORDER BY group_id")
	b.sql("Brands in g3, for the record:", "SELECT DISTINCT brand FROM items_g3 ORDER BY brand")
	b.answer(fmt.Sprintf("%s stars (fdbk_g3 uses a 1–10 scale, halved). group_ratings says %s for g3, but it was refreshed on %s and counts %s of %s reviews, so it lags.", r2.cell(0, 0), r3.cell(2, 2), r3.cell(2, 3), r3.cell(2, 1), r.cell(0, 2)))
	b.end(true, 1, "", review.Packet{
		Observations: []review.Observation{obs(3, 4, "catalog_groups maps g1/g2/g3 to office products, electronics, musical instruments; g3 is a partner feed."),
			obs(5, 6, "fdbk_g3.stars runs "+r.cell(0, 0)+"–"+r.cell(0, 1)+": a 1–10 scale."), obs(9, 10, "group_ratings is refreshed monthly and lags; its g3 avg_stars is already on 1–5."), obs(11, 12, "g3 brand names are upper case.")},
		Procedures: []string{"Check a column's range before aggregating", "Halve g3 stars", "Prefer live aggregates over group_ratings"},
	})

	b = w.traj(7, EnvShop, "How many distinct Bluetooth electronics items (g2) have at least one review?", at(10, 13, 45), RecRefJoin, RecAttrsG2)
	r = b.sql("Connectivity lives in attrs_g2 (mem_0004). Values:", "SELECT connectivity, COUNT(*) FROM attrs_g2 GROUP BY connectivity ORDER BY connectivity")
	r2 = b.sql("Counting reviewed Bluetooth items:", trajOnlyProbe)
	b.answer(fmt.Sprintf("%s items. Of the %s Bluetooth items in attrs_g2, %s have at least one review in fdbk_g2.", r2.cell(0, 0), r.cell(0, 1), r2.cell(0, 0)))
	b.end(true, 0.94, "count correct; the answer carried an unrequested breakdown", review.Packet{
		Observations: []review.Observation{obs(3, 4, "attrs_g2.connectivity takes Bluetooth, USB, Wi-Fi."), obs(5, 6, "COUNT(DISTINCT item_id) over fdbk_g2 ⋈ items_g2 ⋈ attrs_g2 gives "+r2.cell(0, 0)+".")},
		Procedures:   []string{"Join fdbk_g2 → items_g2 on ref_id", "Join attrs_g2 on item_id", "COUNT(DISTINCT item_id)"},
	})

	b = w.traj(8, EnvDocs, "What was the company's operating margin in FY2024?", at(11, 10, 15), RecRevenueHeadA, RecGBP)
	b.read("Reading the P&L.", "pnl_fy2024.md")
	b.grep("Summing site revenue for 2024 to use as the revenue base:", "2024-", "revenue_by_site.csv")
	total := 0
	for k, v := range d.revenue {
		if k[:4] == "2024" {
			total += v
		}
	}
	b.answer(fmt.Sprintf("Operating margin FY2024 = %d / %d = %.3f%%.", d.pnl.operating, total, 100*float64(d.pnl.operating)/float64(total)))
	b.end(false, 0, fmt.Sprintf("expected %.1f%% (operating profit / total revenue, both £k from the P&L)", 100*float64(d.pnl.operating)/float64(d.pnl.revenue)), review.Packet{
		Observations: []review.Observation{obs(3, 4, "The P&L is in £ thousands and its total revenue includes central services revenue."), obs(5, 7, "Divided £k operating profit by site revenue in whole pounds.")},
		Assumptions:  []string{"Every workbook is in whole pounds (mem_0021)", "Company revenue = sum of site revenue"},
	})

	b = w.traj(9, EnvDocs, "What was revenue per head at Leeds in November 2024?", at(12, 16, 0), RecRevenueHeadA, RecSiteKeys, RecGBP)
	b.grep("Leeds is LDS (mem_0022). Revenue:", "2024-11,Leeds", "revenue_by_site.csv")
	b.grep("FTE:", "2024-11,LDS", "headcount.csv")
	b.answer(fmt.Sprintf("£%s per head (£%d / %s FTE).", perHead(d.revenue[key("2024-11", "LDS")], d.fte[key("2024-11", "LDS")]), d.revenue[key("2024-11", "LDS")], d.fte[key("2024-11", "LDS")]))
	b.end(true, 1, "", review.Packet{Observations: []review.Observation{obs(3, 6, "Followed mem_0017 and mem_0022 exactly; no surprises.")}})
}

// perHead is revenue / fte rounded to whole pounds.
func perHead(revenue int, fte string) string {
	f, _ := strconv.ParseFloat(fte, 64)
	return strconv.FormatFloat(float64(revenue)/f, 'f', 0, 64)
}
