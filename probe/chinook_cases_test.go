package probe

// chinookCases were computed with the sqlite3 command-line tool (3.40.1,
// `sqlite3 -json`) on the real Chinook database and are compared exactly.
var chinookCases = []struct {
	name  string
	query string
	cols  []string
	rows  [][]any
}{
	{
		name:  "count tracks",
		query: `SELECT count(*) AS n FROM Track`,
		cols:  []string{"n"},
		rows: [][]any{
			{int64(3503)},
		},
	},
	{
		name:  "tables via sqlite_schema",
		query: `SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name`,
		cols:  []string{"name"},
		rows: [][]any{
			{"Album"},
			{"Artist"},
			{"Customer"},
			{"Employee"},
			{"Genre"},
			{"Invoice"},
			{"InvoiceLine"},
			{"MediaType"},
			{"Playlist"},
			{"PlaylistTrack"},
			{"Track"},
		},
	},
	{
		name:  "table_info",
		query: `PRAGMA table_info(Album)`,
		cols:  []string{"cid", "name", "type", "notnull", "dflt_value", "pk"},
		rows: [][]any{
			{int64(0), "AlbumId", "INTEGER", int64(1), nil, int64(1)},
			{int64(1), "Title", "NVARCHAR(160)", int64(1), nil, int64(0)},
			{int64(2), "ArtistId", "INTEGER", int64(1), nil, int64(0)},
		},
	},
	{
		name:  "join albums artists",
		query: `SELECT a.Title, ar.Name FROM Album a JOIN Artist ar USING (ArtistId) WHERE a.AlbumId <= 5 ORDER BY a.AlbumId`,
		cols:  []string{"Title", "Name"},
		rows: [][]any{
			{"For Those About To Rock We Salute You", "AC/DC"},
			{"Balls to the Wall", "Accept"},
			{"Restless and Wild", "Accept"},
			{"Let There Be Rock", "AC/DC"},
			{"Big Ones", "Aerosmith"},
		},
	},
	{
		name:  "group by genre",
		query: `SELECT g.Name, count(*) AS n FROM Track t JOIN Genre g USING (GenreId) GROUP BY g.GenreId ORDER BY n DESC, g.Name LIMIT 5`,
		cols:  []string{"Name", "n"},
		rows: [][]any{
			{"Rock", int64(1297)},
			{"Latin", int64(579)},
			{"Metal", int64(374)},
			{"Alternative & Punk", int64(332)},
			{"Jazz", int64(130)},
		},
	},
	{
		name:  "nulls",
		query: `SELECT FirstName, Company, Fax FROM Customer WHERE CustomerId IN (1, 2, 3) ORDER BY CustomerId`,
		cols:  []string{"FirstName", "Company", "Fax"},
		rows: [][]any{
			{"Luís", "Embraer - Empresa Brasileira de Aeronáutica S.A.", "+55 (12) 3923-5566"},
			{"Leonie", nil, nil},
			{"François", nil, nil},
		},
	},
	{
		name:  "real values",
		query: `SELECT InvoiceId, Total FROM Invoice ORDER BY Total DESC, InvoiceId LIMIT 5`,
		cols:  []string{"InvoiceId", "Total"},
		rows: [][]any{
			{int64(404), float64(25.86)},
			{int64(299), float64(23.86)},
			{int64(96), float64(21.86)},
			{int64(194), float64(21.86)},
			{int64(89), float64(18.86)},
		},
	},
	{
		name:  "real sum",
		query: `SELECT round(sum(Total), 2) AS total FROM Invoice`,
		cols:  []string{"total"},
		rows: [][]any{
			{float64(2328.6)},
		},
	},
	{
		name:  "real avg",
		query: `SELECT round(avg(UnitPrice), 6) AS avg_price FROM Track`,
		cols:  []string{"avg_price"},
		rows: [][]any{
			{float64(1.050805)},
		},
	},
	{
		name:  "non-ascii",
		query: `SELECT FirstName, LastName, City FROM Customer WHERE Country IN ('Brazil', 'Germany') ORDER BY CustomerId LIMIT 6`,
		cols:  []string{"FirstName", "LastName", "City"},
		rows: [][]any{
			{"Luís", "Gonçalves", "São José dos Campos"},
			{"Leonie", "Köhler", "Stuttgart"},
			{"Eduardo", "Martins", "São Paulo"},
			{"Alexandre", "Rocha", "São Paulo"},
			{"Roberto", "Almeida", "Rio de Janeiro"},
			{"Fernanda", "Ramos", "Brasília"},
		},
	},
	{
		name:  "datetime text",
		query: `SELECT InvoiceId, InvoiceDate FROM Invoice ORDER BY InvoiceId LIMIT 3`,
		cols:  []string{"InvoiceId", "InvoiceDate"},
		rows: [][]any{
			{int64(1), "2021-01-01 00:00:00"},
			{int64(2), "2021-01-02 00:00:00"},
			{int64(3), "2021-01-03 00:00:00"},
		},
	},
	{
		name:  "self join left",
		query: `SELECT e.FirstName, m.FirstName AS Manager FROM Employee e LEFT JOIN Employee m ON e.ReportsTo = m.EmployeeId ORDER BY e.EmployeeId`,
		cols:  []string{"FirstName", "Manager"},
		rows: [][]any{
			{"Andrew", nil},
			{"Nancy", "Andrew"},
			{"Jane", "Nancy"},
			{"Margaret", "Nancy"},
			{"Steve", "Nancy"},
			{"Michael", "Andrew"},
			{"Robert", "Michael"},
			{"Laura", "Michael"},
		},
	},
	{
		name:  "recursive cte",
		query: `WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 5) SELECT sum(x) AS s FROM n`,
		cols:  []string{"s"},
		rows: [][]any{
			{int64(15)},
		},
	},
	{
		name:  "having",
		query: `SELECT BillingCountry, count(*) AS c FROM Invoice GROUP BY BillingCountry HAVING c > 20 ORDER BY c DESC, BillingCountry`,
		cols:  []string{"BillingCountry", "c"},
		rows: [][]any{
			{"USA", int64(91)},
			{"Canada", int64(56)},
			{"Brazil", int64(35)},
			{"France", int64(35)},
			{"Germany", int64(28)},
			{"United Kingdom", int64(21)},
		},
	},
	{
		name:  "subquery",
		query: `SELECT Name, Milliseconds FROM Track WHERE Milliseconds = (SELECT max(Milliseconds) FROM Track)`,
		cols:  []string{"Name", "Milliseconds"},
		rows: [][]any{
			{"Occupation / Precipice", int64(5286953)},
		},
	},
	{
		name:  "index_list",
		query: `PRAGMA index_list(Track)`,
		cols:  []string{"seq", "name", "unique", "origin", "partial"},
		rows: [][]any{
			{int64(0), "IFK_TrackMediaTypeId", int64(0), "c", int64(0)},
			{int64(1), "IFK_TrackGenreId", int64(0), "c", int64(0)},
			{int64(2), "IFK_TrackAlbumId", int64(0), "c", int64(0)},
		},
	},
	{
		name:  "foreign_key_list",
		query: `PRAGMA foreign_key_list(Album)`,
		cols:  []string{"id", "seq", "table", "from", "to", "on_update", "on_delete", "match"},
		rows: [][]any{
			{int64(0), int64(0), "Artist", "ArtistId", "ArtistId", "NO ACTION", "NO ACTION", "NONE"},
		},
	},
	{
		name:  "typeof",
		query: `SELECT typeof(Total) AS t1, typeof(InvoiceDate) AS t2, typeof(BillingState) AS t3 FROM Invoice WHERE InvoiceId = 1`,
		cols:  []string{"t1", "t2", "t3"},
		rows: [][]any{
			{"real", "text", "null"},
		},
	},
	{
		name:  "playlists",
		query: `SELECT PlaylistId, Name FROM Playlist ORDER BY PlaylistId`,
		cols:  []string{"PlaylistId", "Name"},
		rows: [][]any{
			{int64(1), "Music"},
			{int64(2), "Movies"},
			{int64(3), "TV Shows"},
			{int64(4), "Audiobooks"},
			{int64(5), "90’s Music"},
			{int64(6), "Audiobooks"},
			{int64(7), "Movies"},
			{int64(8), "Music"},
			{int64(9), "Music Videos"},
			{int64(10), "TV Shows"},
			{int64(11), "Brazilian Music"},
			{int64(12), "Classical"},
			{int64(13), "Classical 101 - Deep Cuts"},
			{int64(14), "Classical 101 - Next Steps"},
			{int64(15), "Classical 101 - The Basics"},
			{int64(16), "Grunge"},
			{int64(17), "Heavy Metal Classic"},
			{int64(18), "On-The-Go 1"},
		},
	},
	{
		name:  "string functions",
		query: `SELECT upper(Name) AS u, length(Name) AS l FROM Genre WHERE GenreId IN (1, 2) ORDER BY GenreId`,
		cols:  []string{"u", "l"},
		rows: [][]any{
			{"ROCK", int64(4)},
			{"JAZZ", int64(4)},
		},
	},
	{
		name:  "count distinct",
		query: `SELECT count(DISTINCT Composer) AS composers, count(*) - count(Composer) AS no_composer FROM Track`,
		cols:  []string{"composers", "no_composer"},
		rows: [][]any{
			{int64(853), int64(977)},
		},
	},
	{
		name:  "indexes via sqlite_schema",
		query: `SELECT name, tbl_name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'Track' ORDER BY name`,
		cols:  []string{"name", "tbl_name"},
		rows: [][]any{
			{"IFK_TrackAlbumId", "Track"},
			{"IFK_TrackGenreId", "Track"},
			{"IFK_TrackMediaTypeId", "Track"},
		},
	},
	{
		name:  "case expression",
		query: `SELECT MediaTypeId, CASE WHEN MediaTypeId = 1 THEN 'mpeg' ELSE 'other' END AS kind, count(*) AS n FROM Track GROUP BY MediaTypeId ORDER BY MediaTypeId`,
		cols:  []string{"MediaTypeId", "kind", "n"},
		rows: [][]any{
			{int64(1), "mpeg", int64(3034)},
			{int64(2), "other", int64(237)},
			{int64(3), "other", int64(214)},
			{int64(4), "other", int64(7)},
			{int64(5), "other", int64(11)},
		},
	},
	{
		name:  "mixed types",
		query: `SELECT 1 AS i, 2.5 AS r, 'x' AS s, NULL AS z, 10.0 AS whole`,
		cols:  []string{"i", "r", "s", "z", "whole"},
		rows: [][]any{
			{int64(1), float64(2.5), "x", nil, float64(10.0)},
		},
	},
	{
		name:  "like non-ascii",
		query: `SELECT Name FROM Artist WHERE Name LIKE '%ã%' ORDER BY Name`,
		cols:  []string{"Name"},
		rows: [][]any{
			{"Barão Vermelho"},
			{"Chico Science & Nação Zumbi"},
			{"João Gilberto"},
			{"João Suplicy"},
			{"Legião Urbana"},
			{"Nação Zumbi"},
			{"Titãs"},
		},
	},
}
