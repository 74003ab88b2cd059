package app

// SetHygieneWordSearch makes the incremental hygiene run find neighbours
// by the any-word search it used before index.RareTerms (the peer of
// BenchmarkHygieneIncremental); it returns the setting it replaced.
func SetHygieneWordSearch(on bool) bool {
	was := hygieneWordSearch
	hygieneWordSearch = on
	return was
}

// SetHygieneNeighbours sets how many neighbours the incremental run asks
// the index for per changed record and search; it returns the old count.
func SetHygieneNeighbours(k int) int {
	was := hygieneNeighbours
	hygieneNeighbours = k
	return was
}
