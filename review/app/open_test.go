package app

import "testing"

func TestTeamBankName(t *testing.T) {
	t.Parallel()
	for bank, want := range map[string]string{
		"postgres://alice@db.example.com/team":            "postgres:team",
		"postgres://postgres@/t1?host=/tmp/pgtest12/sock": "postgres:t1",
	} {
		if got := teamBankName(bank); got != want {
			t.Errorf("teamBankName(%q) = %q, want %q", bank, got, want)
		}
	}
}
