package sample

import (
	"database/sql"
	"fmt"
	"math/rand/v2"
	"net/url"

	_ "modernc.org/sqlite" // the "sqlite" database/sql driver
)

// shopSchema is the shop database before the migration (schema version 1).
const shopSchema = `
CREATE TABLE catalog_groups (group_id TEXT PRIMARY KEY, name TEXT NOT NULL, source TEXT NOT NULL);
CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_on TEXT NOT NULL, note TEXT NOT NULL);
CREATE TABLE items_g1 (item_id INTEGER PRIMARY KEY, sku TEXT NOT NULL, title TEXT NOT NULL, brand TEXT NOT NULL, price_cents INTEGER NOT NULL, listed_on TEXT NOT NULL, in_stock INTEGER NOT NULL);
CREATE TABLE items_g2 (item_id INTEGER PRIMARY KEY, sku TEXT NOT NULL, title TEXT NOT NULL, brand TEXT NOT NULL, price_cents INTEGER NOT NULL, listed_on TEXT NOT NULL, in_stock INTEGER NOT NULL);
CREATE TABLE items_g3 (item_id INTEGER PRIMARY KEY, sku TEXT NOT NULL, title TEXT NOT NULL, brand TEXT NOT NULL, price_cents INTEGER NOT NULL, listed_on TEXT NOT NULL, in_stock INTEGER NOT NULL);
CREATE TABLE fdbk_g1 (fdbk_id INTEGER PRIMARY KEY, ref_id INTEGER NOT NULL, stars INTEGER NOT NULL, helpful_votes INTEGER, verified INTEGER NOT NULL, posted_on TEXT NOT NULL, summary TEXT);
CREATE TABLE fdbk_g2 (fdbk_id INTEGER PRIMARY KEY, ref_id INTEGER NOT NULL, stars INTEGER NOT NULL, helpful_votes INTEGER, posted_on TEXT NOT NULL, summary TEXT);
CREATE TABLE fdbk_g3 (fdbk_id INTEGER PRIMARY KEY, ref_id INTEGER NOT NULL, stars INTEGER NOT NULL, helpful_votes INTEGER, posted_on TEXT NOT NULL, summary TEXT);
CREATE INDEX fdbk_g1_ref ON fdbk_g1(ref_id);
CREATE INDEX fdbk_g2_ref ON fdbk_g2(ref_id);
CREATE INDEX fdbk_g3_ref ON fdbk_g3(ref_id);
CREATE TABLE attrs_g1 (item_id INTEGER PRIMARY KEY, color TEXT, material TEXT, pack_qty INTEGER);
CREATE TABLE attrs_g2 (item_id INTEGER PRIMARY KEY, color TEXT, weight_g INTEGER, warranty_months INTEGER, connectivity TEXT);
CREATE TABLE attrs_g3 (item_id INTEGER PRIMARY KEY, color TEXT, weight_g INTEGER, body TEXT);
CREATE TABLE group_ratings (group_id TEXT PRIMARY KEY, review_count INTEGER NOT NULL, avg_stars REAL NOT NULL, refreshed_on TEXT NOT NULL);
INSERT INTO catalog_groups VALUES ('g1', 'Office Products', 'first-party catalogue'), ('g2', 'Electronics', 'first-party catalogue'), ('g3', 'Musical Instruments', 'partner feed (Harmonia Wholesale)');
INSERT INTO schema_migrations VALUES (1, '2025-06-30', 'initial catalogue import');
`

// shopMigration is the schema change applied on 2026-03-16 (version 2).
const shopMigration = `
ALTER TABLE fdbk_g1 RENAME COLUMN ref_id TO item_ref;
CREATE TABLE attrs_g2_core (item_id INTEGER PRIMARY KEY, color TEXT, weight_g INTEGER);
CREATE TABLE attrs_g2_ext (item_id INTEGER PRIMARY KEY REFERENCES attrs_g2_core(item_id), warranty_months INTEGER, connectivity TEXT);
INSERT INTO attrs_g2_core SELECT item_id, color, weight_g FROM attrs_g2 ORDER BY item_id;
INSERT INTO attrs_g2_ext SELECT item_id, warranty_months, connectivity FROM attrs_g2 ORDER BY item_id;
DROP TABLE attrs_g2;
INSERT INTO schema_migrations VALUES (2, '2026-03-16', 'fdbk_g1.ref_id renamed to item_ref; attrs_g2 split into attrs_g2_core and attrs_g2_ext');
`

// product is a catalogue line: a name and a typical price in cents.
type product struct {
	name  string
	cents int
}

// group describes one product group's catalogue.
type group struct {
	id, skuPrefix string
	firstID       int
	items         int
	reviews       int
	brands        []string
	products      []product
	colors        []string
	maxStars      int
}

