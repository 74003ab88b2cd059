package app

import (
	"errors"
	"regexp"
)

// libpqKeyword finds a PostgreSQL key=value connection string: a libpq
// keyword followed by '=' at the start or after white space.
var libpqKeyword = regexp.MustCompile(`(^|\s)(host|hostaddr|port|dbname|user|password|passfile|sslmode|sslcert|sslkey|sslrootcert|service|options|application_name|connect_timeout|target_session_attrs)\s*=`)

// ErrConnString refuses a --bank that is a PostgreSQL key=value connection
// string. It does not repeat the value: such a string may hold a password.
var ErrConnString = errors.New("the bank looks like a PostgreSQL key=value connection string, which is neither a folder nor a bank URL: " +
	"write it as postgres://USER@HOST:PORT/DB, with the password in PGPASSWORD or ~/.pgpass rather than on the command line")

// CheckBankName refuses a bank name that is neither a folder nor a bank
// URL but a libpq key=value connection string (ErrConnString), before it
// is taken for a folder and shown, password and all, in a message.
func CheckBankName(bank string) error {
	if !IsTeamBank(bank) && libpqKeyword.MatchString(bank) {
		return ErrConnString
	}
	return nil
}
