package sample

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/formats"
)

// TasksPath is where the sample world's task set lies, relative to the
// bank: 40 tasks over the shop database for memreview eval.
const TasksPath = "tasks/shop-drift.jsonl"

// DriftAfter is the last task of the task set that the schema migration
// left alone: tasks 1–20 read tables it did not touch, tasks 21–40 the
// ones it renamed (fdbk_g1.ref_id → item_ref) and split (attrs_g2 →
// attrs_g2_core and attrs_g2_ext), so memory recorded before it misleads
// from task 21 on.
const DriftAfter = 20

// The names the migration changed, as the task set's grading probes use
// them today; an agent that remembers the old schema writes the stale
// name instead (ref_id, attrs_g2).
const (
	FreshG1Key  = "item_ref"      // fdbk_g1's key into items_g1 (was ref_id)
	FreshG2Ext  = "attrs_g2_ext"  // warranty_months, connectivity (was attrs_g2)
	FreshG2Core = "attrs_g2_core" // color, weight_g (was attrs_g2)
	// FreshG3Scale is how a grading probe puts fdbk_g3's 1–10 stars on
	// the 1–5 scale; "stars" alone is the guess of an agent that does not
	// know the scale.
	FreshG3Scale = "stars / 2.0"
)

// taskSpec is one task of the set: the question and its grading probe.
type taskSpec struct {
	text, probe string
	tags        []string
	tol         float64
}