var groups = []group{
	{id: "g1", skuPrefix: "OFF", firstID: 1001, items: 120, reviews: 420, maxStars: 5,
		brands: []string{"Paperline", "Stapleton", "Deskwise", "Inkwell", "Ledger & Co", "Acme Office"},
		products: []product{{"Heavy-Duty Stapler", 2499}, {"Ring Binder A4 (4-pack)", 1299}, {"Gel Pens (12-pack)", 899},
			{"Desk Organiser", 2199}, {"Sticky Notes 76x76 (12 pads)", 749}, {"Label Maker", 3999},
			{"Cross-Cut Paper Shredder", 8999}, {"Whiteboard Markers (8)", 1099}, {"Laminator A3", 5499}, {"Printer Paper A4 (5 reams)", 2899}},
		colors: []string{"black", "blue", "grey", "white", "red"}},
	{id: "g2", skuPrefix: "ELE", firstID: 2001, items: 120, reviews: 450, maxStars: 5,
		brands: []string{"Voltra", "Nordlys", "Kestrel Audio", "Pixelon", "Arcwave", "Tandem"},
		products: []product{{"Wireless Earbuds", 7999}, {"USB-C Hub 7-in-1", 3999}, {"Bluetooth Speaker", 5999},
			{"Mechanical Keyboard", 8999}, {"Webcam 1080p", 4999}, {"Smart Plug (2-pack)", 2499},
			{"Portable SSD 1TB", 10999}, {"Noise-Cancelling Headphones", 19999}, {"Wi-Fi Range Extender", 3499}, {"Fitness Tracker", 6999}},
		colors: []string{"black", "white", "graphite", "silver", "blue"}},
	{id: "g3", skuPrefix: "MUS", firstID: 3001, items: 90, reviews: 300, maxStars: 10,
		brands: []string{"HARTWOOD", "SELMERE", "KORVAN", "BLACKFEN", "LUMEN"},
		products: []product{{"Acoustic Guitar Dreadnought", 24999}, {"Digital Piano 88-Key", 54999}, {"Concert Ukulele", 7999},
			{"Violin 4/4 Outfit", 19999}, {"Drum Practice Pad", 2999}, {"Guitar Strings 10-46 (3 sets)", 2499},
			{"Quick-Change Capo", 1499}, {"Alto Saxophone", 89999}, {"Cajon", 11999}, {"Clip-on Tuner", 1999}},
		colors: []string{"natural", "black", "sunburst", "red", "walnut"}},
}

var summaries = map[int][]string{
	1: {"Broke within a week.", "Not as described.", "Returned it."},
	2: {"Feels cheap.", "Stopped working after a month.", "Disappointing for the price."},
	3: {"Does the job.", "Average quality.", "Fine, nothing special."},
	4: {"Good value.", "Works well, minor niggles.", "Would buy again."},
	5: {"Excellent quality.", "Exactly what I needed.", "Five stars, fast delivery."},
}

var connectivity = map[string]string{
	"Wireless Earbuds": "Bluetooth", "USB-C Hub 7-in-1": "USB", "Bluetooth Speaker": "Bluetooth",
	"Mechanical Keyboard": "USB", "Webcam 1080p": "USB", "Smart Plug (2-pack)": "Wi-Fi",
	"Portable SSD 1TB": "USB", "Noise-Cancelling Headphones": "Bluetooth", "Wi-Fi Range Extender": "Wi-Fi", "Fitness Tracker": "Bluetooth",
}

// openShop creates a new shop database at path (which must not exist) with
// a fixed page size and a rollback journal, so its bytes depend on its
// content only.
func openShop(path string) (*sql.DB, error) {
	db, err := sql.Open("sqlite", fileURI(path))
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	for _, p := range []string{"PRAGMA page_size = 4096", "PRAGMA journal_mode = DELETE", "PRAGMA auto_vacuum = NONE"} {
		if _, err := db.Exec(p); err != nil {
			db.Close()
			return nil, fmt.Errorf("shop db: %s: %w", p, err)
		}
	}
	return db, nil
}

// fillShop writes the pre-migration schema and deterministic rows.
func fillShop(db *sql.DB, seed int64) error {
	if _, err := db.Exec(shopSchema); err != nil {
		return fmt.Errorf("shop schema: %w", err)
	}
	rng := rand.New(rand.NewPCG(uint64(seed), 0x5709))
	tx, err := db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, g := range groups {
		if err := fillGroup(tx, rng, g); err != nil {
			return fmt.Errorf("shop %s: %w", g.id, err)
		}
	}
	ratings := `INSERT INTO group_ratings
		SELECT 'g1', COUNT(*), ROUND(AVG(stars), 2), '2026-02-01' FROM fdbk_g1 WHERE posted_on < '2026-02-01' UNION ALL
		SELECT 'g2', COUNT(*), ROUND(AVG(stars), 2), '2026-02-01' FROM fdbk_g2 WHERE posted_on < '2026-02-01' UNION ALL
		SELECT 'g3', COUNT(*), ROUND(AVG(stars) / 2.0, 2), '2026-02-01' FROM fdbk_g3 WHERE posted_on < '2026-02-01'`
	if _, err := tx.Exec(ratings); err != nil {
		return fmt.Errorf("shop group_ratings: %w", err)
	}
	return tx.Commit()
}

