package sample

// synthEnv is the vocabulary of one environment of a synthetic bank: the
// sample world's shop and docs, plus a few made-up ones in the same style.
type synthEnv struct {
	name, family string
	files        bool     // a folder of workbooks rather than a database
	tables       []string // tables (or files); "_gN" ones take a group suffix
	cols         []string
	keys         []string // join keys
	groups       []string // table suffixes and what they hold
	nouns        []string // what tasks ask about
	units        []string // how a value is stored, for conventions
	tags         []string
}

// synthEnvs weights the sample world's environments above the made-up ones,
// as a bank that grew from them would.
var synthEnvs = []synthEnv{
	{name: EnvShop, family: shopFam,
		tables: []string{"items_gN", "fdbk_gN", "attrs_gN", "attrs_g2_core", "attrs_g2_ext", "group_ratings", "catalog_groups", "schema_migrations"},
		cols:   []string{"price_cents", "stars", "helpful_votes", "verified", "posted_on", "listed_on", "in_stock", "brand", "sku", "title", "warranty_months", "connectivity", "weight_g", "color", "review_count", "avg_stars", "refreshed_on"},
		keys:   []string{"item_id", "ref_id", "item_ref", "fdbk_id", "group_id"},
		groups: []string{"g1 office products", "g2 electronics", "g3 musical instruments"},
		nouns:  []string{"reviews", "items", "brands", "verified reviews", "electronics", "office products", "musical instruments", "ratings", "prices"},
		units:  []string{"integer cents", "stars from 1 to 5", "stars from 1 to 10", "ISO-8601 text dates", "grams", "months"},
		tags:   []string{"price", "ratings", "join", "schema", "migration", "dates", "nulls", "ranking", "brand", "attributes", "verified", "profiling", "cost"}},
	{name: EnvDocs, family: docsFam, files: true,
		tables: []string{"revenue_by_site.csv", "headcount.csv", "pnl_fy2024.md", "sites.md", "notes/methodology.md", "README.md"},
		cols:   []string{"month", "site", "site_code", "revenue_gbp", "fte", "central services", "operating profit", "cogs", "staff costs"},
		keys:   []string{"month", "site_code", "site"},
		groups: []string{"LDS Leeds", "MAN Manchester", "BRS Bristol", "EDI Edinburgh"},
		nouns:  []string{"revenue per head", "headcount", "site revenue", "margin", "FTE", "P&L lines", "quarterly revenue"},
		units:  []string{"whole GBP", "GBP thousands", "fractional FTE", "YYYY-MM months"},
		tags:   []string{"revenue", "headcount", "units", "sites", "pnl", "join", "quarters"}},
	{name: "airline", family: "airline-ops",
		tables: []string{"flights_gN", "bookings_gN", "passengers", "fares", "crews", "delays", "airports"},
		cols:   []string{"fare_cents", "dep_time", "arr_time", "seat_class", "booking_ref", "status", "origin", "destination", "carrier_code", "delay_min", "cabin", "loyalty_tier"},
		keys:   []string{"flight_id", "booking_id", "passenger_id", "airport_code"},
		groups: []string{"g1 domestic", "g2 european", "g3 long-haul", "g4 charter"},
		nouns:  []string{"flights", "bookings", "delays", "passengers", "fares", "cancellations", "load factor"},
		units:  []string{"integer cents", "UTC timestamps", "local times", "minutes"},
		tags:   []string{"fares", "delays", "timezones", "bookings", "join", "status", "dedupe"}},
	{name: "clinic", family: "clinic-records",
		tables: []string{"patients", "visits_gN", "prescriptions", "labs_gN", "wards", "codes_icd"},
		cols:   []string{"visit_date", "dosage_mg", "icd_code", "result_value", "unit", "discharged_on", "ward_id", "age_band", "outcome"},
		keys:   []string{"patient_id", "visit_id", "ward_id", "lab_id"},
		groups: []string{"g1 outpatients", "g2 inpatients", "g3 emergency"},
		nouns:  []string{"visits", "lab results", "prescriptions", "readmissions", "length of stay", "wards"},
		units:  []string{"milligrams", "mmol/L", "ISO-8601 dates", "age bands"},
		tags:   []string{"units", "dates", "codes", "privacy", "join", "nulls"}},
	{name: "logistics", family: "logistics-ops",
		tables: []string{"shipments_gN", "parcels", "warehouses", "carriers", "routes", "scans"},
		cols:   []string{"weight_kg", "shipped_at", "delivered_at", "carrier_id", "postcode", "route_id", "sla_hours", "scan_type", "cost_pence"},
		keys:   []string{"shipment_id", "parcel_id", "warehouse_id", "carrier_id"},
		groups: []string{"g1 parcels", "g2 pallets", "g3 returns"},
		nouns:  []string{"shipments", "late deliveries", "carriers", "warehouses", "returns", "delivery times"},
		units:  []string{"kilograms", "integer pence", "UTC timestamps", "hours"},
		tags:   []string{"sla", "costs", "timezones", "routes", "join", "dedupe", "status"}},
	{name: "payroll", family: "hr-payroll",
		tables: []string{"employees", "departments", "salaries_gN", "leave_requests", "grades", "contracts"},
		cols:   []string{"salary_pence", "dept_id", "start_date", "end_date", "fte", "grade", "leave_days", "manager_id", "bonus_pence"},
		keys:   []string{"employee_id", "dept_id", "grade_id", "contract_id"},
		groups: []string{"g1 head office", "g2 stores", "g3 distribution"},
		nouns:  []string{"salaries", "leavers", "headcount", "bonuses", "leave", "departments"},
		units:  []string{"integer pence", "fractional FTE", "ISO-8601 dates", "days"},
		tags:   []string{"salaries", "headcount", "dates", "units", "join", "privacy"}},
}

// synthEnvWeights picks an environment: shop and docs hold most records.
var synthEnvWeights = []int{35, 20, 15, 10, 10, 10}

// Words the templates draw on.
var (
	synthAggs     = []string{"COUNT(*)", "SUM", "AVG", "MIN/MAX", "COUNT(DISTINCT ...)", "a window function"}
	synthErrors   = []string{"no such column", "no such table", "ambiguous column name", "datatype mismatch", "file not found", "no matches"}
	synthYears    = []string{"2023", "2024", "2025", "2026"}
	synthOperator = []string{"ana", "ben", "chloe", "dev"}
	synthQuestion = []string{"best brand", "top N", "year-on-year", "share of", "average per", "how many", "latest", "per site"}
	synthReasons  = []string{"one row of output is enough to spot the unit", "it avoids fetching thousands of rows", "the reply stays within the row cap",
		"the totals are already aggregated upstream", "it keeps the probe under its time limit"}
	synthEditNote = []string{"narrowed after verify", "reworded for clarity", "confidence raised after a second success", "scope narrowed to one group", "trigger made specific"}
)
