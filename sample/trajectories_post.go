package sample

import (
	"fmt"
	"strconv"

	"github.com/memreview/memreview/review"
)

// postMigration runs the tasks after the 2026-03-16 migration, against the
// current schema; some fail because the memories they retrieved are stale.
func (w *world) postMigration() {
	b := w.traj(10, EnvShop, "How many reviews of in-stock office products (group g1) have 4 or more stars?", at(17, 9, 5), RecRefJoin, RecSingleQuery)
	b.sql("mem_0001 gives the join. One aggregate query:", "SELECT COUNT(*) FROM fdbk_g1 f JOIN items_g1 i ON f.ref_id = i.item_id WHERE f.stars >= 4 AND i.in_stock = 1")
	b.sql("Retrying with the join written the other way round.", "SELECT COUNT(*) FROM fdbk_g1 f JOIN items_g1 i ON i.item_id = f.ref_id WHERE f.stars >= 4")
	b.answer("I could not compute the count: fdbk_g1.ref_id does not exist, although memory mem_0001 says reviews join items on it.")
	b.end(false, 0, "no answer; the column was renamed to item_ref on 2026-03-16", review.Packet{
		Observations: []review.Observation{obs(3, 6, "The join from mem_0001 fails: no such column f.ref_id. The agent retried the same join instead of reading the schema.")},
		Assumptions:  []string{"mem_0001's join column still exists"},
	})

	b = w.traj(11, EnvShop, "What share of office-product (g1) reviews give 5 stars, and what is their average star rating?", at(17, 14, 30), RecRefJoin, RecSchemaFirst)
	b.sql("mem_0010: read the schema first.", "SELECT sql FROM sqlite_master WHERE name = 'fdbk_g1'")
	b.sql("The column is item_ref now, not ref_id as mem_0001 says. Is there a migration log?", "SELECT version, applied_on, note FROM schema_migrations ORDER BY version")
	b.sql("Checking the star scale before averaging:", starsProbeG1)
	r := b.sql("Stars are 1–5. Share of 5-star reviews and the mean:", "SELECT ROUND(100.0 * SUM(f.stars = 5) / COUNT(*), 1) AS pct_five, ROUND(AVG(f.stars), 2) AS avg_stars FROM fdbk_g1 f JOIN items_g1 i ON f.item_ref = i.item_id")
	b.answer(fmt.Sprintf("%s%% of g1 reviews give 5 stars; the average is %s stars.", r.cell(0, 0), r.cell(0, 1)))
	b.end(true, 1, "", review.Packet{
		Observations: []review.Observation{obs(3, 4, "fdbk_g1 now references items through item_ref."), obs(5, 6, "schema_migrations v2 (2026-03-16): ref_id renamed to item_ref; attrs_g2 split."),
			obs(7, 8, "fdbk_g1.stars runs 1–5."), obs(9, 10, "Join on f.item_ref = i.item_id works.")},
		Procedures: []string{"Read the table definition when a remembered column is in doubt", "Check schema_migrations for renames"},
	})

	b = w.traj(12, EnvShop, "What is the average price, in US dollars, of electronics (g2) that come with a warranty of at least 24 months?", at(18, 10, 0), RecWarrantyProc, RecAttrsG2, RecWrong)
	b.sql("Following mem_0005:", "SELECT ROUND(AVG(i.price_cents) / 100.0, 2) FROM items_g2 i JOIN attrs_g2 a ON a.item_id = i.item_id WHERE a.warranty_months >= 24")
	r = b.sql("attrs_g2 is gone. Falling back to the average over all electronics.", "SELECT ROUND(AVG(price_cents) / 100.0, 2) FROM items_g2")
	b.answer(fmt.Sprintf("About $%.2f (warranty data unavailable; this is the average over all electronics).", r.num(0, 0)))
	b.end(false, 0, "wrong: the warranty filter was dropped; warranty_months is in attrs_g2_ext since 2026-03-16", review.Packet{
		Observations: []review.Observation{obs(3, 4, "mem_0005's query fails: no such table attrs_g2."), obs(5, 6, "The agent dropped the filter instead of looking for the new tables.")},
		Assumptions:  []string{"attrs_g2 exists (mem_0004, mem_0005)", "Prices are in dollars (mem_0003) — contradicted by its own /100.0"},
	})

	b = w.traj(13, EnvShop, "How many electronics items (g2) weigh under 200 g and have Bluetooth connectivity?", at(19, 11, 20), RecAttrsG2, RecConnectivity, RecNoSuchColumn)
	b.sql("Using attrs_g2 (mem_0004):", "SELECT COUNT(*) FROM attrs_g2 WHERE weight_g < 200 AND connectivity = 'Bluetooth'")
	b.sql("No such table. mem_0012: re-read the schema.", splitProbe)
	r = b.sql("attrs_g2 was split into core and ext. Joining them:", "SELECT COUNT(*) FROM attrs_g2_core c JOIN attrs_g2_ext e ON e.item_id = c.item_id WHERE c.weight_g < 200 AND e.connectivity = 'Bluetooth'")
	b.answer(fmt.Sprintf("%s items. Weight is in attrs_g2_core, connectivity in attrs_g2_ext; they join on item_id.", r.cell(0, 0)))
	b.end(true, 1, "", review.Packet{
		Observations: []review.Observation{obs(3, 4, "attrs_g2 no longer exists."), obs(5, 6, "attrs_g2_core (item_id, color, weight_g) and attrs_g2_ext (item_id, warranty_months, connectivity) replace it."),
			obs(7, 8, "Joining them on item_id answers the task: "+r.cell(0, 0)+".")},
		Procedures: []string{"On 'no such table', list sqlite_master names with the old name as a prefix", "Join attrs_g2_core to attrs_g2_ext on item_id"},
	})

	d := w.docs
	b = w.traj(14, EnvDocs, "What was revenue per employee at the Bristol site in September 2024?", at(20, 9, 50), RecGBP, RecFTE)
	b.read("Site names and codes:", "sites.md")
	b.grep("Bristol is BRS. Revenue:", "2024-09,Bristol", "revenue_by_site.csv")
	b.grep("FTE:", "2024-09,BRS", "headcount.csv")
	b.answer(fmt.Sprintf("£%s per employee (£%d / %s FTE).", perHead(d.revenue[key("2024-09", "BRS")], d.fte[key("2024-09", "BRS")]), d.revenue[key("2024-09", "BRS")], d.fte[key("2024-09", "BRS")]))
	b.end(true, 1, "", review.Packet{
		Observations: []review.Observation{obs(3, 4, "sites.md maps names to codes; Edinburgh has no figures before April 2024."), obs(5, 8, "Revenue per employee = revenue / FTE for the same month, names mapped to codes.")},
	})

	b = w.traj(15, EnvShop, "Which three electronics brands (g2) have the most reviews?", at(23, 13, 10), RecSchemaFirst, RecSingleQuery)
	b.sql("Reading fdbk_g2's definition.", "SELECT sql FROM sqlite_master WHERE name = 'fdbk_g2'")
	r = b.sql("g2 still uses ref_id. Counting per brand:", topBrandsG2)
	b.sql("Some helpful_votes look empty; checking before anyone sums them:", nullVotesProbe)
	b.answer(fmt.Sprintf("%s (%s), %s (%s), %s (%s).", r.cell(0, 0), r.cell(0, 1), r.cell(1, 0), r.cell(1, 1), r.cell(2, 0), r.cell(2, 1)))
	b.end(true, 1, "", review.Packet{
		Observations: []review.Observation{obs(3, 4, "fdbk_g2 joins items_g2 on ref_id (only g1 was renamed)."), obs(5, 6, "Top three by review count: "+r.cell(0, 0)+", "+r.cell(1, 0)+", "+r.cell(2, 0)+"."),
			obs(7, 8, "helpful_votes is NULL for reviews posted before 2025; posted_on is ISO text.")},
	})

	b = w.traj(16, EnvShop, "What share of electronics (g2) reviews are verified purchases?", at(24, 10, 40), RecOvergeneral)
	b.sql("mem_0015: verified flag on fdbk tables.", "SELECT ROUND(100.0 * AVG(verified), 1) FROM fdbk_g2")
	b.sql("Checking the definition:", "SELECT sql FROM sqlite_master WHERE name = 'fdbk_g2'")
	b.answer("0.0% — no electronics review is flagged as verified.")
	b.end(false, 0, "expected: not recorded — fdbk_g2 has no verified flag", review.Packet{
		Observations: []review.Observation{obs(3, 6, "fdbk_g2 has no verified column; mem_0015 holds for fdbk_g1 only.")},
		Assumptions:  []string{"Every fdbk table has verified (mem_0015)"},
	})

	b = w.traj(17, EnvDocs, "What was revenue per head at Manchester in Q1 2025?", at(25, 15, 0), RecRevenueHeadA, RecRevenueHeadB, RecSiteKeys, RecFTE)
	b.read("Quarter definitions first:", "notes/methodology.md")
	b.grep("Manchester revenue:", "Manchester", "revenue_by_site.csv")
	b.grep("Manchester FTE (code MAN):", "MAN", "headcount.csv")
	rev, fte := 0, 0.0
	for _, m := range []string{"2025-01", "2025-02", "2025-03"} {
		rev += d.revenue[key(m, "MAN")]
		f, _ := strconv.ParseFloat(d.fte[key(m, "MAN")], 64)
		fte += f / 3
	}
	b.answer(fmt.Sprintf("£%.0f per head: Q1 revenue £%d / mean FTE %.2f.", float64(rev)/fte, rev, fte))
	b.end(true, 1, "", review.Packet{
		Observations: []review.Observation{obs(3, 4, "For a quarter: sum three months of revenue, divide by the mean month-end FTE."), obs(5, 8, "mem_0017 and mem_0018 say the same thing in different words.")},
		Procedures:   []string{"Sum revenue over the quarter's months", "Average the FTE over the same months", "Divide"},
	})

	b = w.traj(18, EnvShop, "How many office products (g1) have no reviews at all?", at(26, 11, 30), RecNoSuchColumn, RecGroups, RecSingleQuery)
	b.sql("Checking fdbk_g1's current definition (mem_0012).", "SELECT sql FROM sqlite_master WHERE name = 'fdbk_g1'")
	r = b.sql("Join column is item_ref.", "SELECT COUNT(*) FROM items_g1 i WHERE NOT EXISTS (SELECT 1 FROM fdbk_g1 f WHERE f.item_ref = i.item_id)")
	b.answer(fmt.Sprintf("%s office products have no reviews.", r.cell(0, 0)))
	b.end(true, 1, "", review.Packet{Observations: []review.Observation{obs(3, 6, "Covered by mem_0012 and the item_ref join; nothing new.")}})
}