// shopTasks is the task set in order: DriftAfter tasks on what the
// migration left alone, then as many on what it changed. Every grading
// probe returns one row.
var shopTasks = []taskSpec{
	// Before the drift: items, prices, g2 and g3 reviews, group ratings.
	{text: "How many office products are listed in the shop?", probe: "SELECT COUNT(*) FROM items_g1", tags: []string{"g1"}},
	{text: "How many electronics items are out of stock?", probe: "SELECT COUNT(*) FROM items_g2 WHERE in_stock = 0", tags: []string{"g2"}},
	{text: "What is the average price in dollars of the musical instruments?", probe: "SELECT ROUND(AVG(price_cents) / 100.0, 2) FROM items_g3", tags: []string{"g3", "price"}, tol: 0.01},
	{text: "How many electronics reviews give five stars?", probe: "SELECT COUNT(*) FROM fdbk_g2 WHERE stars = 5", tags: []string{"g2", "ratings"}},
	{text: "What is the average star rating of musical-instrument reviews, on a 1–5 scale?", probe: "SELECT ROUND(AVG(stars / 2.0), 2) FROM fdbk_g3", tags: []string{"g3", "ratings"}, tol: 0.01},
	{text: "Which electronics brand has the most reviews?", probe: "SELECT i.brand FROM fdbk_g2 f JOIN items_g2 i ON f.ref_id = i.item_id GROUP BY i.brand ORDER BY COUNT(*) DESC, i.brand LIMIT 1", tags: []string{"g2", "ranking"}},
	{text: "How many helpful votes do electronics reviews have in total?", probe: "SELECT SUM(COALESCE(helpful_votes, 0)) FROM fdbk_g2", tags: []string{"g2", "nulls"}},
	{text: "How many distinct musical instruments have at least one review?", probe: "SELECT COUNT(DISTINCT ref_id) FROM fdbk_g3", tags: []string{"g3"}},
	{text: "What is the SKU of the most expensive office product?", probe: "SELECT sku FROM items_g1 ORDER BY price_cents DESC, item_id LIMIT 1", tags: []string{"g1", "price"}},
	{text: "How many musical-instrument reviews rate four stars or more on a 1–5 scale?", probe: "SELECT COUNT(*) FROM fdbk_g3 WHERE stars / 2.0 >= 4", tags: []string{"g3", "ratings"}},
	{text: "How many office-product reviews were posted in 2025?", probe: "SELECT COUNT(*) FROM fdbk_g1 WHERE posted_on LIKE '2025-%'", tags: []string{"g1", "dates"}},
	{text: "What is the average price in dollars of the electronics in stock?", probe: "SELECT ROUND(AVG(price_cents) / 100.0, 2) FROM items_g2 WHERE in_stock = 1", tags: []string{"g2", "price"}, tol: 0.01},
	{text: "Which musical-instrument brand with at least ten reviews has the best average rating on a 1–5 scale?", probe: "SELECT i.brand FROM fdbk_g3 f JOIN items_g3 i ON f.ref_id = i.item_id GROUP BY i.brand HAVING COUNT(*) >= 10 ORDER BY AVG(f.stars / 2.0) DESC, i.brand LIMIT 1", tags: []string{"g3", "ranking"}},
	{text: "How many electronics reviews were posted before 2025?", probe: "SELECT COUNT(*) FROM fdbk_g2 WHERE posted_on < '2025-01-01'", tags: []string{"g2", "dates"}},
	{text: "What is the average star rating of electronics reviews?", probe: "SELECT ROUND(AVG(stars), 2) FROM fdbk_g2", tags: []string{"g2", "ratings"}, tol: 0.01},
	{text: "How many office products cost more than 50 dollars?", probe: "SELECT COUNT(*) FROM items_g1 WHERE price_cents > 5000", tags: []string{"g1", "price"}},
	{text: "Which product group has the highest average rating in the group ratings summary?", probe: "SELECT group_id FROM group_ratings ORDER BY avg_stars DESC, group_id LIMIT 1", tags: []string{"ratings"}},
	{text: "How many musical-instrument reviews give the top rating of five stars on a 1–5 scale?", probe: "SELECT COUNT(*) FROM fdbk_g3 WHERE stars / 2.0 >= 5", tags: []string{"g3", "ratings"}},
	{text: "How many electronics items does the brand Voltra list?", probe: "SELECT COUNT(*) FROM items_g2 WHERE brand = 'Voltra'", tags: []string{"g2", "brand"}},
	{text: "What is the average price in dollars of Paperline office products?", probe: "SELECT ROUND(AVG(price_cents) / 100.0, 2) FROM items_g1 WHERE brand = 'Paperline'", tags: []string{"g1", "price"}, tol: 0.01},

	// After the drift: office-product reviews joined to items, electronics
	// attributes.
	{text: "How many five-star office-product reviews are of items in stock? Combine the reviews with the item data.", probe: "SELECT COUNT(*) FROM fdbk_g1 f JOIN items_g1 i ON f.item_ref = i.item_id WHERE f.stars = 5 AND i.in_stock = 1", tags: []string{"g1", "join"}},
	{text: "How many electronics items carry a warranty of 24 months or more?", probe: "SELECT COUNT(*) FROM attrs_g2_ext WHERE warranty_months >= 24", tags: []string{"g2", "warranty"}},
	{text: "Which office-product brand has the most reviews? Combine the reviews with the item data.", probe: "SELECT i.brand FROM fdbk_g1 f JOIN items_g1 i ON f.item_ref = i.item_id GROUP BY i.brand ORDER BY COUNT(*) DESC, i.brand LIMIT 1", tags: []string{"g1", "join"}},
	{text: "What is the average price in dollars of electronics with a warranty of 24 months or more?", probe: "SELECT ROUND(AVG(i.price_cents) / 100.0, 2) FROM items_g2 i JOIN attrs_g2_ext e ON e.item_id = i.item_id WHERE e.warranty_months >= 24", tags: []string{"g2", "warranty", "price"}, tol: 0.01},
	{text: "How many electronics items have Bluetooth connectivity?", probe: "SELECT COUNT(*) FROM attrs_g2_ext WHERE connectivity = 'Bluetooth'", tags: []string{"g2", "attributes"}},
	{text: "What is the average weight in grams of black electronics items?", probe: "SELECT ROUND(AVG(weight_g), 1) FROM attrs_g2_core WHERE color = 'black'", tags: []string{"g2", "attributes"}, tol: 0.1},
	{text: "What is the average star rating of office-product reviews of items priced over 50 dollars? Combine the reviews with the item data.", probe: "SELECT ROUND(AVG(f.stars), 2) FROM fdbk_g1 f JOIN items_g1 i ON f.item_ref = i.item_id WHERE i.price_cents > 5000", tags: []string{"g1", "join", "ratings"}, tol: 0.01},
	{text: "How many reviewed electronics items have USB connectivity?", probe: "SELECT COUNT(DISTINCT i.item_id) FROM items_g2 i JOIN fdbk_g2 f ON f.ref_id = i.item_id JOIN attrs_g2_ext e ON e.item_id = i.item_id WHERE e.connectivity = 'USB'", tags: []string{"g2", "attributes"}},
	{text: "What is the title of the heaviest electronics item?", probe: "SELECT i.title FROM items_g2 i JOIN attrs_g2_core c ON c.item_id = i.item_id ORDER BY c.weight_g DESC, i.item_id LIMIT 1", tags: []string{"g2", "attributes"}},
	{text: "How many verified office-product reviews are of Stapleton items? Combine the reviews with the item data.", probe: "SELECT COUNT(*) FROM fdbk_g1 f JOIN items_g1 i ON f.item_ref = i.item_id WHERE f.verified = 1 AND i.brand = 'Stapleton'", tags: []string{"g1", "join", "verified"}},
	{text: "What is the longest warranty, in months, of any electronics item?", probe: "SELECT MAX(warranty_months) FROM attrs_g2_ext", tags: []string{"g2", "warranty"}},
	{text: "How many office-product reviews are of items listed before 2024? Combine the reviews with the item data.", probe: "SELECT COUNT(*) FROM fdbk_g1 f JOIN items_g1 i ON f.item_ref = i.item_id WHERE i.listed_on < '2024-01-01'", tags: []string{"g1", "join", "dates"}},
	{text: "How many electronics items have Wi-Fi connectivity and a warranty of at least 12 months?", probe: "SELECT COUNT(*) FROM attrs_g2_ext WHERE connectivity = 'Wi-Fi' AND warranty_months >= 12", tags: []string{"g2", "attributes", "warranty"}},
	{text: "How many white electronics items weigh under 300 grams?", probe: "SELECT COUNT(*) FROM attrs_g2_core WHERE color = 'white' AND weight_g < 300", tags: []string{"g2", "attributes"}},
	{text: "Which office product has the most reviews? Give its SKU. Combine the reviews with the item data.", probe: "SELECT i.sku FROM fdbk_g1 f JOIN items_g1 i ON f.item_ref = i.item_id GROUP BY i.item_id ORDER BY COUNT(*) DESC, i.item_id LIMIT 1", tags: []string{"g1", "join"}},
	{text: "What is the average price in dollars of electronics with Bluetooth connectivity?", probe: "SELECT ROUND(AVG(i.price_cents) / 100.0, 2) FROM items_g2 i JOIN attrs_g2_ext e ON e.item_id = i.item_id WHERE e.connectivity = 'Bluetooth'", tags: []string{"g2", "attributes", "price"}, tol: 0.01},
	{text: "How many helpful votes do office-product reviews of Deskwise items have in total? Combine the reviews with the item data.", probe: "SELECT SUM(COALESCE(f.helpful_votes, 0)) FROM fdbk_g1 f JOIN items_g1 i ON f.item_ref = i.item_id WHERE i.brand = 'Deskwise'", tags: []string{"g1", "join"}},
	{text: "What is the total weight in grams of the electronics items in stock?", probe: "SELECT SUM(c.weight_g) FROM items_g2 i JOIN attrs_g2_core c ON c.item_id = i.item_id WHERE i.in_stock = 1", tags: []string{"g2", "attributes"}},
	{text: "How many electronics items with a 36-month warranty are in stock?", probe: "SELECT COUNT(*) FROM items_g2 i JOIN attrs_g2_ext e ON e.item_id = i.item_id WHERE e.warranty_months = 36 AND i.in_stock = 1", tags: []string{"g2", "warranty"}},
	{text: "How many one-star office-product reviews are of out-of-stock items? Combine the reviews with the item data.", probe: "SELECT COUNT(*) FROM fdbk_g1 f JOIN items_g1 i ON f.item_ref = i.item_id WHERE f.stars = 1 AND i.in_stock = 0", tags: []string{"g1", "join"}},
}

