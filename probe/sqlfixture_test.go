package probe

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/memreview/memreview/sample/testenv"
)

// The music fixture is a Chinook-shaped database that the tests write
// themselves, so that the hostile-SQL suite and the SQL correctness tests
// run everywhere; the real Chinook database, when present, is an extra
// check (sqlDatabases). Its contents follow simple formulas, and the
// expected answers (fixtureCases) are computed from the same formulas in
// Go, not read back from SQLite.
const (
	fxArtists = 275
	fxAlbums  = 347
	fxGenres  = 25
	fxTracks  = 3000
)

func fxArtistName(i int) string {
	if i%50 == 0 {
		return fmt.Sprintf("São Artist %03d", i)
	}
	return fmt.Sprintf("Artist %03d", i)
}
func fxAlbumArtist(j int) int { return (j*7)%fxArtists + 1 }
func fxTrackAlbum(k int) int  { return k%fxAlbums + 1 }
func fxTrackGenre(k int) int  { return (k*k)%fxGenres + 1 }
func fxTrackMillis(k int) int { return 100000 + (k*7919)%400009 }
func fxComposer(k int) any {
	if k%4 == 0 {
		return nil
	}
	return fmt.Sprintf("Composer %d", k%40)
}

// writeMusicDB writes the fixture into a fresh folder and returns its path.
func writeMusicDB(t testing.TB) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "music.sqlite")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	schema := `
CREATE TABLE Artist (ArtistId INTEGER PRIMARY KEY NOT NULL, Name NVARCHAR(120));
CREATE TABLE Album (AlbumId INTEGER PRIMARY KEY NOT NULL, Title NVARCHAR(160) NOT NULL, ArtistId INTEGER NOT NULL,
	FOREIGN KEY (ArtistId) REFERENCES Artist (ArtistId) ON DELETE NO ACTION ON UPDATE NO ACTION);
CREATE TABLE Genre (GenreId INTEGER PRIMARY KEY NOT NULL, Name NVARCHAR(120));
CREATE TABLE MediaType (MediaTypeId INTEGER PRIMARY KEY NOT NULL, Name NVARCHAR(120));
CREATE TABLE Track (TrackId INTEGER PRIMARY KEY NOT NULL, Name NVARCHAR(200) NOT NULL, AlbumId INTEGER, MediaTypeId INTEGER NOT NULL,
	GenreId INTEGER, Composer NVARCHAR(220), Milliseconds INTEGER NOT NULL, UnitPrice NUMERIC(10,2) NOT NULL);
CREATE INDEX IFK_TrackAlbumId ON Track (AlbumId);
CREATE INDEX IFK_TrackGenreId ON Track (GenreId);
CREATE TABLE Employee (EmployeeId INTEGER PRIMARY KEY NOT NULL, FirstName NVARCHAR(20) NOT NULL, ReportsTo INTEGER);
CREATE TABLE Invoice (InvoiceId INTEGER PRIMARY KEY NOT NULL, InvoiceDate DATETIME NOT NULL, BillingCountry NVARCHAR(40), Cents INTEGER NOT NULL);
`
	if _, err := db.Exec(schema); err != nil {
		t.Fatal(err)
	}
	tx, _ := db.Begin()
	ins := func(q string, args ...any) {
		if _, err := tx.Exec(q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	for i := 1; i <= fxArtists; i++ {
		ins(`INSERT INTO Artist VALUES (?, ?)`, i, fxArtistName(i))
	}
	for j := 1; j <= fxAlbums; j++ {
		ins(`INSERT INTO Album VALUES (?, ?, ?)`, j, fmt.Sprintf("Album %03d", j), fxAlbumArtist(j))
	}
	for g := 1; g <= fxGenres; g++ {
		ins(`INSERT INTO Genre VALUES (?, ?)`, g, fmt.Sprintf("Genre %02d", g))
	}
	ins(`INSERT INTO MediaType VALUES (1, 'MPEG audio file'), (2, 'AAC audio file')`)
	for k := 1; k <= fxTracks; k++ {
		media, price := 1, 0.99
		if k%5 == 0 {
			media, price = 2, 1.99
		}
		ins(`INSERT INTO Track VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, k, fmt.Sprintf("Track %04d", k), fxTrackAlbum(k), media, fxTrackGenre(k), fxComposer(k), fxTrackMillis(k), price)
	}
	ins(`INSERT INTO Employee VALUES (1, 'Andrew', NULL), (2, 'Nancy', 1), (3, 'Jane', 2)`)
	for n := 1; n <= 100; n++ {
		ins(`INSERT INTO Invoice VALUES (?, ?, ?, ?)`, n, fmt.Sprintf("2021-%02d-%02d 00:00:00", n%12+1, n%28+1), []string{"Brazil", "Germany", "USA", "Canada"}[n%4], n*37%1000)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	return path
}

// sqlDatabase is a database the SQL tests run on.
type sqlDatabase struct{ name, path string }

// sqlDatabases returns the fixture, always, and a copy of the real Chinook
// database when ../shared/realdata has it (under MEMREVIEW_CI=1 it must).
func sqlDatabases(t *testing.T) []sqlDatabase {
	t.Helper()
	dbs := []sqlDatabase{{"fixture", writeMusicDB(t)}}
	if chinookPresent() || testenv.CI() {
		dbs = append(dbs, sqlDatabase{"chinook", copyChinook(t)})
	}
	return dbs
}

type sqlCase struct {
	name  string
	query string
	cols  []string
	rows  [][]any
}

// fixtureCases are the correctness cases on the fixture, their answers
// computed in Go from the fixture's formulas.
func fixtureCases() []sqlCase {
	var cs []sqlCase
	add := func(name, q string, cols []string, rows [][]any) { cs = append(cs, sqlCase{name, q, cols, rows}) }

	add("count tracks", `SELECT count(*) AS n FROM Track`, []string{"n"}, [][]any{{int64(fxTracks)}})
	add("tables", `SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name`, []string{"name"},
		[][]any{{"Album"}, {"Artist"}, {"Employee"}, {"Genre"}, {"Invoice"}, {"MediaType"}, {"Track"}})
	add("table_info", `PRAGMA table_info(Album)`, []string{"cid", "name", "type", "notnull", "dflt_value", "pk"}, [][]any{
		{int64(0), "AlbumId", "INTEGER", int64(1), nil, int64(1)},
		{int64(1), "Title", "NVARCHAR(160)", int64(1), nil, int64(0)},
		{int64(2), "ArtistId", "INTEGER", int64(1), nil, int64(0)}})

	var join [][]any
	for j := 1; j <= 5; j++ {
		join = append(join, []any{fmt.Sprintf("Album %03d", j), fxArtistName(fxAlbumArtist(j))})
	}
	add("join albums artists", `SELECT a.Title, ar.Name FROM Album a JOIN Artist ar USING (ArtistId) WHERE a.AlbumId <= 5 ORDER BY a.AlbumId`, []string{"Title", "Name"}, join)

	counts := map[int]int{}
	maxMs, composers, noComposer, mpeg := 0, map[string]bool{}, 0, 0
	for k := 1; k <= fxTracks; k++ {
		counts[fxTrackGenre(k)]++
		maxMs = max(maxMs, fxTrackMillis(k))
		if c := fxComposer(k); c == nil {
			noComposer++
		} else {
			composers[c.(string)] = true
		}
		if k%5 != 0 {
			mpeg++
		}
	}
	type gc struct {
		name string
		n    int
	}
	var gs []gc
	for g, n := range counts {
		gs = append(gs, gc{fmt.Sprintf("Genre %02d", g), n})
	}
	slices.SortFunc(gs, func(a, b gc) int {
		if a.n != b.n {
			return b.n - a.n
		}
		return strings.Compare(a.name, b.name)
	})
	var top [][]any
	for _, g := range gs[:5] {
		top = append(top, []any{g.name, int64(g.n)})
	}
	add("group by genre", `SELECT g.Name, count(*) AS n FROM Track t JOIN Genre g USING (GenreId) GROUP BY g.GenreId ORDER BY n DESC, g.Name LIMIT 5`, []string{"Name", "n"}, top)

	var longest [][]any
	for k := 1; k <= fxTracks; k++ {
		if fxTrackMillis(k) == maxMs {
			longest = append(longest, []any{fmt.Sprintf("Track %04d", k), int64(maxMs)})
		}
	}
	add("subquery max", `SELECT Name, Milliseconds FROM Track WHERE Milliseconds = (SELECT max(Milliseconds) FROM Track) ORDER BY TrackId`, []string{"Name", "Milliseconds"}, longest)
	add("distinct and nulls", `SELECT count(DISTINCT Composer) AS composers, count(*) - count(Composer) AS no_composer FROM Track`, []string{"composers", "no_composer"}, [][]any{{int64(len(composers)), int64(noComposer)}})
	add("case and group", `SELECT MediaTypeId, CASE WHEN MediaTypeId = 1 THEN 'mpeg' ELSE 'other' END AS kind, count(*) AS n FROM Track GROUP BY MediaTypeId ORDER BY MediaTypeId`,
		[]string{"MediaTypeId", "kind", "n"}, [][]any{{int64(1), "mpeg", int64(mpeg)}, {int64(2), "other", int64(fxTracks - mpeg)}})
	add("left join nulls", `SELECT e.FirstName, m.FirstName AS Manager FROM Employee e LEFT JOIN Employee m ON e.ReportsTo = m.EmployeeId ORDER BY e.EmployeeId`,
		[]string{"FirstName", "Manager"}, [][]any{{"Andrew", nil}, {"Nancy", "Andrew"}, {"Jane", "Nancy"}})
	add("recursive cte", `WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 5) SELECT sum(x) AS s FROM n`, []string{"s"}, [][]any{{int64(15)}})

	byCountry, cents := map[string]int{}, 0
	for n := 1; n <= 100; n++ {
		byCountry[[]string{"Brazil", "Germany", "USA", "Canada"}[n%4]]++
		cents += n * 37 % 1000
	}
	add("having", `SELECT BillingCountry, count(*) AS c FROM Invoice GROUP BY BillingCountry HAVING c >= 25 ORDER BY BillingCountry`, []string{"BillingCountry", "c"},
		[][]any{{"Brazil", int64(byCountry["Brazil"])}, {"Canada", int64(byCountry["Canada"])}, {"Germany", int64(byCountry["Germany"])}, {"USA", int64(byCountry["USA"])}})
	add("sum", `SELECT sum(Cents) AS total FROM Invoice`, []string{"total"}, [][]any{{int64(cents)}})
	add("datetime column", `SELECT InvoiceId, InvoiceDate FROM Invoice ORDER BY InvoiceId LIMIT 2`, []string{"InvoiceId", "InvoiceDate"},
		[][]any{{int64(1), "2021-02-02 00:00:00"}, {int64(2), "2021-03-03 00:00:00"}})
	add("typeof", `SELECT typeof(Cents) AS a, typeof(InvoiceDate) AS b, typeof(BillingCountry) AS c, typeof(NULL) AS d FROM Invoice WHERE InvoiceId = 1`,
		[]string{"a", "b", "c", "d"}, [][]any{{"integer", "text", "text", "null"}})
	add("index_list", `SELECT name FROM pragma_index_list('Track') ORDER BY name`, []string{"name"}, [][]any{{"IFK_TrackAlbumId"}, {"IFK_TrackGenreId"}})
	add("foreign_key_list", `SELECT "table", "from", "to" FROM pragma_foreign_key_list('Album')`, []string{"table", "from", "to"}, [][]any{{"Artist", "ArtistId", "ArtistId"}})
	var sao [][]any
	for i := 1; i <= fxArtists; i++ {
		if strings.Contains(fxArtistName(i), "ã") {
			sao = append(sao, []any{fxArtistName(i)})
		}
	}
	add("unicode like", `SELECT Name FROM Artist WHERE Name LIKE '%ã%' ORDER BY Name`, []string{"Name"}, sao)
	add("literals", `SELECT 1 AS i, 2.5 AS r, 'x' AS s, NULL AS z, 10.0 AS whole, 9223372036854775807 AS big, 'ü日本' AS u`,
		[]string{"i", "r", "s", "z", "whole", "big", "u"}, [][]any{{int64(1), 2.5, "x", nil, 10.0, int64(9223372036854775807), "ü日本"}})
	add("upper length", `SELECT upper(Name) AS u, length(Name) AS l FROM Genre WHERE GenreId IN (1, 2) ORDER BY GenreId`, []string{"u", "l"},
		[][]any{{"GENRE 01", int64(8)}, {"GENRE 02", int64(8)}})
	return cs
}