func fillGroup(tx *sql.Tx, rng *rand.Rand, g group) error {
	item, err := tx.Prepare(fmt.Sprintf(`INSERT INTO items_%s VALUES (?, ?, ?, ?, ?, ?, ?)`, g.id))
	if err != nil {
		return err
	}
	defer item.Close()
	for i := 0; i < g.items; i++ {
		id := g.firstID + i
		p := g.products[rng.IntN(len(g.products))]
		brand := g.brands[rng.IntN(len(g.brands))]
		color := g.colors[rng.IntN(len(g.colors))]
		cents := int(float64(p.cents)*(0.75+rng.Float64()*0.6)) / 100 * 100
		cents += []int{99, 49, 95, 0, 99}[rng.IntN(5)]
		if cents%100 == 0 {
			cents += 100
		}
		listed := day(rng.IntN(900) - 1100)
		inStock := 1
		if rng.IntN(6) == 0 {
			inStock = 0
		}
		title := fmt.Sprintf("%s %s, %s", brand, p.name, color)
		if _, err := item.Exec(id, fmt.Sprintf("%s-%05d", g.skuPrefix, id), title, brand, cents, listed, inStock); err != nil {
			return err
		}
		if err := fillAttrs(tx, rng, g, id, p.name, color); err != nil {
			return err
		}
	}
	return fillReviews(tx, rng, g)
}

func fillAttrs(tx *sql.Tx, rng *rand.Rand, g group, id int, prod, color string) error {
	var err error
	switch g.id {
	case "g1":
		_, err = tx.Exec(`INSERT INTO attrs_g1 VALUES (?, ?, ?, ?)`, id, color,
			[]string{"plastic", "steel", "paper", "recycled plastic"}[rng.IntN(4)], []int{1, 1, 2, 4, 12}[rng.IntN(5)])
	case "g2":
		_, err = tx.Exec(`INSERT INTO attrs_g2 VALUES (?, ?, ?, ?, ?)`, id, color,
			40+rng.IntN(900), []int{6, 12, 12, 24, 24, 36}[rng.IntN(6)], connectivity[prod])
	case "g3":
		_, err = tx.Exec(`INSERT INTO attrs_g3 VALUES (?, ?, ?, ?)`, id, color,
			30+rng.IntN(12000), []string{"spruce", "mahogany", "maple", "birch", "n/a"}[rng.IntN(5)])
	}
	return err
}

func fillReviews(tx *sql.Tx, rng *rand.Rand, g group) error {
	cols := "fdbk_id, ref_id, stars, helpful_votes, posted_on, summary"
	args := "?, ?, ?, ?, ?, ?"
	if g.id == "g1" {
		cols, args = cols+", verified", args+", ?"
	}
	st, err := tx.Prepare(fmt.Sprintf(`INSERT INTO fdbk_%s (%s) VALUES (%s)`, g.id, cols, args))
	if err != nil {
		return err
	}
	defer st.Close()
	five := []int{1, 2, 3, 3, 4, 4, 4, 5, 5, 5, 5}
	for i := 0; i < g.reviews; i++ {
		id := g.firstID*10 + i
		// Popular items collect more reviews: square the draw towards low ids.
		f := rng.Float64()
		ref := g.firstID + int(f*f*float64(g.items))
		s5 := five[rng.IntN(len(five))]
		stars := s5
		if g.maxStars == 10 {
			stars = s5*2 - rng.IntN(2)
		}
		posted := day(rng.IntN(788) - 790)
		var votes any = int64(rng.IntN(40))
		if g.id == "g2" && posted < "2025-01-01" {
			votes = nil
		}
		sum := summaries[s5][rng.IntN(3)]
		vals := []any{id, ref, stars, votes, posted, sum}
		if g.id == "g1" {
			vals = append(vals, int64(btoi(rng.IntN(10) < 7)))
		}
		if _, err := st.Exec(vals...); err != nil {
			return err
		}
	}
	return nil
}

// migrateShop applies the 2026-03-16 schema migration.
func migrateShop(db *sql.DB) error {
	if _, err := db.Exec(shopMigration); err != nil {
		return fmt.Errorf("shop migration: %w", err)
	}
	return nil
}

// day is the ISO date n days after 2026-02-28 (n <= 0 for the past).
func day(n int) string {
	return Epoch.AddDate(0, 0, -2+n).Format("2006-01-02")
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// fileURI is path as a "file:" URI, escaped: a raw '?', '#' or '%' in it
// would end or change the URI and open a different file.
func fileURI(path string) string {
	u := url.URL{Scheme: "file", Path: path, OmitHost: true}
	return "file:" + u.EscapedPath()
}
