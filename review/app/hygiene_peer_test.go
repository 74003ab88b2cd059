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
// the index for per changed record and search (k) and how many of its
// rarest terms it searches (terms), each unchanged when 0; it returns
// the settings it replaced.
func SetHygieneNeighbours(k, terms int) (oldK, oldTerms int) {
	oldK, oldTerms = hygieneNeighbours, hygieneRareTerms
	if k > 0 {
		hygieneNeighbours = k
	}
	if terms > 0 {
		hygieneRareTerms = terms
	}
	return oldK, oldTerms
}