// Tasks is the sample world's task set: 40 shop tasks, graded by probes.
func Tasks() []review.Task {
	out := make([]review.Task, len(shopTasks))
	for i, s := range shopTasks {
		out[i] = review.Task{ID: fmt.Sprintf("shop-%02d", i+1), Env: EnvShop, Text: s.text,
			Grading: review.Grading{Probe: s.probe, Tolerance: s.tol}, Tags: s.tags, TaskFamily: shopFam, Order: i + 1}
	}
	return out
}

// writeTasks writes the task set into the bank's tasks folder, after
// checking that every grading probe answers one row on the shop database.
func (w *world) writeTasks() error {
	tasks := Tasks()
	for _, t := range tasks {
		res := w.probe(EnvShop, t.Grading.Probe)
		if !res.OK() || len(res.Rows) != 1 {
			return fmt.Errorf("sample: task %s: its grading probe gives %d rows (%s); a grading probe gives one", t.ID, len(res.Rows), res.Error)
		}
	}
	path := filepath.Join(w.dir, TasksPath)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("sample: %w", err)
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("sample: %w", err)
	}
	if err := formats.WriteTasks(f, tasks); err != nil {
		f.Close()
		return fmt.Errorf("sample: %s: %w", TasksPath, err)
	}
	return f.Close()
}
